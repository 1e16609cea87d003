"""Agnaistic pieces shared by ``agnai`` (characters) and ``agnai-memory`` (memory books)."""

"""Code shared by the RisuAI adapters: RPack, .risum, lorebook/regex/module mappings, assets.

An adapter's ``__init__`` imports only the light pieces (:mod:`.declared`, :mod:`.risum` and
:mod:`.rpack`), so detection never builds pydantic models.
"""

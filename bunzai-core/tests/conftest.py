"""Core tests run against core alone unless a test asks for installed plugins."""

"""Code shared by the RisuAI adapters: RPack, .risum, lorebook/regex/module mappings, assets.

Nothing here is imported by an adapter's ``__init__`` except the light detection helpers
(:mod:`.sniff` and :mod:`.rpack`), so detection never builds pydantic models.
"""

"""The entity kinds, importable without building any pydantic model (the CLI stays fast)."""

from __future__ import annotations

KINDS: tuple[str, ...] = ("character", "lorebook", "persona", "regex", "module", "chat",
                           "preset")
"""character, lorebook, persona and regex from the card ecosystem; module for RisuAI bundles;
chat for conversations (never converted to or from another kind); preset for generation
settings and prompt templates."""

ANY_KIND = "any"
"""Declared by a format that holds every kind (only core's native vaud-json does)."""

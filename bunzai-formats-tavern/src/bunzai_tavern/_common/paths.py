"""Canonical paths the Tavern writers hold, for ``FormatAdapter.carries`` (import-light: every
adapter module is imported for detection)."""

from __future__ import annotations

MEMORY_ENTRY_FIELDS = (
    "name", "content", "keys", "priority", "insertion_order", "enabled", "id", "comment",
    "secondary_keys", "constant", "position", "probability", "use_probability", "selective",
    "selective_logic", "exclude_recursion",
)
"""What an Agnai memory entry holds."""


def book(base: str, entry_fields: tuple[str, ...]) -> tuple[str, ...]:
    """A book at ``base`` (``""`` standalone, ``"lorebook."`` in a character) holding every
    field of its own and ``entry_fields`` of each entry."""
    return (f"{base}*", *(f"{base}entries[*].{f}" for f in entry_fields))


def memory_neutral(base: str, format_id: str) -> tuple[tuple[str, tuple[object, ...]], ...]:
    """A memory book's own app data at the values that ask nothing of an app."""
    return ((f"{base}entries[*].app_data.{format_id}.case_sensitive", (False,)),
            (f"{base}app_data.{format_id}.is_creation", (False,)))

"""Canonical paths the Tavern writers hold, for ``FormatAdapter.carries`` (import-light: every
adapter module is imported for detection)."""

from __future__ import annotations

BOOK_FIELDS = ("name", "description", "scan_depth", "token_budget", "recursive_scanning",
               "extensions")

ENTRY_FIELDS = (
    "id", "keys", "secondary_keys", "content", "comment", "name", "enabled", "constant",
    "selective", "selective_logic", "insertion_order", "priority", "case_sensitive",
    "match_whole_words", "use_regex", "position", "depth", "role", "probability",
    "use_probability", "group", "group_override", "group_weight", "use_group_scoring",
    "scan_depth", "exclude_recursion", "prevent_recursion", "delay_until_recursion", "sticky",
    "cooldown", "delay", "vectorized", "automation_id", "display_index", "ignore_budget",
    "match_persona_description", "match_character_description", "match_character_personality",
    "match_character_depth_prompt", "match_scenario", "match_creator_notes", "outlet_name",
    "triggers", "character_filter", "folder", "is_folder", "extensions",
)
"""Every canonical entry field (its app data and layout aside)."""

MEMORY_ENTRY_FIELDS = (
    "name", "content", "keys", "priority", "insertion_order", "enabled", "id", "comment",
    "secondary_keys", "constant", "position", "probability", "use_probability", "selective",
    "selective_logic", "exclude_recursion",
)
"""What an Agnai memory entry holds."""


def book(base: str, entry_fields: tuple[str, ...]) -> tuple[str, ...]:
    """A book at ``base`` (``""`` standalone, ``"lorebook."`` in a character) holding its own
    fields and ``entry_fields`` of each entry."""
    return (*(base + f for f in BOOK_FIELDS), *(f"{base}entries[*].{f}" for f in entry_fields))


def memory_neutral(base: str, format_id: str) -> tuple[tuple[str, tuple[object, ...]], ...]:
    """A memory book's own app data at the values that ask nothing of an app."""
    return ((f"{base}entries[*].app_data.{format_id}.case_sensitive", (False,)),
            (f"{base}app_data.{format_id}.is_creation", (False,)))

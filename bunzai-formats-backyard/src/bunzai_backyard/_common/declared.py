"""What both Backyard writers declare about the canonical fields they hold, and why they drop
the others (``FormatAdapter.carries`` and ``reasons``).  Kept apart so the adapter modules, which
detection imports, stay light."""

from __future__ import annotations

DISPLAY_NAME = "display_name"
"""Extension key for Backyard's full display name (the key SillyTavern's BYAF import uses)."""

CARRIES = (
    "name", "nickname", "description", "personality", "tags", "creation_date",
    "modification_date", f"extensions.{DISPLAY_NAME}",
    "lorebook.entries[*].keys", "lorebook.entries[*].content", "lorebook.entries[*].enabled",
    "lorebook.entries[*].is_folder",
)
"""What both Backyard writers hold of a canonical character (each adds its own)."""

REASONS = (
    ("creator_notes", "Backyard has no creator notes"),
    ("creator_notes_multilingual", "Backyard has no creator notes"),
    ("post_history_instructions", "Backyard has no post-history instructions"),
    ("group_only_greetings", "Backyard has no group-only greetings"),
    ("character_version", "Backyard has no character version"),
    ("source", "Backyard has no source list"),
    ("regex_scripts", "Backyard has no regex scripts"),
    ("triggers", "Backyard has no trigger scripts"),
    ("extensions", "Backyard has no place for other apps' extension data"),
    ("assets", "Backyard has no place for the asset's extension data"),
    ("lorebook", "Backyard lore has no book settings"),
    ("lorebook.entries[*]", "Backyard lore items hold only keys and text"),
)
"""Why a Backyard writer drops what it does not carry, in a user's words."""

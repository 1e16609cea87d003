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
    ("time_zone", "a Backyard scenario's dates are instants (UTC): a chat's wall-clock times, "
                  "which carry no zone, were read in the zone named on reading"),
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
    # what the user will see, where that is more than the setting being gone
    *((f"lorebook.entries[*].{f}", why) for fields, why in (
        (("constant",), "Backyard puts a lore item in the prompt only when one of its keys "
                        "comes up: this always-active entry now waits for its keys"),
        (("secondary_keys", "selective", "selective_logic"),
         "Backyard matches a lore item on its keys alone: the secondary keys no longer narrow "
         "when it fires"),
        (("probability", "use_probability"), "Backyard puts a lore item in every time its "
                                             "keys come up: the entry's chance is gone"),
        (("position", "depth", "role"), "Backyard chooses where lore goes in the prompt: the "
                                        "entry's own place is gone"),
        (("comment", "name"), "Backyard lore items have no title"),
    ) for f in fields),
)
"""Why a Backyard writer drops what it does not carry, in a user's words."""

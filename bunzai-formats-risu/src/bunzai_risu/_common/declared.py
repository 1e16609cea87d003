"""What RisuAI's objects hold, for the adapters' ``carries`` and ``reasons`` (import-light).

Every RisuAI format embeds the same lorebook entry and custom script, so what they can hold
and why the rest is dropped is said once here, as patterns relative to the entry or script;
each adapter puts them under its own path (``entries[*].``, ``lorebook.entries[*].``,
``regex_scripts[*].``).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

DECOR_FIELDS = (
    "position", "depth", "role", "probability", "use_probability", "delay", "scan_depth",
    "match_whole_words", "enabled", "selective", "selective_logic", "secondary_keys",
)
"""Canonical entry fields a RisuAI ``@@decorator`` can set."""

ENTRY_CARRIED = (
    "keys", "secondary_keys", "content", "comment", "constant", "selective",
    "insertion_order", "case_sensitive", "use_regex", "folder", "is_folder", "id",
    "extensions", *DECOR_FIELDS,
)
"""Entry fields a RisuAI lorebook entry holds (its decorators included)."""

_MATCH = "RisuAI matches keys in the chat only"
_GROUPS = "RisuAI has no inclusion groups"
_TIMED = "RisuAI has no sticky or cooldown effects on entries"
_RECURSION = "RisuAI has no per-entry recursion settings"

ENTRY_REASONS = (
    ("name", "RisuAI entries have one title (comment)"),
    ("priority", "RisuAI orders entries by insertion order only"),
    ("group", _GROUPS), ("group_override", _GROUPS), ("group_weight", _GROUPS),
    ("use_group_scoring", _GROUPS),
    ("sticky", _TIMED), ("cooldown", _TIMED),
    ("exclude_recursion", _RECURSION), ("prevent_recursion", _RECURSION),
    ("delay_until_recursion", _RECURSION),
    ("vectorized", "RisuAI has no vector-matched entries"),
    ("automation_id", "RisuAI has no automation ids"),
    ("ignore_budget", "RisuAI always counts entries against the budget"),
    ("outlet_name", "RisuAI has no outlets"),
    ("triggers", "RisuAI entries fire on every kind of generation"),
    ("character_filter", "RisuAI has no per-character entry filters"),
    ("match_persona_description", _MATCH), ("match_character_description", _MATCH),
    ("match_character_personality", _MATCH), ("match_character_depth_prompt", _MATCH),
    ("match_scenario", _MATCH), ("match_creator_notes", _MATCH),
)
"""Entry fields a RisuAI entry has no place for, and why."""

SCRIPT_CARRIED = (
    "name", "pattern", "replace", "flags", "placement", "disabled", "markdown_only",
    "prompt_only", "extensions.risuai.meta_flags", "extensions.risuai.type",
)
"""Script fields a RisuAI custom script holds."""

SCRIPT_REASONS = (
    ("id", "RisuAI custom scripts have no id"),
    ("trim_strings", "RisuAI custom scripts cannot trim captured groups"),
    ("run_on_edit", "RisuAI has no run-on-edit switch"),
    ("substitute_regex", "RisuAI expands macros in patterns only with the <cbs> flag"),
    ("min_depth", "RisuAI custom scripts have no depth filter"),
    ("max_depth", "RisuAI custom scripts have no depth filter"),
    ("extensions", "RisuAI custom scripts keep only RisuAI's meta flags"),
)
"""Script fields a RisuAI custom script has no place for, and why."""

BOOK_REASONS = (
    ("name", "a RisuAI lorebook is a bare list of entries"),
    ("description", "a RisuAI lorebook is a bare list of entries"),
    ("scan_depth", "a RisuAI lorebook is a bare list of entries: RisuAI's scan depth is a "
                   "chat setting"),
    ("token_budget", "a RisuAI lorebook is a bare list of entries: RisuAI's budget is a "
                     "chat setting"),
    ("recursive_scanning", "a RisuAI lorebook is a bare list of entries: recursive scanning "
                           "is a chat setting"),
    ("extensions", "a RisuAI lorebook is a bare list of entries"),
)
"""Book fields a bare RisuAI entry list has no place for, and why."""


CARD = "risu"
"""The format id of the card JSON in every RisuAI container: a PNG card and a CharX's
``card.json`` are the same JSON, so its layout and app data are kept under one id and travel
between them."""

CARD_CARRIED = ("*", f"app_data.{CARD}")
"""What a RisuAI card holds: every canonical field (a custom script's limits are reported by
the writer, which knows which scripts become custom scripts), and RisuAI's own app data."""


def under(prefix: str, items: Iterable[str]) -> tuple[str, ...]:
    """``items`` (patterns) placed under ``prefix`` (``lorebook.entries[*].``)."""
    return tuple(prefix + p for p in items)


def reasons_under(prefix: str,
                  items: Iterable[tuple[str, str]]) -> tuple[tuple[str, str], ...]:
    """``(pattern, reason)`` pairs placed under ``prefix``."""
    return tuple((prefix + p, why) for p, why in items)


def decorator_lines(content: Any) -> bool:
    """Whether an entry's content opens with ``@@`` lines: RisuAI acts on them as settings
    (the reader lifts those with a canonical field, so what is left is ``@@position``,
    ``@@inject_lore`` …), every other app shows them as text."""
    return isinstance(content, str) and content.startswith("@@")


DECORATOR_TEXT = ("only RisuAI acts on @@ decorator lines (where and how the entry is put in "
                  "the prompt); other apps show them as text")

ACTS_ON = tuple((f"{where}entries[*].content", decorator_lines, DECORATOR_TEXT)
                for where in ("", "lorebook."))
"""What every RisuAI format declares it acts on (``FormatAdapter.acts_on``)."""

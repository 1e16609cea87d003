"""Values of SillyTavern's own keys that ask nothing of an app (``FormatAdapter.neutral``).

Every Tavern adapter whose reader can produce these keys declares the tuple that covers them,
so a conversion that drops them reports nothing whichever adapters are installed.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .agnai_persona import is_plain_text

_PROMPT_KEYS = frozenset({"prompt", "depth", "role"})


def _any_value(value: Any, owner: Any) -> bool:
    return True


def _without_prompt(value: Any, owner: Any) -> bool:
    """A depth prompt with nothing to insert: its depth and role do nothing."""
    return isinstance(value, Mapping) and not value.get("prompt") and set(value) <= _PROMPT_KEYS


_ENTRY_EXTENSIONS: tuple[tuple[str, Any], ...] = (
    ("role", (0,)),  # SillyTavern's system role, its default (and no role at all off depth)
    ("linked", (False,)),
    ("addMemo", _any_value),  # whether the editor shows the title
    ("displayIndex", _any_value),  # editor order: never user data
    ("display_index", _any_value),
    ("excludeRecursion", (False,)),
    ("exclude_recursion", (False,)),
)

ENTRY_EXTENSIONS: tuple[tuple[str, Any], ...] = tuple(
    (f"{prefix}entries[*].extensions.{key}", rule)
    for prefix in ("", "lorebook.") for key, rule in _ENTRY_EXTENSIONS)
"""Copies of SillyTavern's entry settings left in an entry's ``extensions`` when they do not
agree with the entry's own fields (a card book converted by another tool, then saved as World
Info): at SillyTavern's defaults, or only steering its editor, they ask nothing of an app."""

ST_NEUTRAL: tuple[tuple[str, Any], ...] = (
    ("extensions.talkativeness", ("0.5", 0.5)),
    ("extensions.fav", (False,)),
    ("extensions.world", ("",)),
    ("extensions.depth_prompt", _without_prompt),
    ("extensions.depth_prompt.prompt", ("",)),
    ("extensions.depth_prompt.depth", (4,)),
    ("extensions.depth_prompt.role", ("system",)),
    # SillyTavern's exports put World Info's uid on a card book's entries: the entry's id
    # under SillyTavern's name, which the canonical id already is (ids are never data)
    ("lorebook.entries[*].app_data.sillytavern.uid", _any_value),
    # the same settings at the root of a V1 card, and TavernAI's and SillyTavern's
    # placeholder for "no avatar file" (the app names the file itself on import)
    ("app_data.sillytavern.talkativeness", ("0.5", 0.5)),
    ("app_data.sillytavern.fav", (False,)),
    ("app_data.sillytavern.avatar", ("none",)),
    # the block Agnai's export puts into a card: a plain text persona is the description again
    ("extensions.agnai.persona", is_plain_text),
    *ENTRY_EXTENSIONS,
)
"""SillyTavern's own card settings at the values it gives every new card (group-chat
talkativeness 0.5, not a favourite, no linked World Info, no depth prompt: a depth prompt with
nothing to insert does nothing at any depth, no avatar file): dropping them loses nothing."""

_WI = "app_data.sillytavern-lorebook"

WORLD_INFO: tuple[tuple[str, Any], ...] = tuple(
    (f"{prefix}{pattern}", rule)
    for prefix in ("", "lorebook.")
    for pattern, rule in (
        (f"entries[*].{_WI}.addMemo", _any_value),  # whether the editor shows the title
        (f"{_WI}.is_creation", (False,)),  # Chub: the book is not one of the user's creations
    )) + ENTRY_EXTENSIONS
"""World Info's keys that only steer SillyTavern's editor or Chub's library, on a standalone
book and on one embedded in a character."""

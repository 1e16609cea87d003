"""What each target app imports, as bunzai formats, and what it has no place for.

One row per ``--to`` of ``bunzai library convert``: the format each kind of item is written
in (None: the app imports no such file), and why, in a user's words, when it has none.  The
formats are the plugins'; nothing here knows a file layout.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import UsageError


@dataclass(frozen=True, slots=True)
class Target:
    """Where a library's items go in one app."""

    id: str
    label: str
    card: str
    chat: str | None
    """Chats as files beside the card; None: chats go inside the card (``chats_inside``) or
    nowhere."""
    book: str | None
    """Standalone books (worlds no card links, a card's extra books)."""
    persona: str | None
    regex: str | None
    chats_inside: bool = False
    """Chats travel inside the character's file (a Backyard archive's scenarios)."""
    books_inside: bool = False
    """Extra books are merged into the card's own book (the app links one book per card)."""
    groups: bool = False
    """A group becomes one file casting its members."""
    why_no_chat: str = ""
    why_no_book: str = ""
    why_no_persona: str = ""
    why_no_regex: str = ""
    why_no_group: str = ""


TARGETS: dict[str, Target] = {
    "risu": Target(
        "risu", "RisuAI", "risu-charx", "risu-chat", "risu-lorebook", "risu-persona",
        "risu-regex",
        why_no_group="RisuAI imports no group file: each group chat is written as a RisuAI chat "
                     "to import into one of its characters"),
    "agnai": Target(
        "agnai", "Agnai", "agnai", "agnai-chat", "agnai-memory", None, None,
        why_no_persona="Agnai imports no persona file (its user profile is set in the app)",
        why_no_regex="Agnai has no regex scripts",
        why_no_group="Agnai imports no group file: each group chat is written as an Agnai chat "
                     "to import into one of its characters"),
    "backyard": Target(
        "backyard", "Backyard", "backyard-byaf", None, None, None, None, chats_inside=True,
        books_inside=True,
        why_no_chat="Backyard imports chats only inside a character's archive",
        why_no_book="Backyard keeps lore only inside a character: a book no card links has no "
                    "place",
        why_no_persona="Backyard imports no persona file",
        why_no_regex="Backyard has no regex scripts",
        why_no_group="Backyard imports no group: its chats live in one character's archive"),
    "voxta": Target(
        "voxta", "Voxta", "voxta", None, "voxta-lorebook", None, None, books_inside=True,
        groups=True,
        why_no_chat="Voxta imports no chat history",
        why_no_persona="Voxta imports no persona file (the user profile is set in the app)",
        why_no_regex="Voxta has no regex scripts"),
    "sillytavern": Target(
        "sillytavern", "SillyTavern", "sillytavern", "sillytavern-chat", "sillytavern-lorebook",
        "sillytavern-persona", "sillytavern-regex"),
}
"""Every target of ``library convert``."""

ALIASES = {"risuai": "risu", "byaf": "backyard", "agnaistic": "agnai", "voxpkg": "voxta",
           "st": "sillytavern", "tavern": "sillytavern"}

NOT_CARRIED = {
    "quick_replies": "quick replies are SillyTavern's own: {app} has no quick-reply sets",
    "presets": "presets and templates are not carried yet (a later version carries them)",
    "themes": "themes are SillyTavern's UI: {app} has no place for them",
    "secret": "never copied: it holds keys or passwords",
}


def target(name: str) -> Target:
    """The target named ``name`` (or an alias), or a usage error listing them."""
    key = ALIASES.get(name.lower(), name.lower())
    if key not in TARGETS:
        raise UsageError(f"unknown library target {name!r}; choose one of "
                         f"{', '.join(TARGETS)}")
    return TARGETS[key]

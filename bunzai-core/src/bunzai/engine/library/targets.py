"""What each target app imports, as bunzai formats, and what it has no place for.

One row per ``--to`` of ``bunzai library convert``: the format each kind of item is written
in (None: the app imports no such file), and why, in a user's words, when it has none.  The
formats are the plugins'; nothing here knows a file layout.
"""

from __future__ import annotations

from dataclasses import dataclass

from ...errors import UsageError
from .presets import PRESET_TYPES


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
    presets: tuple[tuple[str, str], ...] = ()
    """Preset types the app imports (:data:`.presets.PRESET_TYPES` keys), each with the format
    written for it."""
    why_no_presets: tuple[tuple[str, str], ...] = ()
    """Why the app has no place for a group of preset types (``text-completion``,
    ``chat-completion``, ``template``; ``*``: any)."""
    preset_note: str = ""
    """Where a carried preset is imported in the app."""

    def preset_format(self, key: str) -> str | None:
        """The format a preset type is written in, or None when the app imports none."""
        return dict(self.presets).get(key)

    def why_no_preset(self, group: str) -> str:
        reasons = dict(self.why_no_presets)
        return reasons.get(group) or reasons.get("*", "")


TARGETS: dict[str, Target] = {
    "risu": Target(
        "risu", "RisuAI", "risu-charx", "risu-chat", "risu-lorebook", "risu-persona",
        "risu-regex",
        why_no_group="RisuAI imports no group file: each group chat is written as a RisuAI chat "
                     "to import into one of its characters",
        presets=(("openai", "sillytavern-openai"),),
        why_no_presets=(
            ("text-completion", "RisuAI's preset import takes SillyTavern's chat-completion "
                                "presets (and its own and NovelAI's): a text-completion preset "
                                "would be read as one of RisuAI's own, its values misread; set "
                                "its samplers in RisuAI"),
            ("template", "RisuAI imports no instruct, context, system-prompt or reasoning "
                         "template file: its prompt template, chat template and reasoning "
                         "settings are set in the app")),
        preset_note="a SillyTavern chat-completion preset as RisuAI's preset import takes "
                    "it: import it from RisuAI's preset list"),
    "agnai": Target(
        "agnai", "Agnai", "agnai", "agnai-chat", "agnai-memory", None, None,
        why_no_persona="Agnai imports no persona file (its user profile is set in the app)",
        why_no_regex="Agnai has no regex scripts",
        why_no_group="Agnai imports no group file: each group chat is written as an Agnai chat "
                     "to import into one of its characters",
        why_no_presets=(("*", "Agnai imports presets only in its own preset shape, which "
                              "bunzai has no format for; its prompt template is part of such a "
                              "preset"),)),
    "backyard": Target(
        "backyard", "Backyard", "backyard-byaf", None, None, None, None, chats_inside=True,
        books_inside=True,
        why_no_chat="Backyard imports chats only inside a character's archive",
        why_no_book="Backyard keeps lore only inside a character: a book no card links has no "
                    "place",
        why_no_persona="Backyard imports no persona file",
        why_no_regex="Backyard has no regex scripts",
        why_no_group="Backyard imports no group: its chats live in one character's archive",
        why_no_presets=(("*", "Backyard imports no preset or template file: samplers and the "
                              "prompt template are settings of each chat (a scenario inside a "
                              "character's archive)"),)),
    "voxta": Target(
        "voxta", "Voxta", "voxta", None, "voxta-lorebook", None, None, books_inside=True,
        groups=True,
        why_no_chat="Voxta imports no chat history",
        why_no_persona="Voxta imports no persona file (the user profile is set in the app)",
        why_no_regex="Voxta has no regex scripts",
        why_no_presets=(("*", "Voxta imports no preset or template file: generation settings "
                              "and prompts belong to the services set up in the app"),)),
    "sillytavern": Target(
        "sillytavern", "SillyTavern", "sillytavern", "sillytavern-chat", "sillytavern-lorebook",
        "sillytavern-persona", "sillytavern-regex",
        presets=tuple((t.key, t.format) for t in PRESET_TYPES),
        preset_note="SillyTavern lists each folder's files as presets of that type on start"),
}
"""Every target of ``library convert``."""

ALIASES = {"risuai": "risu", "byaf": "backyard", "agnaistic": "agnai", "voxpkg": "voxta",
           "st": "sillytavern", "tavern": "sillytavern"}

NOT_CARRIED = {
    "quick_replies": "quick replies are SillyTavern's own: {app} has no quick-reply sets",
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

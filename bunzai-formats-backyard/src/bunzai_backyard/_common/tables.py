"""Backyard's JSON objects as field tables (:mod:`bunzai.sdk.fields`).

Three shapes carry a character's shared facts under different keys: a BYAF ``character.json``,
the legacy Faraday/Backyard ``character`` object and Backyard's hub/app API objects.  One table
per shape maps them; converters translate Backyard's macros, its comma-joined lore keys and its
timestamps.  A table keeps a value's original spelling (``storm,gale``, ``{Character}``, a
``+02:00`` offset) as layout and restores it while the canonical value still reads the same, so
an untouched file is written back as it was and an edit wins.

``Table.reads_as`` says what the canonical values of an object the writer built are: the same
converters, applied to what was written, so a writer knows which values it changed.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from typing import Any

from bunzai.sdk.chats import iso_seconds
from bunzai.sdk.fields import BOOL, STR, Bad, Conv, Table, field

from .macros import custom_dialogue, dialogue_text, to_backyard, to_card
from .util import format_time


@dataclass(frozen=True)
class Keys:
    """Where one shape keeps the shared character fields."""

    name: str
    display: str
    persona: str
    lore: str
    nsfw: str = "isNSFW"
    created: str = "createdAt"
    updated: str = "updatedAt"


BYAF_KEYS = Keys("name", "displayName", "persona", "loreItems")
LEGACY_KEYS = Keys("aiName", "aiDisplayName", "aiPersona", "loreItems")
API_KEYS = Keys("name", "displayName", "persona", "LoreItems")


def _plain(x: Any) -> bool:
    return type(x) is str and "{" not in x and "<" not in x


def _text(x: Any) -> str:
    """A text value; ``null`` is an empty text (Backyard writes ``firstMessage: null``)."""
    return "" if x is None else str(STR.canon(x))


def _seconds(x: Any) -> int:
    seconds = iso_seconds(x)
    if seconds is None:
        raise Bad("expected an ISO-8601 timestamp")
    return seconds


def split_key(key: str) -> list[str]:
    """A lore item's ``key`` as keys: split on commas, trimmed, empty parts dropped."""
    return [k.strip() for k in key.split(",") if k.strip()]


def join_keys(keys: list[str]) -> str:
    return ", ".join(k.strip() for k in keys if k.strip())


TEXT = Conv("text", lambda x: to_card(_text(x)), to_backyard, _plain)
"""Backyard text: ``{character}``/``{user}`` become ``{{char}}``/``{{user}}``."""
DIALOGUE = Conv("dialogue", lambda x: to_card(_text(x), True),
                lambda v: to_backyard(v, True), _plain)
"""A greeting: macros and ``#{character}:`` speaker labels."""
EXAMPLES = Conv("example dialogue", lambda x: dialogue_text(_text(x)), custom_dialogue)
"""Legacy ``customDialogue``: one text, read as one ``<START>`` block."""
KEYS = Conv("key list", lambda x: split_key(STR.canon(x)), join_keys)
TIME = Conv("timestamp", _seconds, format_time)


@cache
def character_table(keys: Keys) -> Table:
    """The shared fields of one shape.  ``short`` and ``display`` are Backyard's two names and
    ``nsfw`` its flag; the caller turns them into the canonical name, display-name extension
    and tags (see :mod:`.character`)."""
    return Table((
        field("short", keys.name, absent=""),
        field("display", keys.display, absent=""),
        field("nsfw", keys.nsfw, conv=BOOL, absent=False),
        field("description", keys.persona, conv=TEXT, absent=""),
        field("creation_date", keys.created, conv=TIME),
        field("modification_date", keys.updated, conv=TIME),
    ))


LEGACY_CARD = Table((
    *character_table(LEGACY_KEYS).fields,
    field("scenario", "scenario", conv=TEXT, absent=""),
    field("system_prompt", "basePrompt", conv=TEXT, absent=""),
    field("mes_example", "customDialogue", conv=EXAMPLES, absent=""),
    field("first_mes", "firstMessage", conv=DIALOGUE, absent="", quiet=True),
))
"""A legacy card's character object: the shared fields plus its one chat's text."""

LORE_ITEM = Table((
    field("keys", "key", conv=KEYS, absent=[]),
    field("content", "value", conv=TEXT, absent=""),
))

SCENARIO = Table((
    field("scenario", "narrative", conv=TEXT, absent=""),
    field("system_prompt", "formattingInstructions", conv=TEXT, absent=""),
))
"""The text fields of a BYAF scenario that a card holds (the first scenario's)."""



"""``voxta``: the characters of a Voxta package (``.voxpkg``), read and written.

Import-light: detection looks only at the shared zip listing and the parsed ``character.json``
or ``scenario.json``; the reader and writer are imported when used.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING

from bunzai.sdk import Detection, FormatAdapter

from .._common.character import DATES, DEFAULTS, IDS, ORIGINAL, VOXTA, setting_path
from .._common.neutral import BOOK_NEUTRAL
from .._common.runs import VOXTA_CHARACTER

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput

_CHARACTER = re.compile(r"^Characters/[^/]+/character\.json$")
_SCENARIO = re.compile(r"^Scenarios/[^/]+/scenario\.json$")
def _ALWAYS(value: object, owner: object) -> bool:
    return True


_BOOK = re.compile(r"^(?:Books|MemoryBooks)/[^/]+/book\.json$")


class VoxtaAdapter(FormatAdapter):
    """Voxta package: characters with their memory books, thumbnails and Voxta settings."""

    format_id = "voxta"
    kind = "character"
    runs = VOXTA_CHARACTER
    label = "Voxta package (.voxpkg)"
    suffix = ".voxpkg"
    multi = True
    aliases = ("voxpkg",)
    signature = {"zip": ("Characters/", "Scenarios/"), "jpeg+zip": ("Characters/", "Scenarios/")}
    detection = (
        ("zip with Characters/<id>/character.json whose $type is character", 0.95),
        ("zip holding Voxta scenarios and no character or memory book (read refuses it: the "
         "scenario's characters are not included)", 0.9),
        ("zip with Characters/<id>/character.json naming a character, without Voxta's $type",
         0.7),
        ("zip with Characters/<id>/character.json that is not a character object (read says "
         "what is wrong)", 0.6),
        ("anything else, including BYAF's lower-case characters/ folders", 0.0),
    )
    losses = (
        ("assets", "the avatar becomes the thumbnail; other files go under Assets/ if Voxta "
                   "takes their type (no GIF, SVG, AAC, FLAC, MOV); remote files are dropped"),
        ("text fields", "{{char}}/{{user}} (and <BOT>/<USER>) written as {{ char }}/{{ user }}"),
    )
    carries = (
        "name", "nickname", "description", "personality", "scenario", "first_mes", "mes_example",
        "system_prompt", "post_history_instructions", "creator", "creator_notes",
        "character_version", "tags", "alternate_greetings", "creation_date",
        "modification_date", "extensions.visual_description", "extensions.voxta", "lorebook.name",
        "lorebook.description", "lorebook.entries[*].keys", "lorebook.entries[*].content",
        "lorebook.entries[*].enabled", "lorebook.entries[*].priority", "assets[*].type",
        "assets[*].name", "assets[*].data", "assets[*].uri",
    )
    reasons = (
        ("creator_notes_multilingual", "Voxta has creator notes in one language only"),
        ("group_only_greetings", "Voxta has no group-only greetings"),
        ("source", "Voxta has no source list"),
        ("regex_scripts", "Voxta has no regex scripts"),
        ("triggers", "Voxta has no RisuAI trigger scripts"),
        ("extensions", "Voxta characters hold no other apps' extension data"),
        ("assets", "Voxta files carry no extension data"),
        ("lorebook", "Voxta memory books have no such setting"),
        ("lorebook.entries[*]", "Voxta memory-book items hold only keywords, text, a weight "
                                "and a deleted flag"),
    )
    neutral = (
        *((f"extensions.{VOXTA}.{setting_path(key)}", (value,))
          for key, value in DEFAULTS.items() if value != []),
        *((f"extensions.{VOXTA}.{name}", _ALWAYS) for name, _ in IDS),
        *((f"extensions.{VOXTA}.{ORIGINAL}.{key}", _ALWAYS) for key in DATES),
        *((f"lorebook.app_data.voxta.{key}", (value,)) for key, value in BOOK_NEUTRAL.items()),
    )
    """Voxta's settings for a new character and book (empty lists are neutral anyway); the ids
    and the dates' text Character Foundry keeps beside them are not user data."""
    reader = "read:read_package"
    writer = "write:write_package"
    labeler = "._common.labels:rules"  # beside both adapters: they label the same packages

    def detect(self, input: AdapterInput) -> Detection:
        z = input.zip
        if z is None:
            return Detection(0.0)
        names = z.names()
        chars = [n for n in names if _CHARACTER.match(n)]
        if chars:
            books = sum(1 for n in names if _BOOK.match(n))
            value = input.zip_json(chars[0])
            if isinstance(value, Mapping) and value.get("$type") == "character":
                return Detection(0.95, f"Voxta package ({len(chars)} character(s), {books} "
                                       "memory book(s))")
            if isinstance(value, Mapping) and isinstance(value.get("Name"), str):
                return Detection(0.7, "Characters/<id>/character.json names a character but "
                                      "has no Voxta $type")
            return Detection(0.6, f"{chars[0]} is not a character object")
        if any(_BOOK.match(n) for n in names):
            return Detection(0.0)
        scenarios = [n for n in names if _SCENARIO.match(n)]
        if scenarios:
            value = input.zip_json(scenarios[0])
            if isinstance(value, Mapping) and value.get("$type") == "scenario":
                return Detection(0.9, "a scenario-only Voxta package (its characters are not "
                                      "included)")
        return Detection(0.0)

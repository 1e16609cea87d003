"""``voxta``: the characters of a Voxta package (``.voxpkg``), read and written.

Import-light: detection looks only at the shared zip listing and the parsed ``character.json``
or ``scenario.json``; the reader and writer are imported when used.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from bunzai.adapter import FormatAdapter
from bunzai.types import Detection, LabelRule, ReadResult, WriteResult

if TYPE_CHECKING:
    from bunzai.input import AdapterInput
    from bunzai.model import Entity

_CHARACTER = re.compile(r"^Characters/[^/]+/character\.json$")
_SCENARIO = re.compile(r"^Scenarios/[^/]+/scenario\.json$")
_BOOK = re.compile(r"^(?:Books|MemoryBooks)/[^/]+/book\.json$")


class VoxtaAdapter(FormatAdapter):
    """Voxta package: characters with their memory books, thumbnails and Voxta settings."""

    format_id = "voxta"
    kind = "character"
    label = "Voxta package (.voxpkg)"
    suffix = ".voxpkg"
    multi = True
    aliases = ("voxpkg",)
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
        ("nickname", "dropped: {{ char }} is Voxta's Name"),
        ("lorebook", "a memory book: keywords, text, weight (priority) and deleted (disabled); "
                     "other entry settings are dropped"),
        ("assets", "the avatar becomes the thumbnail; other files go under Assets/ if Voxta "
                   "takes their type (no GIF, SVG, AAC, FLAC, MOV); remote files are dropped"),
        ("extensions", "dropped, except visual_description (Voxta's Description)"),
        ("creator_notes_multilingual, group_only_greetings, source, regex_scripts, triggers",
         "dropped"),
        ("text fields", "{{char}}/{{user}} (and <BOT>/<USER>) written as {{ char }}/{{ user }}"),
    )
    doc = "bunzai-formats-voxta/src/bunzai_voxta/voxta/README.md"

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

    def read(self, input: AdapterInput, options: Mapping[str, Any]) -> ReadResult:
        from .read import read_package
        return read_package(input, options)

    def write_many(self, entities: Sequence[Entity], options: Mapping[str, Any]) -> WriteResult:
        from .write import write_package
        return write_package(entities, options)  # type: ignore[arg-type]

    def label_rules(self) -> list[LabelRule]:
        from .._common.labels import rules
        return rules()

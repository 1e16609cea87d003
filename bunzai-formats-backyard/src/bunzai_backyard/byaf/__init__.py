"""``backyard-byaf``: the Backyard Archive Format v1 (``.byaf``), read and written.

Import-light: detection looks only at the shared zip listing and the parsed ``manifest.json``;
the reader and writer are imported when used.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from bunzai.sdk import Detection, FormatAdapter, Option

from .._common.declared import CARRIES, REASONS

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput, Entity

_CHARACTER = re.compile(r"^characters/[^/]+/character\.json$")
_SCENARIO = re.compile(r"^scenarios/[^/]+\.json$")


def _paths(value: Any) -> list[str] | None:
    if isinstance(value, str) or not isinstance(value, Sequence):
        return None
    if not all(isinstance(p, str) for p in value):
        return None
    return list(value)


class BackyardArchiveAdapter(FormatAdapter):
    """Backyard Archive Format v1: a zip of manifest, character, scenarios and images."""

    format_id = "backyard-byaf"
    kind = "character"
    label = "Backyard Archive (BYAF v1)"
    suffix = ".byaf"
    multi = True
    aliases = ("byaf",)
    options = (
        Option("separate", bool, default=False,
               help="one archive per character instead of one archive holding all (several "
                    "characters in one archive are Ginger's extension of BYAF)"),
        Option("chats", choices=("keep", "drop"), default="keep",
               help="drop empties every chat log (private data)"),
        Option("personality", choices=("append", "drop"), default="append",
               help="where a card's personality goes, since Backyard has no such field"),
    )
    signature = {"zip": ("manifest.json",), "jpeg+zip": ("manifest.json",)}
    detection = (
        ("zip whose manifest.json has schemaVersion 1 and BYAF character/scenario paths", 0.95),
        ("zip with a manifest.json listing …/character.json paths, not fully BYAF (read then "
         "says what is wrong, e.g. a path leaving the archive)", 0.6),
        ("zip with characters/*/character.json whose manifest.json is unreadable", 0.55),
        ("anything else, including zips with some other manifest.json", 0.0),
    )
    losses = (
        ("personality", "appended to persona (option personality=drop drops it)"),
        ("alternate_greetings", "one scenario each (Backyard's way); scenarios copy the first "
                                "scenario's settings"),
        ("tags", "only the NSFW flag (tag 'nsfw')"),
        ("nickname", "becomes Backyard's short name; the card name becomes displayName"),
        ("lorebook.entries[]", "disabled and folder entries are dropped"),
        ("assets", "character images (PNG/JPEG/WebP/GIF) and one background per scenario"),
        ("creation_date, modification_date", "the conversion time when the card has none"),
        ("creator", "dropped when the source has no Backyard profile URL for the author (an "
                    "author needs one, and none is invented)"),
    )
    carries = (*CARRIES, "scenario", "first_mes", "mes_example", "system_prompt",
               "alternate_greetings", "creator", "assets[*].type", "assets[*].name",
               "assets[*].data", "assets[*].uri")
    reasons = REASONS
    neutral = tuple((f"app_data.backyard-byaf.{where}{key}", (value,))
                    for where in ("scenarios[*].", "")
                    for key, value in (("minP", 0.1), ("minPEnabled", True),
                                       ("temperature", 1.2), ("repeatPenalty", 1.05),
                                       ("repeatLastN", 256), ("topK", 30), ("topP", 0.9),
                                       ("canDeleteExampleMessages", True)))
    """Backyard's settings for a new character's chat (the writer's ``NEW_CHAT``), on a
    character's scenarios and on a chat extracted from one."""
    reader = "read:read_archive"
    writer = "write:write_archive"
    validator = "validate:validate_archive"

    def detect(self, input: AdapterInput) -> Detection:
        z = input.zip
        if z is None or not z.has("manifest.json"):
            return Detection(0.0)
        manifest = input.zip_json("manifest.json")
        if not isinstance(manifest, Mapping):
            if any(_CHARACTER.match(n) for n in z.names()):
                return Detection(0.55, "zip with characters/*/character.json; its "
                                       "manifest.json is not a JSON object")
            return Detection(0.0)
        chars = _paths(manifest.get("characters"))
        scens = _paths(manifest.get("scenarios"))
        if (manifest.get("schemaVersion") == 1 and chars and scens is not None
                and all(_CHARACTER.match(p) for p in chars)
                and all(_SCENARIO.match(p) for p in scens)):
            many = f", {len(chars)} characters" if len(chars) > 1 else ""
            return Detection(0.95, f"BYAF v1 manifest ({len(scens)} scenario(s){many})")
        if chars and any(p.endswith("character.json") for p in chars) and (
                manifest.get("schemaVersion") == 1
                or any(p.startswith("characters/") for p in chars)):
            return Detection(0.6, "manifest.json lists BYAF character paths, but is not a "
                                  "valid BYAF v1 manifest")
        return Detection(0.0)

    def chats(self, entity: Entity) -> list[Entity] | None:
        if entity.kind != "character":
            return None
        from .chats import scenario_chats
        return scenario_chats(entity, self.format_id)  # type: ignore[arg-type,return-value]

    def embed_chat(self, entity: Entity, chat: Entity) -> Entity:
        if entity.kind != "character" or chat.kind != "chat":
            raise NotImplementedError("a Backyard archive takes a chat into a character")
        from .chats import embed
        return embed(entity, chat, self.format_id)  # type: ignore[arg-type]

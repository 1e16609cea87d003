"""``agnai``: Agnaistic native character exports (Download -> JSON -> Agnaistic)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from bunzai.adapter import FormatAdapter
from bunzai.types import Detection, Issue, LabelRule, WriteResult

from .._options import indent_option

if TYPE_CHECKING:
    from bunzai.input import AdapterInput
    from bunzai.model import Entity

_FIVE = ("name", "persona", "greeting", "scenario", "sampleChat")
"""Agnai's own test for a native character without ``kind``."""


def score(data: Any) -> tuple[float, str]:
    if not isinstance(data, Mapping) or "schema_version" in data or "spec" in data:
        return 0.0, ""
    if data.get("kind") == "character":
        if any(k in data for k in ("persona", "greeting", "sampleChat")):
            return 0.95, "Agnai character (kind: character)"
        return 0.0, ""
    if "kind" not in data and all(k in data for k in _FIVE):
        return 0.9, "Agnai character fields (name, persona, greeting, scenario, sampleChat)"
    return 0.0, ""


class AgnaiAdapter(FormatAdapter):
    """Agnaistic native characters: structured persona, greeting, memory book."""

    format_id = "agnai"
    kind = "character"
    label = "Agnai character"
    suffix = ".json"
    aliases = ("agnaistic",)
    options = (indent_option(2, "JSON indent; 0 is compact"),)
    detection = (
        ("kind 'character' with persona/greeting/sampleChat", 0.95),
        ("no kind, all of name, persona, greeting, scenario, sampleChat", 0.9),
        ("cards (spec), canonical JSON, anything else", 0.0),
    )
    losses = (
        ("personality", "approximated: joined into a text persona with the description (Agnai "
                        "has no personality field)"),
        ("extensions.agnai.persona", "approximated: replaced by a text persona when it no "
                                     "longer renders to the description (as Agnai does)"),
        ("nickname, creator_notes_multilingual, group_only_greetings, source",
         "dropped: Agnai has no such fields"),
        ("assets", "dropped except the main icon (Agnai's avatar)"),
        ("regex_scripts, triggers", "dropped: Agnai has no scripts"),
        ("lorebook.entries[]", "as agnai-memory (see its page)"),
    )
    doc = "bunzai-formats-tavern/src/bunzai_tavern/agnai/README.md"

    def detect(self, input: AdapterInput) -> Detection:
        s, why = score(input.json)
        return Detection(s, why)

    def read(self, input: AdapterInput, options: Mapping[str, Any]) -> Any:
        from .read import read_character
        return read_character(input, format_id=self.format_id)

    def write(self, entity: Entity, options: Mapping[str, Any]) -> WriteResult:
        from .write import write_character
        return write_character(entity, options, format_id=self.format_id)

    def validate(self, input: AdapterInput, entities: Sequence[Entity]) -> list[Issue]:
        from .validate import validate_character
        return validate_character(input.json)

    def label_rules(self) -> list[LabelRule]:
        from .._agnai.labels import rules
        return rules()

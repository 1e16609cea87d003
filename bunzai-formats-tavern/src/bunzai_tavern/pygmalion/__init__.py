"""``pygmalion``: the Pygmalion / TextGen-WebUI character JSON and pygmalion.chat exports.

The five-key shape (``char_name``, ``char_persona``, ``char_greeting``, ``world_scenario``,
``example_dialogue``) predates the Tavern cards; pygmalion.chat's export wraps a V2 card as
``{"character": card}`` (older: ``{"card": card}``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from bunzai.adapter import FormatAdapter
from bunzai.types import Detection, Issue, Option

from .._cards import find_card
from .._options import indent_option

if TYPE_CHECKING:
    from bunzai.input import AdapterInput
    from bunzai.model import Entity
    from bunzai.types import ReadResult, WriteResult

FORMAT_ID = "pygmalion"
_PYG_SIGNALS = ("char_persona", "char_greeting")


class PygmalionAdapter(FormatAdapter):
    """Pygmalion / TextGen five-key JSON and pygmalion.chat card wrappers."""

    format_id = FORMAT_ID
    kind = "character"
    label = "Pygmalion / TextGen character JSON (and pygmalion.chat exports)"
    suffix = ".json"
    aliases = ("textgen", "pygmalion-chat")
    options = (
        Option("shape", choices=("textgen", "chat"), default="as read, else textgen",
               help="textgen (the five keys) or chat (pygmalion.chat: {character: V2 card})"),
        indent_option(4, "JSON indent; 0 is compact"),
    )
    detection = (
        ("JSON with char_name and char_persona or char_greeting", 0.9),
        ("JSON {character: card} or {card: card} wrapping a V2/V3 card (pygmalion.chat)", 0.9),
        ("anything else", 0.0),
    )
    losses = (
        ("everything but name, description, first_mes, scenario, mes_example",
         "dropped by the five-key shape (personality included); the chat shape keeps a "
         "full V2 card"),
        ("nickname, creator_notes_multilingual, source, dates, assets",
         "dropped by the chat shape (a V2 card)"),
    )
    doc = "bunzai-formats-tavern/src/bunzai_tavern/pygmalion/README.md"

    def detect(self, input: AdapterInput) -> Detection:
        obj = input.json
        if isinstance(obj, Mapping) and isinstance(obj.get("char_name"), str) and any(
                k in obj for k in _PYG_SIGNALS):
            return Detection(0.9, "char_name with char_persona/char_greeting")
        if obj is not None and find_card(input).wrapper is not None:
            return Detection(0.9, f"pygmalion.chat export: {find_card(input).wrapper} wraps "
                             "a card")
        return Detection(0.0)

    def read(self, input: AdapterInput, options: Mapping[str, Any]) -> ReadResult:
        from .io import read_pygmalion
        return read_pygmalion(input)

    def write(self, entity: Entity, options: Mapping[str, Any]) -> WriteResult:
        from .io import write_pygmalion
        return write_pygmalion(entity, options)  # type: ignore[arg-type]

    def validate(self, input: AdapterInput, entities: Sequence[Entity]) -> list[Issue]:
        from .io import validate_pygmalion
        return validate_pygmalion(input)

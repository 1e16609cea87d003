"""``pygmalion``: the Pygmalion / TextGen-WebUI character JSON and pygmalion.chat exports.

The five-key shape (``char_name``, ``char_persona``, ``char_greeting``, ``world_scenario``,
``example_dialogue``) predates the Tavern cards; pygmalion.chat's export wraps a V2 card as
``{"character": card}`` (older: ``{"card": card}``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from bunzai.sdk import Detection, FormatAdapter, Option
from bunzai.sdk.cards import looks_like_v1

from .._common.cards import CARD_REASONS, find_card
from .._common.options import indent_option

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput

FORMAT_ID = "pygmalion"
_PYG_SIGNALS = ("char_persona", "char_greeting")


class PygmalionAdapter(FormatAdapter):
    """Pygmalion / TextGen five-key JSON and pygmalion.chat card wrappers."""

    format_id = FORMAT_ID
    kind = "character"
    label = "Pygmalion / TextGen character JSON (and pygmalion.chat exports)"
    aliases = ("textgen", "pygmalion-chat")
    options = (
        Option("shape", choices=("textgen", "chat"), default="as read, else textgen",
               help="textgen (the five keys) or chat (pygmalion.chat: {character: V2 card})"),
        indent_option(4, "JSON indent; 0 is compact"),
    )
    signature = {"json": ("char_name", "character", "card")}  # its keys, or a wrapped card
    detection = (
        ("JSON with char_name and char_persona or char_greeting", 0.9),
        ("the same, beside a flat card's own keys (aichar, character-factory): SillyTavern "
         "reads such a file as the V1 card, and so does bunzai", 0.6),
        ("JSON {character: card} or {card: card} wrapping a V2/V3 card (pygmalion.chat)", 0.9),
        ("anything else", 0.0),
    )
    losses = (
        ("nickname, creator_notes_multilingual, source, dates, assets",
         "dropped by the chat shape (a V2 card)"),
    )
    carries = ("name", "description", "first_mes", "scenario", "mes_example")
    reasons = (*CARD_REASONS,
               ("", "the Pygmalion/TextGen shape holds only a name, a persona, a greeting, a "
                    "scenario and example dialogue (the chat shape, --option shape=chat, keeps "
                    "a whole V2 card)"))
    reader = "io:read_pygmalion"
    writer = "io:write_pygmalion"
    validator = "io:validate_pygmalion"

    def detect(self, input: AdapterInput) -> Detection:
        obj = input.json
        if isinstance(obj, Mapping) and isinstance(obj.get("char_name"), str) and any(
                k in obj for k in _PYG_SIGNALS):
            if looks_like_v1(obj):
                return Detection(0.6, "char_name keys beside a V1 card's (read as the V1 card, "
                                 "as SillyTavern does)")
            return Detection(0.9, "char_name with char_persona/char_greeting")
        if obj is not None and find_card(input).wrapper is not None:
            return Detection(0.9, f"pygmalion.chat export: {find_card(input).wrapper} wraps "
                             "a card")
        return Detection(0.0)

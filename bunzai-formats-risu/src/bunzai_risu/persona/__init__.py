"""``risu-persona``: RisuAI persona cards, a PNG avatar with a ``persona`` text chunk."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from bunzai.adapter import FormatAdapter
from bunzai.types import Detection, ReadResult, WriteResult

if TYPE_CHECKING:
    from bunzai.input import AdapterInput
    from bunzai.model import Entity

FORMAT_ID = "risu-persona"


class RisuPersonaAdapter(FormatAdapter):
    """RisuAI persona PNG: ``tEXt persona`` = base64 JSON ``{name, personaPrompt, note}``."""

    format_id = FORMAT_ID
    kind = "persona"
    label = "RisuAI persona PNG"
    suffix = ".png"
    detection = (
        ("PNG with a persona chunk holding {name, personaPrompt}", 0.97),
        ("PNG with a persona chunk that does not decode (reading reports why)", 0.6),
        ("the same, but the PNG also carries a character card chunk", 0.5),
        ("anything else", 0.0),
    )
    losses = (
        ("title / avatar_id / is_default / position / depth / role / lorebook / connections",
         "dropped: a RisuAI persona holds a name, a prompt, a note and its picture"),
        ("avatar", "approximated: converted to PNG (Pillow) or replaced by a 1x1 PNG"),
    )
    doc = "bunzai-formats-risu/src/bunzai_risu/persona/README.md"

    def detect(self, input: AdapterInput) -> Detection:
        if input.png is None:
            return Detection(0.0)
        found = input.png_json("persona")
        if not found:
            return Detection(0.0)
        has_card = bool(input.png.find_text("chara", "ccv3"))
        for payload in found:
            v = payload.value
            if isinstance(v, Mapping) and isinstance(v.get("name"), str) and isinstance(
                    v.get("personaPrompt"), str):
                return Detection(0.5 if has_card else 0.97, "RisuAI persona chunk")
        return Detection(0.5 if has_card else 0.6, "persona chunk that does not decode")

    def read(self, input: AdapterInput, options: Mapping[str, Any]) -> ReadResult:
        from .io import read
        return read(input)

    def write(self, entity: Entity, options: Mapping[str, Any]) -> WriteResult:
        from .io import write
        return write(entity)

"""``risu-persona``: RisuAI persona cards, a PNG avatar with a ``persona`` text chunk."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from bunzai.sdk import Detection, FormatAdapter

from .._common.runs import RISU_PERSONA

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput

FORMAT_ID = "risu-persona"


class RisuPersonaAdapter(FormatAdapter):
    """RisuAI persona PNG: ``tEXt persona`` = base64 JSON ``{name, personaPrompt, note}``."""

    format_id = FORMAT_ID
    kind = "persona"
    runs = RISU_PERSONA
    label = "RisuAI persona PNG"
    suffix = ".png"
    detection = (
        ("PNG with a persona chunk holding {name, personaPrompt}", 0.97),
        ("PNG with a persona chunk that does not decode (reading reports why)", 0.6),
        ("the same, but the PNG also carries a character card chunk", 0.5),
        ("anything else", 0.0),
    )
    signature = {"png": ("persona",)}
    carries = ("name", "description", "note", "avatar.data", "avatar.type", "avatar.name",
               "avatar.uri", "avatar.ext", "avatar.media_type", "avatar.origin",
               "avatar.orphan")
    reasons = (
        ("title", "a RisuAI persona holds a name, a prompt, a note and its picture"),
        ("avatar_id", "a RisuAI persona's picture is the file itself"),
        ("is_default", "RisuAI chooses the persona in use in its settings, not in the file"),
        ("position", "RisuAI always puts the persona prompt in the same place"),
        ("depth", "RisuAI always puts the persona prompt in the same place"),
        ("role", "RisuAI always puts the persona prompt in the same place"),
        ("lorebook", "a RisuAI persona has no lorebook of its own"),
        ("connections", "RisuAI does not tie a persona to characters"),
        ("extensions", "a RisuAI persona holds a name, a prompt, a note and its picture"),
        ("avatar.extensions", "a RisuAI persona's picture is a plain PNG"),
        ("avatar.app_data", "a RisuAI persona's picture is a plain PNG"),
    )
    losses = (
        ("avatar", "approximated: converted to PNG (Pillow); dropped, a 1x1 PNG standing in, "
                   "when it does not decode"),
    )
    reader = "io:read"
    writer = "io:write"

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

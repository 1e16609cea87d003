"""``risu``: RisuAI character cards in JSON and PNG (incl. RisuAI's V3 PNG and legacy PNGs).

Claims only cards RisuAI marked as its own (``data.extensions.risuai``, the legacy ``risuai``
chunk, encrypted ``rcc||`` payloads) and scores them above the generic ``sillytavern`` reader
(0.9), so a plain CCv3 card still goes to ``sillytavern``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from bunzai.sdk import Detection, FormatAdapter, Option, unfrozen
from bunzai.sdk.cards import has_encrypted_card

from .._common.declared import ACTS_ON, CARD_CARRIED
from .._common.runs import RISU_CARD

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput

FORMAT_ID = "risu"
SCORE = 0.95


def is_risu_card(value: Any) -> bool:
    """A V2/V3 card object whose ``data.extensions.risuai`` is an object."""
    value = unfrozen(value)  # only looked at: the parse itself, not read-only views of it
    if not _is_object(value) or value.get("spec") not in ("chara_card_v2", "chara_card_v3"):
        return False
    data = value.get("data")
    ext = data.get("extensions") if _is_object(data) else None
    return _is_object(ext) and _is_object(ext.get("risuai"))


def _is_object(value: Any) -> bool:
    """A JSON object (a parsed one is a dict; any other mapping is one too)."""
    return type(value) is dict or isinstance(value, Mapping)


class RisuCardAdapter(FormatAdapter):
    """RisuAI character card: JSON, or PNG with ``ccv3`` and ``chara-ext-asset_:N`` chunks."""

    format_id = FORMAT_ID
    kind = "character"
    runs = RISU_CARD
    label = "RisuAI character card (PNG/JSON)"
    suffix = ".png"
    options = (
        Option("container", choices=("png", "json"), default="as read, else png",
               help="png, or json for RisuAI's JSON export (every asset inlined as a data: "
                    "URI)"),
    )
    detection = (
        ("V2/V3 card JSON or PNG card chunk with data.extensions.risuai", SCORE),
        ("PNG with a legacy risuai MessagePack chunk (RisuAI 0.6)", SCORE),
        ("PNG whose chara/ccv3 chunk is encrypted (rcc||); reading refuses it", SCORE),
        ("any other card (sillytavern reads it)", 0.0),
    )
    signature = {"json": ("spec",), "png": ("ccv3", "chara", "risuai")}
    acts_on = ACTS_ON
    carries = CARD_CARRIED
    losses = (
        ("regex_scripts[*].trim_strings / min_depth / max_depth / run_on_edit",
         "dropped: RisuAI custom scripts have no such settings"),
        ("lorebook.entries[*] settings RisuAI has no decorator for (sticky, cooldown, groups, "
         "…)", "kept in entry extensions under SillyTavern's names; RisuAI ignores them"),
        ("lorebook.entries[*] depth, role, probability …",
         "written as @@decorator lines, which apps other than RisuAI show as text"),
        ("assets without bytes", "dropped when embedded; remote URIs kept"),
        ("assets (icon)", "the main icon becomes the PNG image itself (ccdefault:)"),
    )
    reader = "read:read"
    writer = "write:write"
    validator = "read:validate"
    labeler = "._common.labels:card_rules"

    def detect(self, input: AdapterInput) -> Detection:
        container = input.container
        if container == "json":
            if is_risu_card(input.json):
                return Detection(SCORE, "card JSON with data.extensions.risuai")
            return Detection(0.0)
        if input.png is None:
            return Detection(0.0)
        unreadable = False
        for kw in ("ccv3", "chara"):
            for payload in input.png_json(kw):
                if is_risu_card(payload.value):
                    return Detection(SCORE, f"{kw} chunk with data.extensions.risuai")
                unreadable = unreadable or payload.error is not None
        if "risuai" in input.signs:
            return Detection(SCORE, "legacy RisuAI PNG (risuai chunk)")
        # an encrypted card is a card chunk that does not decode as JSON
        if unreadable and has_encrypted_card(input.png):
            return Detection(SCORE, "encrypted RisuAI card (rcc)")
        return Detection(0.0)

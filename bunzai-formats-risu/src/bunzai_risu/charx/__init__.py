"""``risu-charx``: CharX archives (``.charx``) and RisuAI's JPEG-wrapped CharX.

A CharX is a zip with a CCv3 ``card.json`` at its root and the card's assets beside it; RisuAI
adds ``module.risum`` (the character's regex scripts, trigger scripts and its own lorebook) and
``x_meta/``.  Any CharX is read here, RisuAI's or not: the container decides, not the writer.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING

from bunzai.sdk import Detection, FormatAdapter, Option

from .._common.declared import ACTS_ON, CARD_CARRIED
from .._common.runs import RISU_CARD

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput

FORMAT_ID = "risu-charx"


def _names_card_json(input: AdapterInput) -> bool:
    """A refused or damaged zip that still names ``card.json`` (so read can say why)."""
    return input.memo(f"{FORMAT_ID}:named", lambda: b"card.json" in input.data)


class RisuCharxAdapter(FormatAdapter):
    """CharX: a zip (or a JPEG with a zip appended) holding a CCv3 card.json and its assets."""

    format_id = FORMAT_ID
    kind = "character"
    runs = RISU_CARD
    label = "CharX (RisuAI and CCv3 zip)"
    suffix = ".charx"
    aliases = ("charx",)
    options = (
        Option("jpeg", bool, default="as read, else false",
               help="write a JPEG-wrapped CharX (the avatar, or a generated JPEG, with the zip "
                    "appended)"),
        Option("container", choices=("zip", "jpeg", "charx"), default="as read, else zip",
               help="zip (a plain .charx; charx says the same) or jpeg: the same as "
                    "jpeg=false/true"),
    )
    signature = {"zip": (), "jpeg+zip": ()}  # any archive: a refused one naming card.json too
    detection = (
        ("zip or JPEG+zip with a root card.json whose spec is chara_card_v3", 1.0),
        ("zip with a root card.json holding another card (V2, no spec)", 0.9),
        ("zip with a root card.json that is not a card or not JSON (read reports why)", 0.6),
        ("zip refused as unsafe or corrupt but naming card.json (read reports why)", 0.6),
        ("anything else, plain JPEGs and other zips included", 0.0),
    )
    acts_on = ACTS_ON
    carries = CARD_CARRIED
    losses = (
        ("assets without bytes",
         "dropped when embedded (RisuAI refuses unresolvable embeded:// URIs); remote URIs "
         "are kept as they are"),
        ("regex_scripts[*].trim_strings / min_depth / max_depth / run_on_edit",
         "dropped: RisuAI custom scripts have no such settings"),
        ("lorebook (from a CharX module)", "RisuAI's own entry list, decorators for settings"),
    )
    reader = "read:read"
    writer = "write:write"
    validator = "read:validate"
    labeler = "._common.labels:charx_rules"

    def detect(self, input: AdapterInput) -> Detection:
        if input.container not in ("zip", "jpeg+zip"):
            return Detection(0.0)
        z = input.zip
        if z is None:
            if _names_card_json(input):
                return Detection(0.6, f"zip naming card.json, refused: {input.zip_error}")
            return Detection(0.0)
        if not z.has("card.json"):
            return Detection(0.0)
        card = input.zip_json("card.json")
        if not isinstance(card, Mapping):
            return Detection(0.6, "card.json is not a JSON object")
        from bunzai.sdk.cards import is_card
        if not is_card(card):
            return Detection(0.6, "card.json is not a character card")
        risu = z.has("module.risum") or any(n.startswith("x_meta/") for n in z.names())
        who = "RisuAI CharX" if risu else "CharX"
        if card.get("spec") == "chara_card_v3":
            wrap = " (JPEG-wrapped)" if input.container == "jpeg+zip" else ""
            return Detection(1.0, f"{who}{wrap}: card.json is CCv3")
        return Detection(0.9, f"{who}: card.json is not CCv3")

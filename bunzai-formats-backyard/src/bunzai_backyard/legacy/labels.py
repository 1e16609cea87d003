"""Origin-labeler evidence: Faraday/Backyard cards and Ginger's hybrid PNGs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bunzai.sdk import LabelRule

from . import classify, exif_card, has_tavern_card


def _exif_shape(input: Any) -> tuple[str, str] | None:
    try:
        card = exif_card(input)
    except Exception:  # evidence gathering never breaks labeling
        return None
    if card is None or card.value is None:
        return None
    return classify(card.value)


def _backyard(input: Any, entities: Sequence[Any]) -> list[str]:
    found = _exif_shape(input)
    if found and found[0] in ("card", "card?"):
        return [f"{found[1]} in the EXIF UserComment (how Faraday and Backyard export cards)"]
    try:
        value = input.json if input.container == "json" else None
    except Exception:
        return []
    found = classify(value)
    if found and found[0] in ("card", "card?"):
        return [f"{found[1]} as a JSON file"]
    return []


def _ginger(input: Any, entities: Sequence[Any]) -> list[str]:
    found = _exif_shape(input)
    if not found or found[0] not in ("card", "card?"):
        return []
    try:
        if not has_tavern_card(input):
            return []
        out = ["a Backyard EXIF card and a Tavern card chunk in one PNG (Ginger writes both)"]
        png = input.png
        if png is not None and png.find_text("ginger"):
            out.append("a 'ginger' text chunk (Ginger's own project data)")
        for payload in input.png_json("chara"):
            data = payload.value.get("data") if isinstance(payload.value, Mapping) else None
            ext = data.get("extensions") if isinstance(data, Mapping) else None
            if isinstance(ext, Mapping) and "ginger" in ext:
                out.append("the Tavern card carries extensions.ginger")
                break
    except Exception:
        return []
    return out


def rules() -> list[LabelRule]:
    return [
        LabelRule("Backyard", 0.9, _backyard, "origin", "backyard-exif-card"),
        LabelRule("Ginger", 0.95, _ginger, "last_writer", "ginger-hybrid-png"),
    ]

"""Origin-labeler rules: the evidence that RisuAI made or last saved a file."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bunzai.types import LabelRule

from .pngtext import ASSET_PREFIX

APP = "RisuAI"


def _characters(entities: Sequence[Any]) -> list[Any]:
    return [e for e in entities if getattr(e, "kind", None) == "character"]


def _risuai_block(input: Any, entities: Sequence[Any]) -> list[str]:
    out = []
    for e in _characters(entities):
        block = e.extensions.get("risuai")
        if isinstance(block, Mapping):
            keys = ", ".join(list(block)[:5])
            out.append(f"data.extensions.risuai ({keys}{', …' if len(block) > 5 else ''})")
        if "risuRealmImportId" in e.extensions:
            out.append("data.extensions.risuRealmImportId (imported from RisuAI Realm)")
    return out


def _risu_assets(input: Any, entities: Sequence[Any]) -> list[str]:
    out = []
    for e in _characters(entities):
        n = sum(1 for a in e.assets if a.type == "x-risu-asset")
        if n:
            out.append(f"{n} x-risu-asset asset(s)")
        if any((a.uri or "").startswith("__asset:") for a in e.assets):
            out.append("__asset: URIs (RisuAI PNG asset chunks)")
    return out


def _risu_entries(input: Any, entities: Sequence[Any]) -> list[str]:
    for e in _characters(entities):
        book = e.lorebook
        if book is None:
            continue
        if any(k.startswith("risu_") for k in book.extensions):
            return ["lorebook extensions risu_* (RisuAI's card export)"]
        if any(entry.is_folder for entry in book.entries):
            return ["lorebook folders (RisuAI)"]
    return []


def _png_chunks(input: Any, entities: Sequence[Any]) -> list[str]:
    png = getattr(input, "png", None)
    if png is None:
        return []
    keywords = [t.keyword for t in png.text_chunks()]
    assets = [k for k in keywords if k.lower().startswith(ASSET_PREFIX)]
    out = []
    if assets:
        out.append(f"{len(assets)} {ASSET_PREFIX} PNG chunk(s)")
    lower = {k.lower() for k in keywords}
    if "ccv3" in lower and "chara" not in lower:
        out.append("ccv3 chunk without a chara chunk (RisuAI's V3 PNG export)")
    return out


def _legacy_chunk(input: Any, entities: Sequence[Any]) -> list[str]:
    png = getattr(input, "png", None)
    if png is not None and png.find_text("risuai"):
        return ["risuai PNG chunk (RisuAI 0.6 MessagePack card)"]
    return []


def _charx_files(input: Any, entities: Sequence[Any]) -> list[str]:
    z = getattr(input, "zip", None)
    if z is None:
        return []
    out = []
    if z.has("module.risum"):
        out.append("module.risum in the CharX")
    n = sum(1 for name in z.names() if name.startswith("x_meta/"))
    if n:
        out.append(f"{n} x_meta/ file(s) in the CharX")
    return out


def card_rules() -> list[LabelRule]:
    return [
        LabelRule(APP, 0.9, _risuai_block, "origin", "risuai-extension"),
        LabelRule(APP, 0.8, _risu_assets, "origin", "risu-assets"),
        LabelRule(APP, 0.7, _risu_entries, "origin", "risu-lorebook-extensions"),
        LabelRule(APP, 0.95, _png_chunks, "last_writer", "risu-png-export"),
        LabelRule(APP, 0.95, _legacy_chunk, "origin", "risu-legacy-png"),
    ]


def charx_rules() -> list[LabelRule]:
    return [LabelRule(APP, 0.95, _charx_files, "last_writer", "risu-charx-files")]

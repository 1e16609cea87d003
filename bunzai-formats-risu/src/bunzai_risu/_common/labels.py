"""Origin-labeler rules: the evidence that RisuAI made or last saved a file.

The card formats' shared rules already credit RisuAI for ``extensions.risuai``,
``x-risu-asset`` assets, ``__asset:`` URIs and the legacy ``risuai`` chunk; these add what only
RisuAI's own containers show.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from bunzai.sdk import LabelRule
from bunzai.sdk.cards import ASSET_PREFIX, realm_evidence

APP = "RisuAI"


def _characters(entities: Sequence[Any]) -> list[Any]:
    return [e for e in entities if getattr(e, "kind", None) == "character"]


def _realm(input: Any, entities: Sequence[Any]) -> list[str]:
    return [line for e in _characters(entities) for line in realm_evidence(e.extensions)]


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
    """Evidence the shared card rules (``extensions.risuai``, ``x-risu-asset``, ``__asset:``
    URIs, the legacy chunk) do not already cover."""
    return [
        LabelRule(APP, 0.9, _realm, "origin", "risu-realm"),
        LabelRule(APP, 0.7, _risu_entries, "origin", "risu-lorebook-extensions"),
        LabelRule(APP, 0.95, _png_chunks, "last_writer", "risu-png-export"),
    ]


def charx_rules() -> list[LabelRule]:
    return [LabelRule(APP, 0.95, _charx_files, "last_writer", "risu-charx-files")]

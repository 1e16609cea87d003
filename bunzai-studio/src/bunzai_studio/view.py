"""The entity as the page shows it: every canonical field, with assets made safe to display.

Asset bytes never reach the page raw.  An asset is previewed only when its *sniffed* media type
(core's :func:`~bunzai.io.containers.media.sniff_media`, never the name or declared extension) is a
raster image, and then only as a ``data:`` URL; SVG, HTML and everything else is described by
type and size.  Passthrough data (other formats' baggage) is named, not dumped.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass
from typing import Any

from bunzai.api import sniff_media, thaw

PREVIEW_TYPES = frozenset({"image/png", "image/jpeg", "image/gif", "image/webp", "image/avif",
                           "image/bmp"})
"""Raster images a browser decodes without running anything (SVG is deliberately absent)."""


@dataclass
class PreviewBudget:
    """How many asset bytes one response may inline as previews (large charx sprite packs)."""

    total: int = 48 * 1024 * 1024
    per_image: int = 24 * 1024 * 1024

    def take(self, size: int) -> str | None:
        """None when the preview fits (and is now spent), else why it was left out."""
        if size > self.per_image:
            return f"not previewed: over {self.per_image // (1024 * 1024)} MiB"
        if size > self.total:
            return "not previewed: preview budget of this file spent"
        self.total -= size
        return None


def entity_view(entity: Any, budget: PreviewBudget | None = None) -> dict[str, Any]:
    """A JSON-ready dict of every field (passthrough only named), assets made displayable."""
    return _model(entity, budget or PreviewBudget())


def _model(obj: Any, budget: PreviewBudget) -> dict[str, Any]:
    from bunzai.model import Asset

    if isinstance(obj, Asset):
        return asset_view(obj, budget)
    out: dict[str, Any] = {}
    for name in type(obj).model_fields:
        value = getattr(obj, name)
        if name == "passthrough":
            if value:
                out["passthrough_formats"] = sorted(value)
            continue
        out[name] = _value(value, budget)
    return out


def _value(value: Any, budget: PreviewBudget) -> Any:
    from pydantic import BaseModel

    if isinstance(value, BaseModel):
        return _model(value, budget)
    if isinstance(value, list | tuple) or type(value).__name__ == "LazyMessages":
        return [_value(v, budget) for v in value]  # a chat's messages may be read lazily
    if isinstance(value, bytes | bytearray):
        return {"bytes": len(value)}
    return thaw(value)


def asset_view(asset: Any, budget: PreviewBudget) -> dict[str, Any]:
    """Declared facts, the sniffed type and size, and a ``data:`` URL only for raster images."""
    data: bytes | None = asset.data
    sniffed = sniff_media(data)[0] if data else None
    view: dict[str, Any] = {
        "type": asset.type, "name": asset.name, "uri": asset.uri, "ext": asset.ext,
        "media_type": asset.media_type, "sniffed_type": sniffed,
        "size": len(data) if data is not None else None, "origin": asset.origin,
        "orphan": asset.orphan, "extensions": thaw(asset.extensions), "preview": None,
        "preview_note": None,
    }
    if data is None:
        view["preview_note"] = "not embedded" + (" (remote, never fetched)" if asset.uri else "")
    elif sniffed not in PREVIEW_TYPES:
        view["preview_note"] = (f"not previewed ({sniffed} can carry scripts)"
                                if sniffed == "image/svg+xml" else f"not an image ({sniffed})")
    else:
        note = budget.take(len(data))
        if note is None:
            view["preview"] = f"data:{sniffed};base64," + base64.b64encode(data).decode("ascii")
        view["preview_note"] = note
    return view

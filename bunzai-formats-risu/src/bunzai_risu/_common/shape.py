"""Byte-faithful round trips without freezing the canonical model.

A writer regenerates each RisuAI object from canonical fields.  Where the source said something
the regenerated object would not (an extra key, an absent key, ``ableFlag: false`` next to an
equivalent flag, a different key order), :func:`capture` records the difference together with the
value the writer produced at read time.  :func:`restore` re-applies a recorded difference only
while the writer still produces that same value, so an edit to the canonical entity always wins
and an untouched one comes back exactly as it was read.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bunzai.compare import json_equal

same = json_equal
"""JSON equality that tells ``1``, ``1.0`` and ``True`` apart."""


def capture(raw: Mapping[str, Any], built: Mapping[str, Any]) -> dict[str, Any] | None:
    """How ``raw`` differs from ``built`` (what the writer makes of it), or None if it does not.

    Each differing key is stored as ``{"b": built value, "r": raw value}``; ``"b"`` is missing
    for keys only the source had and ``"r"`` for keys only the writer produces.
    """
    keys: dict[str, dict[str, Any]] = {}
    for k, v in raw.items():
        if k not in built:
            keys[k] = {"r": v}
        elif not same(built[k], v):
            keys[k] = {"b": built[k], "r": v}
    for k, v in built.items():
        if k not in raw:
            keys[k] = {"b": v}
    shape: dict[str, Any] = {}
    if keys:
        shape["keys"] = keys
    order = list(raw)
    if order != [k for k in built if k in raw] + [k for k in raw if k not in built]:
        shape["order"] = order
    return shape or None


def restore(built: dict[str, Any], shape: Mapping[str, Any] | None) -> dict[str, Any]:
    """``built`` with the differences of :func:`capture` re-applied where nothing was edited."""
    if not shape:
        return built
    out = dict(built)
    for k, o in (shape.get("keys") or {}).items():
        if "b" in o:
            if k in out and same(out[k], o["b"]):
                if "r" in o:
                    out[k] = o["r"]
                else:
                    del out[k]
        elif k not in out and "r" in o:
            out[k] = o["r"]
    order = shape.get("order")
    if order:
        ranked = {k: i for i, k in enumerate(order)}
        first = sorted((k for k in out if k in ranked), key=ranked.__getitem__)
        out = {k: out[k] for k in first + [k for k in out if k not in ranked]}
    return out

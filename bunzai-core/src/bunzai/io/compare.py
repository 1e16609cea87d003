"""Exact JSON equality and the raw difference of two values, as loss-report paths.

``json_equal`` tells ``1`` from ``True`` and ``1.0``; ``diff_paths`` lists every difference,
layout included (the user-data comparison that loss reports answer to is
:func:`bunzai.loss.rule.changes`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import orjson

_SCALARS = (str, int, float, bool, bytes, type(None))
_LEAVES = frozenset({str, int, float, bool, type(None)})


def json_equal(a: Any, b: Any) -> bool:
    """Deep JSON equality that, unlike ``==``, tells ``1`` from ``True`` and ``1`` from ``1.0``.

    Objects compare by keys and values (any mapping, key order ignored), arrays by items (list
    or tuple).  Round trips compare whole cards this way, so two equal plain values take a fast
    path: ``==`` rejects most differences at C speed, and equal serializations prove equality.
    """
    ta = type(a)
    if ta in _LEAVES:  # most calls compare two strings or numbers: no container checks
        return ta is type(b) and bool(a == b)
    if ta is type(b) and (ta is dict or ta is list):
        if a != b:  # json_equal implies ==, so this difference is final
            return False
        try:  # the same text: the same keys in the same order, the same types
            if orjson.dumps(a) == orjson.dumps(b):
                return True
        except TypeError:  # integers beyond 64 bits, non-string keys: compare item by item
            pass
    return _json_equal(a, b)


def _json_equal(a: Any, b: Any) -> bool:
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        return a.keys() == b.keys() and all(json_equal(a[k], b[k]) for k in a)
    if isinstance(a, list | tuple) and isinstance(b, list | tuple):
        return len(a) == len(b) and all(json_equal(x, y) for x, y in zip(a, b, strict=True))
    return type(a) is type(b) and bool(a == b)


def diff_paths(a: Any, b: Any, base: str = "") -> list[str]:
    """Canonical-field paths where two entities (or JSON values) differ; ``passthrough`` skipped.

    Paths use the loss-report syntax (``lorebook.entries[2].sticky``), so a difference can be
    checked against a :class:`~bunzai.loss.report.LossReport` with ``covers``.
    """
    from pydantic import BaseModel

    if isinstance(a, BaseModel) and isinstance(b, BaseModel):
        if type(a) is not type(b):
            return [base.rstrip(".") or "$"]
        out: list[str] = []
        for name in type(a).model_fields:
            if name == "passthrough":
                continue
            va, vb = getattr(a, name), getattr(b, name)
            # Most fields are equal scalars: settle them here rather than in a recursive call.
            if type(va) is type(vb) and isinstance(va, _SCALARS):
                if va != vb:
                    out.append(f"{base}{name}")
                continue
            out += diff_paths(va, vb, f"{base}{name}.")
        return out
    if isinstance(a, list) and isinstance(b, list):
        stem = base.rstrip(".")
        out = []
        for i in range(max(len(a), len(b))):
            if i >= len(a) or i >= len(b):
                out.append(f"{stem}[{i}]")
            else:
                out += diff_paths(a[i], b[i], f"{stem}[{i}].")
        return out
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for k in sorted(set(a) | set(b), key=str):
            if k not in a or k not in b:
                out.append(f"{base}{k}")
            else:
                out += diff_paths(a[k], b[k], f"{base}{k}.")
        return out
    if type(a) is not type(b) or a != b:
        return [base.rstrip(".") or "$"]
    return []

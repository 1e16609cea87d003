"""Origin evidence for lorebook files (specs §13): Chub lorebooks, SillyTavern World Info."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bunzai.sdk import LabelRule


def _root(input: Any) -> Mapping[str, Any] | None:
    data = input.json
    return data if isinstance(data, Mapping) else None


def _chub(input: Any, entities: Sequence[Any]) -> list[str]:
    d = _root(input)
    if d is None:
        return []
    ext = d.get("extensions")
    ev = []
    if "is_creation" in d:
        ev.append("book-level is_creation")
    if isinstance(ext, Mapping) and "chub" in ext:
        ev.append("book-level extensions.chub")
    if not ev or not isinstance(d.get("entries"), Mapping | Sequence):
        return []
    return ev


def _st_worldinfo(input: Any, entities: Sequence[Any]) -> list[str]:
    d = _root(input)
    if d is None or not isinstance(d.get("entries"), Mapping):
        return []
    from . import score
    s, _ = score(d)
    if s < 0.9 and not (s >= 0.6 and not d["entries"]):
        return []
    ev = ["World Info shape: entries keyed by uid"]
    if "originalData" in d:
        ev.append("originalData: imported from a card's book by SillyTavern")
    return ev


def rules() -> list[LabelRule]:
    return [
        LabelRule("Chub", 0.9, _chub, "origin", "chub-lorebook"),
        LabelRule("SillyTavern", 0.8, _st_worldinfo, "last_writer", "st-worldinfo"),
    ]

"""Origin evidence for Agnai (specs §13): native exports, and cards Agnai wrote."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bunzai.sdk import LabelRule


def _native(input: Any, entities: Sequence[Any]) -> list[str]:
    d = input.json
    if not isinstance(d, Mapping) or "schema_version" in d:
        return []
    if d.get("kind") == "character" and "persona" in d:
        kind = d["persona"].get("kind") if isinstance(d["persona"], Mapping) else None
        return [f"native Agnai character export (kind: character, persona kind {kind!r})"]
    if d.get("kind") == "memory" and isinstance(d.get("entries"), Sequence):
        return ["Agnai memory book (kind: memory)"]
    if all(k in d for k in ("name", "persona", "greeting", "scenario", "sampleChat")):
        return ["Agnai character fields (persona, greeting, sampleChat)"]
    return []


def _card_block(input: Any, entities: Sequence[Any]) -> list[str]:
    out = []
    for e in entities:
        if getattr(e, "kind", None) != "character":
            continue
        block = e.extensions.get("agnai") if isinstance(e.extensions, dict) else None
        if isinstance(block, Mapping):
            keys = ", ".join(sorted(str(k) for k in block)) or "empty"
            out.append(f"extensions.agnai ({keys})")
    d = input.json
    if not out and isinstance(d, Mapping) and isinstance(d.get("data"), Mapping):
        ext = d["data"].get("extensions")
        if isinstance(ext, Mapping) and isinstance(ext.get("agnai"), Mapping):
            out.append("data.extensions.agnai")
    return out


def rules() -> list[LabelRule]:
    return [
        LabelRule("Agnai", 0.95, _native, "origin", "agnai-native"),
        LabelRule("Agnai", 0.9, _card_block, "origin", "agnai-extension"),
    ]

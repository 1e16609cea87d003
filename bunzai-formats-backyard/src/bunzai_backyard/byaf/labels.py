"""Origin-labeler evidence in BYAF archives: Backyard's own exports and Ginger's."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bunzai.sdk import LabelRule


def _manifest(input: Any) -> Mapping[str, Any] | None:
    try:
        z = input.zip
        if z is None or not z.has("manifest.json"):
            return None
        value = input.zip_json("manifest.json")
    except Exception:  # evidence gathering never breaks labeling
        return None
    if isinstance(value, Mapping) and isinstance(value.get("characters"), Sequence):
        return value
    return None


def _backyard_author(input: Any, entities: Sequence[Any]) -> list[str]:
    m = _manifest(input)
    author = m.get("author") if m else None
    if not isinstance(author, Mapping):
        return []
    url = author.get("backyardURL")
    if isinstance(url, str) and "backyard.ai" in url:
        return [f"BYAF manifest author links a Backyard profile ({url})"]
    return []


def _byaf(input: Any, entities: Sequence[Any]) -> list[str]:
    m = _manifest(input)
    if m is None or m.get("schemaVersion") != 1:
        return []
    return ["Backyard Archive Format v1 manifest (Backyard's export format)"]


def _ginger(input: Any, entities: Sequence[Any]) -> list[str]:
    m = _manifest(input)
    if m is None:
        return []
    chars = [p for p in m.get("characters", []) if isinstance(p, str)]
    out = []
    if len(chars) > 1:
        out.append(f"{len(chars)} characters in one BYAF manifest (only Ginger writes these)")
    if chars and all(p.split("/")[1:2] == [f"character{i}"] for i, p in
                     enumerate(chars, 1)):
        try:
            z = input.zip
            folder = chars[0].rsplit("/", 1)[0]
            if any(n.startswith(f"{folder}/images/portrait.") for n in z.names()):
                out.append("Ginger's BYAF layout (characters/character1/images/portrait.*)")
        except Exception:
            pass
    return out


def rules() -> list[LabelRule]:
    return [
        LabelRule("Backyard", 0.9, _backyard_author, "origin", "byaf-author-url"),
        LabelRule("Backyard", 0.6, _byaf, "origin", "byaf-manifest"),
        LabelRule("Ginger", 0.85, _ginger, "last_writer", "ginger-byaf"),
    ]

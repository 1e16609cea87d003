"""Agnai's structured persona rendered to text, exactly as Agnai's ``formatCharacter`` does.

The rendering is what Agnai puts into a Tavern card's ``description``; rendering the stored
persona again and comparing is how Agnai (and bunzai) decide whether a card's
``extensions.agnai.persona`` still describes the card.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

KINDS = ("wpp", "sbf", "boostyle", "attributes", "text", "json")


def _values(persona: Mapping[str, Any]) -> dict[str, list[str]] | None:
    attrs = persona.get("attributes")
    if not isinstance(attrs, Mapping):
        return None
    out: dict[str, list[str]] = {}
    for key, values in attrs.items():
        if not isinstance(values, Sequence) or isinstance(values, str) \
                or not all(isinstance(v, str) for v in values):
            return None
        out[str(key)] = list(values)
    return out


def render(name: str, persona: Any) -> str | None:
    """The persona as text, or None when it is not a persona Agnai could render."""
    if not isinstance(persona, Mapping):
        return None
    kind = persona.get("kind")
    attrs = _values(persona)
    if attrs is None:
        return None
    if kind == "wpp":
        lines = "\n".join(f"{k}({' + '.join(_q(v) for v in vs)})" for k, vs in attrs.items())
        return "\n".join([f'[character("{name}") {{', lines, "}]"])
    if kind == "sbf":
        parts = [f"{k}: {', '.join(_q(v) for v in vs)}" for k, vs in attrs.items()]
        return f'[ character: "{name}"; {"; ".join(parts)} ]'
    if kind == "boostyle":
        return " + ".join([name, *(v for vs in attrs.values() for v in vs)])
    if kind == "attributes":
        lines = "\n".join(f"{k}: {', '.join(vs)}" for k, vs in attrs.items())
        return f"Name: {name}\n{lines}"
    if kind == "text":
        text = attrs.get("text")
        return text[0] if text and text[0] else ""
    if kind == "json":  # older Agnai versions
        return json.dumps({"type": "character", "name": name, "properties": attrs},
                          indent=2, ensure_ascii=False)
    return None


def _q(s: str) -> str:
    return f'"{s}"'


def text_persona(text: str) -> dict[str, Any]:
    """The persona Agnai builds from a card's description (and personality)."""
    return {"kind": "text", "attributes": {"text": [text]}}


def is_plain_text(persona: Any, owner: Any = None) -> bool:
    """Whether ``persona`` is one text and nothing else (a neutral-value rule).

    Agnai uses a stored persona only while it renders to the card's description, and builds
    exactly this from the description otherwise: a plain text persona is the description
    again, or a stale copy Agnai ignores.  Either way it changes nothing Agnai does.
    """
    if not isinstance(persona, Mapping) or persona.get("kind") != "text" \
            or set(persona) - {"kind", "attributes"}:
        return False
    attrs = persona.get("attributes")
    if not isinstance(attrs, Mapping) or set(attrs) != {"text"}:
        return False
    text = attrs["text"]
    return isinstance(text, list) and len(text) == 1 and isinstance(text[0], str)

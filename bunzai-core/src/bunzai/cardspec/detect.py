"""Cheap questions about a parsed JSON value: is it a character card, which version, really V3?

Import-light (no pydantic) and tolerant of read-only views, so detectors can call these on
``input.json`` or a decoded PNG chunk without copying anything.  None of them raise.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any, Literal

from ..io.frozen import unfrozen

__all__ = [
    "V1_SIGNALS",
    "V3_ONLY_DATA_KEYS",
    "card_body",
    "card_version",
    "is_card",
    "is_really_v3",
    "looks_like_v1",
]

CardVersion = Literal["v1", "v2", "v3"]

SPEC_V2 = "chara_card_v2"
SPEC_V3 = "chara_card_v3"

V1_SIGNALS = ("description", "personality", "scenario", "first_mes", "mes_example")
"""Keys of which a flat (V1) card must have at least one: ``name`` alone is no character."""

V3_ONLY_DATA_KEYS = ("assets", "nickname", "creator_notes_multilingual", "source",
                     "creation_date", "modification_date")
"""``data`` keys that only a real V3 writer produces.  ``group_only_greetings`` is not among
them: SillyTavern writes it into V2 data too."""

_NOT_V1_KEYS = ("entries", "personas", "persona_descriptions", "scriptName", "findRegex",
                "lorebookVersion")


def looks_like_v1(obj: Any) -> bool:
    """A flat card: ``name`` plus a real character field, and none of the other shapes' marks.

    A world-info file, a lorebook, an Agnai export, a Pygmalion file (``char_name``, no
    ``name``), a persona backup or a regex script never passes, even though several of them
    also have ``name``.  A flat card that also carries Pygmalion's keys (aichar and
    character-factory write both sets) is a V1 card, in a JSON file or an image alike: that is
    how SillyTavern reads it (its import looks for ``name`` before ``char_name``).
    """
    obj = unfrozen(obj)  # only read here: the parse a read-only view wraps, asked directly
    if not isinstance(obj, Mapping) or "spec" in obj:
        return False
    get = obj.get
    if not isinstance(get("name"), str):
        return False
    for k in V1_SIGNALS:
        if isinstance(get(k), str):
            break
    else:
        return False
    for k in _NOT_V1_KEYS:
        if k in obj:
            return False
    kind = get("kind")
    if kind in ("character", "memory"):
        return False
    if isinstance(kind, str) and isinstance(get("schema_version"), str):
        return False  # bunzai's own canonical JSON (any kind): vaud-json's file, not a card
    if "persona" in obj and "greeting" in obj and "sampleChat" in obj:
        return False  # Agnai's own five-field rule
    messages = get("messages")
    if isinstance(messages, Sequence) and not isinstance(messages, str):
        return False  # a chat log (Agnai's chat export has name and scenario too)
    return get("type") != "risu"


def card_version(obj: Any) -> CardVersion | None:
    """``"v1"``, ``"v2"`` or ``"v3"`` by the card's label (and shape for V1), else ``None``.

    The label is what the file says: SillyTavern stamps V2 data as ``chara_card_v3``, so use
    :func:`is_really_v3` when the content matters.
    """
    obj = unfrozen(obj)  # only read here
    if not isinstance(obj, Mapping):
        return None
    spec = obj.get("spec")
    if spec is None and "spec" not in obj:
        return "v1" if looks_like_v1(obj) else None
    if not isinstance(obj.get("data"), Mapping):
        return None
    if spec == SPEC_V3:
        return "v3"
    if spec == SPEC_V2:
        return "v2"
    return None


def is_card(obj: Any) -> bool:
    """Whether ``obj`` is a character card of any version."""
    return card_version(obj) is not None


def card_body(obj: Any) -> Mapping[str, Any] | None:
    """The object holding the card fields: ``data`` for V2/V3, the root for V1."""
    version = card_version(obj)
    if version is None:
        return None
    if version == "v1":
        return obj  # type: ignore[no-any-return]
    body = obj.get("data")
    return body if isinstance(body, Mapping) else None


def is_really_v3(obj: Any) -> bool:
    """A card labelled V3 whose content is V3 too (V3-only ``data`` fields, or ``use_regex``
    on book entries of a card that has no root duplicates), not SillyTavern's relabelled V2."""
    if card_version(obj) != "v3":
        return False
    data = obj.get("data")
    if any(k in data for k in V3_ONLY_DATA_KEYS):
        return True
    if any(k in obj for k in ("name", "description", "first_mes")):
        return False  # root duplicates: a V2 writer's habit
    book = data.get("character_book")
    entries = book.get("entries") if isinstance(book, Mapping) else None
    if isinstance(entries, Sequence) and not isinstance(entries, str):
        return any(isinstance(e, Mapping) and "use_regex" in e for e in entries)
    return False

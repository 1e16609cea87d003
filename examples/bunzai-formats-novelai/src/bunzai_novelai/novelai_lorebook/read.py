"""NovelAI lorebook -> canonical Lorebook.

Mapped: ``text`` -> ``content``, ``keys`` -> ``keys``, ``displayName`` -> ``comment``,
``enabled``, ``forceActivation`` -> ``constant``, ``contextConfig.budgetPriority`` ->
``insertion_order`` (as SillyTavern's own NovelAI import does), ``id``.  Everything else
(``searchRange``, ``keyRelative``, ``nonStoryActivatable``, ``category``, ``loreBiasGroups``,
``lastUpdatedAt``, the rest of ``contextConfig``, ``settings``, ``categories``, keys NovelAI
adds later) is kept verbatim in ``passthrough["novelai-lorebook"]``, with the original key order
and which mapped keys were absent, so writing the book back reproduces the file.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from bunzai.errors import MalformedInput
from bunzai.types import Issue, ReadResult

from . import PNG_KEYWORD, _text_version, _version

MAPPED = {"text": "content", "keys": "keys", "displayName": "comment", "enabled": "enabled",
          "forceActivation": "constant", "id": "id"}
"""NovelAI entry key -> canonical entry field (budgetPriority lives in contextConfig)."""
ENTRY_TYPES: tuple[tuple[str, Callable[[Any], bool], str], ...] = (
    ("text", lambda v: isinstance(v, str), "a string"),
    ("keys", lambda v: isinstance(v, list) and all(isinstance(k, str) for k in v),
     "a list of strings"),
    ("displayName", lambda v: isinstance(v, str), "a string"),
    ("enabled", lambda v: isinstance(v, bool), "true or false"),
    ("forceActivation", lambda v: isinstance(v, bool), "true or false"),
    ("id", lambda v: isinstance(v, str), "a string"),
    ("contextConfig", lambda v: isinstance(v, dict), "an object"),
)
"""The JSON type each mapped key must have when present."""


def _kind(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int | float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    return "an object"


def _expect(ok: bool, where: str, what: str, value: Any) -> None:
    if not ok:
        raise MalformedInput(f"{where}: expected {what}, got {_kind(value)}")


def _entry(raw: Any, i: int, format_id: str) -> Any:
    from bunzai.model import LorebookEntry

    where = f"$.entries[{i}]"
    _expect(isinstance(raw, dict), where, "an object", raw)
    for key, test, what in ENTRY_TYPES:
        if key in raw:
            _expect(test(raw[key]), f"{where}.{key}", what, raw[key])
    config = raw.get("contextConfig")
    priority = None
    if config is not None and "budgetPriority" in config:
        priority = config["budgetPriority"]
        _expect(isinstance(priority, int | float) and not isinstance(priority, bool),
                f"{where}.contextConfig.budgetPriority", "a number", priority)
    shape: dict[str, Any] = {
        "order": list(raw),
        "other": {k: v for k, v in raw.items() if k not in MAPPED and k != "contextConfig"},
    }
    if config is not None:
        shape["contextConfig"] = {k: v for k, v in config.items() if k != "budgetPriority"}
        shape["contextConfigOrder"] = list(config)
    return LorebookEntry(
        id=raw.get("id"),
        keys=raw.get("keys", []),
        content=raw.get("text", ""),
        comment=raw.get("displayName"),
        enabled=raw.get("enabled", True),
        constant=raw.get("forceActivation"),
        insertion_order=priority,
        passthrough={format_id: shape},
    )


_EXPECTED = {"lorebookVersion": "a number", "entries": "a list", "settings": "an object",
             "categories": "a list"}
"""The JSON type NovelAI writes for each root key."""


def _json_layout(raw: bytes, doc: Any) -> dict[str, Any] | None:
    """How the file's JSON was laid out (indent, escaping, final newline): exactly, when the
    standard library reproduces the file (NovelAI exports with two spaces, like
    JSON.stringify), else its indent and final newline (a hand-edited file)."""
    text = raw[3:] if raw.startswith(b"\xef\xbb\xbf") else raw
    newline = text.endswith(b"\n")
    body = text[:-1] if newline else text
    indent: int | None = None
    if body[1:2] == b"\n":
        line = body[2:body.find(b"\n", 2)]
        indent = len(line) - len(line.lstrip(b" ")) or None
    for ascii_only in ((False, True) if body.isascii() else (False,)):
        layout = {"indent": indent, "ascii": ascii_only, "newline": newline}
        try:
            if dump_json(doc, layout) == text:
                return layout
        except (TypeError, ValueError):
            return None
    return {"indent": indent, "ascii": False, "newline": newline}


def dump_json(doc: Any, layout: Mapping[str, Any]) -> bytes:
    """``doc`` laid out as ``layout`` says (see :func:`_json_layout`)."""
    indent = layout.get("indent")
    seps = (",", ":") if indent is None else (",", ": ")
    text = json.dumps(doc, indent=indent, ensure_ascii=bool(layout.get("ascii")),
                      separators=seps, allow_nan=False)
    return (text + ("\n" if layout.get("newline") else "")).encode("utf-8")


def _document(input: Any) -> tuple[Any, dict[str, Any]]:
    """The lorebook JSON (mutable) and how it was stored (for writing the same container)."""
    if input.container == "png":
        for payload in input.png_json(PNG_KEYWORD):
            if payload.error is not None:
                raise MalformedInput(f"the {PNG_KEYWORD} chunk is not readable JSON: "
                                     f"{payload.error}")
            if _version(payload.value) is not None:
                return payload.mutable(), {
                    "container": "png", "encoding": payload.encoding,
                    "chunk": payload.chunk.kind,
                    "png": base64.b64encode(input.data).decode("ascii"),
                }
        raise MalformedInput(f"this PNG has no {PNG_KEYWORD} chunk holding a NovelAI lorebook")
    if input.container != "json":
        raise MalformedInput(f"a NovelAI lorebook is JSON or a PNG, not {input.container}")
    doc = input.json_mutable()
    layout = _json_layout(input.data, doc)
    return doc, {"json": layout} if layout else {}


def _text_values(data: Mapping[str, Any]) -> list[str]:
    """Root keys holding text where NovelAI writes a number, a list or an object."""
    return [k for k in _EXPECTED if isinstance(data.get(k), str)]


def read_lorebook(input: Any, *, format_id: str) -> ReadResult:
    from bunzai.model import Lorebook

    data, stored = _document(input)
    _expect(isinstance(data, dict), "$", "an object", data)
    warnings: list[Issue] = []
    as_text = _text_values(data)
    if "entries" in as_text:
        present = [k for k in _EXPECTED if k in data]
        which = ("every value is text" if as_text == present else
                 f"{', '.join(as_text)} hold text")
        what = ("a Python list written as text" if data["entries"].lstrip().startswith("[{'")
                else "a string")
        raise MalformedInput(f"a broken NovelAI lorebook: {which} where NovelAI writes numbers, "
                             f"lists and objects; $.entries is {what}, not a list of entries "
                             "(export the lorebook from NovelAI again)")
    if _version(data) is None:
        version = _text_version(data)
        if version is None:
            raise MalformedInput("$.lorebookVersion: missing or not a number (not a NovelAI "
                                 "lorebook)")
        warnings.append(Issue("$.lorebookVersion", f"the version is text "
                              f"({data['lorebookVersion']!r}); read as {version:g}, written "
                              "back as it was"))
    entries = data.get("entries", [])
    _expect(isinstance(entries, list), "$.entries", "a list", entries)
    book: dict[str, Any] = {"order": list(data),
                            "other": {k: v for k, v in data.items() if k != "entries"}}
    book.update(stored)
    lorebook = Lorebook(entries=[_entry(raw, i, format_id) for i, raw in enumerate(entries)],
                        passthrough={format_id: book})
    return ReadResult([lorebook], warnings)


def validate_lorebook(entities: Sequence[Any]) -> list[Issue]:
    """NovelAI's own rules that a readable book can still break."""
    issues: list[Issue] = []
    for book in entities:
        mine = book.passthrough.get("novelai-lorebook", {})
        categories = mine.get("other", {}).get("categories", [])
        known = {c.get("id") for c in categories if isinstance(c, Mapping)}
        seen: dict[str, int] = {}
        for i, entry in enumerate(book.entries):
            where = f"$.entries[{i}]"
            if not entry.keys and not entry.constant and entry.enabled:
                issues.append(Issue(f"{where}.keys", "no keys and not forceActivation: the "
                                                     "entry never activates"))
            if isinstance(entry.id, str):
                if entry.id in seen:
                    issues.append(Issue(f"{where}.id", f"duplicate id (also entries"
                                                       f"[{seen[entry.id]}])"))
                seen.setdefault(entry.id, i)
            category = entry.passthrough.get("novelai-lorebook", {}).get("other", {}).get(
                "category")
            if category and category not in known:
                issues.append(Issue(f"{where}.category", f"unknown category id {category!r}"))
    return issues

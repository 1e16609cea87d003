"""NovelAI lorebook -> canonical Lorebook.

Mapped: ``text`` -> ``content``, ``keys`` -> ``keys``, ``displayName`` -> ``comment``,
``enabled``, ``forceActivation`` -> ``constant``, ``id``, and ``contextConfig.budgetPriority`` ->
``insertion_order`` (as SillyTavern's own NovelAI import does).

What the canonical model has no field for is user data, kept in ``app_data["novelai-lorebook"]``
by its key: an entry's ``searchRange``, ``keyRelative``, ``nonStoryActivatable``, ``category``,
``loreBiasGroups``, keys NovelAI adds later, and the rest of its ``contextConfig`` (as
``contextConfig.prefix``, …); the book's ``settings``, ``categories`` and unknown keys.  Another
format that cannot hold an item reports it by its path.  How the file was laid out (key order,
absent keys, the ``lorebookVersion``, an entry's ``lastUpdatedAt``, the JSON indentation, the PNG
around a ``naidata`` chunk) is layout, kept in ``passthrough["novelai-lorebook"]`` so that writing
the book back gives the same bytes; it is never reported.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from bunzai.sdk import Issue, MalformedInput, ReadResult, sniff_layout
from bunzai.sdk.fields import BOOL, STRLIST, Table, field, keep, type_name

from . import PNG_KEYWORD, _text_version, _version

ENTRY = Table((
    field("content", "text", absent=""),
    field("keys", conv=STRLIST, absent=[]),
    field("comment", "displayName"),
    field("enabled", conv=BOOL, absent=True),
    field("constant", "forceActivation", conv=BOOL),
    field("id"),
))
"""A NovelAI entry's keys that canonical fields hold; every other key is the entry's app data."""
CONFIG = "contextConfig"
PRIORITY = "budgetPriority"
ENTRY_LAYOUT = ("lastUpdatedAt",)
"""When NovelAI last saved the entry: its bookkeeping, not something a user wrote."""

ENTRY_TYPES: tuple[tuple[str, Callable[[Any], bool], str], ...] = (
    ("text", lambda v: isinstance(v, str), "a string"),
    ("keys", lambda v: isinstance(v, list) and all(isinstance(k, str) for k in v),
     "a list of strings"),
    ("displayName", lambda v: isinstance(v, str), "a string"),
    ("enabled", lambda v: isinstance(v, bool), "true or false"),
    ("forceActivation", lambda v: isinstance(v, bool), "true or false"),
    ("id", lambda v: isinstance(v, str), "a string"),
    (CONFIG, lambda v: isinstance(v, dict), "an object"),
)
"""The JSON type each mapped key must have when present."""


def _expect(ok: bool, where: str, what: str, value: Any) -> None:
    if not ok:
        raise MalformedInput(f"{where}: expected {what}, got {type_name(value)}")


def _entry(raw: Any, i: int, format_id: str) -> Any:
    from bunzai.sdk import LorebookEntry

    where = f"$.entries[{i}]"
    _expect(isinstance(raw, dict), where, "an object", raw)
    for key, test, what in ENTRY_TYPES:
        if key in raw:
            _expect(test(raw[key]), f"{where}.{key}", what, raw[key])
    reading = ENTRY.read(raw, where, skip=(CONFIG, *ENTRY_LAYOUT), owned=True)
    layout = dict(reading.layout)
    data = dict(reading.data)
    layout.update((k, raw[k]) for k in ENTRY_LAYOUT if k in raw)
    priority = None
    config = raw.get(CONFIG)
    if config is not None:
        if PRIORITY in config:
            priority = config[PRIORITY]
            _expect(isinstance(priority, int | float) and not isinstance(priority, bool),
                    f"{where}.{CONFIG}.{PRIORITY}", "a number", priority)
        layout["config"] = list(config)
        data.update((f"{CONFIG}.{k}", v) for k, v in config.items() if k != PRIORITY)
    entry = LorebookEntry(**reading.values, insertion_order=priority)
    keep(entry, format_id, layout, data)
    return entry


_EXPECTED = {"lorebookVersion": "a number", "entries": "a list", "settings": "an object",
             "categories": "a list"}
"""The JSON type NovelAI writes for each root key."""


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
    # its indent (NovelAI's two spaces, or a hand-edited file's), escapes and final newline
    return doc, {"json": sniff_layout(input.data, 2)}


def _text_values(data: Mapping[str, Any]) -> list[str]:
    """Root keys holding text where NovelAI writes a number, a list or an object."""
    return [k for k in _EXPECTED if isinstance(data.get(k), str)]


def read_lorebook(input: Any, options: Mapping[str, Any], format_id: str) -> ReadResult:
    from bunzai.sdk import Lorebook

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
    layout: dict[str, Any] = {"order": list(data), **stored}
    if "lorebookVersion" in data:
        layout["version"] = data["lorebookVersion"]
    book = Lorebook(entries=[_entry(raw, i, format_id) for i, raw in enumerate(entries)])
    keep(book, format_id, layout,
         {k: v for k, v in data.items() if k not in ("lorebookVersion", "entries")})
    return ReadResult([book], warnings)


def validate_lorebook(input: Any, entities: Sequence[Any], format_id: str) -> list[Issue]:
    """NovelAI's own rules that a readable book can still break."""
    issues: list[Issue] = []
    for book in entities:
        mine = book.app_data.get(format_id, {})
        categories = mine.get("categories")
        # an id is text; one of any other type names no category (an entry's is a string)
        known = {c.get("id") for c in categories
                 if isinstance(c, Mapping) and isinstance(c.get("id"), str)} \
            if isinstance(categories, list) else set()
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
            category = entry.app_data.get(format_id, {}).get("category")
            if isinstance(category, str) and category and category not in known:
                issues.append(Issue(f"{where}.category", f"unknown category id {category!r}"))
    return issues

"""``sillytavern-lorebook``: SillyTavern World Info, Chub lorebooks and standalone V2/V3 books.

Detection only looks at the shared parsed JSON view; the mapping lives in ``worldinfo.py``
(World Info and Chub's hybrid) and in ``bunzai.sdk.cards`` (V2/V3 books), imported on use.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from itertools import islice
from typing import Any

from bunzai.sdk import FormatAdapter, Option, detect_json, unfrozen

from .._common.neutral import WORLD_INFO
from .._common.options import indent_option
from .._common.runs import ST_LOREBOOK

_SAMPLE = 32
"""Entries looked at by detection (a book can hold thousands)."""
_CARD_KEYS = ("first_mes", "mes_example", "char_name", "char_persona", "char_greeting",
              "personality", "scenario")
_OTHER_APPS = ("personas", "persona_descriptions", "scriptName", "findRegex", "lorebookVersion",
               "power_user")
_WI_ENTRY_SIGNS = ("uid", "content", "keysecondary", "disable")


_NOT_BOOKS = frozenset(_CARD_KEYS + _OTHER_APPS)
_WI_SIGNS = frozenset(_WI_ENTRY_SIGNS)


def _is_list(x: Any) -> bool:
    # parsed JSON holds plain lists: their exact type first, the ABC check for the rest
    return type(x) is list or (isinstance(x, Sequence) and not isinstance(x, str | bytes))


def _is_map(x: Any) -> bool:
    return type(x) is dict or isinstance(x, Mapping)


def _sample(values: Any) -> list[Any]:
    return list(islice(values, _SAMPLE))


def _score_array_book(book: Mapping[str, Any]) -> tuple[float, str]:
    """A V2 ``character_book`` shape: ``entries`` is an array of ``{keys, content}`` objects."""
    entries = book.get("entries")
    if not _is_list(entries):
        return 0.0, ""
    items = _sample(entries)
    if not items:
        others = [k for k in ("name", "description", "scan_depth", "token_budget",
                              "recursive_scanning", "extensions") if k in book]
        return (0.55, "empty V2 character book") if others else (0.0, "")
    if not all(_is_map(e) for e in items):
        return 0.0, ""
    if any("keywords" in e or "entry" in e for e in items):
        return 0.0, ""  # Agnai's vocabulary: agnai-memory reads it
    if any("text" in e and "keys" in e and "content" not in e for e in items):
        return 0.0, ""  # NovelAI-like
    if not all(_is_list(e.get("keys")) and isinstance(e.get("content"), str) for e in items):
        return 0.0, ""
    full = all(all(k in e for k in ("enabled", "insertion_order")) for e in items)
    if full:
        return 0.85, "V2 character book (entries array with keys, content, enabled)"
    return 0.75, "hand-made book (entries array with keys and content)"


def score(data: Any) -> tuple[float, str]:
    """How sure this is a Tavern lorebook, and why (pure function of the parsed JSON)."""
    data = unfrozen(data)  # only looked at: the parse itself, not read-only views of it
    if not _is_map(data):
        return 0.0, ""
    spec = data.get("spec")
    if spec is not None:
        if spec == "lorebook_v3" and isinstance(data.get("data"), Mapping):
            s, _ = _score_array_book(data["data"])
            if s > 0 or _is_list(data["data"].get("entries")):
                return 0.9, "V3 lorebook (spec lorebook_v3)"
            return 0.6, "spec lorebook_v3 without an entries array"
        return 0.0, ""
    if data.get("kind") is not None or data.get("type") == "risu":
        return 0.0, ""  # Agnai memory / character, Risu lorebook, canonical entities
    if not data.keys().isdisjoint(_NOT_BOOKS):  # a card's or another app's keys
        return 0.0, ""
    if _is_map(data.get("data")) and not _is_map(data.get("entries")):
        return 0.0, ""
    entries = data.get("entries")
    if _is_map(entries):
        values = _sample(entries.values())
        if values and not all(_is_map(v) for v in values):
            return 0.0, ""
        if "is_creation" in data:
            return 0.9, "Chub lorebook (is_creation, entries keyed by id)"
        if values and any(_is_list(v.get("key")) and not v.keys().isdisjoint(_WI_SIGNS)
                          for v in values):
            return 0.9, "SillyTavern World Info (entries keyed by uid)"
        if not values:
            if "originalData" in data:
                return 0.9, "empty SillyTavern World Info with originalData"
            return 0.6, "empty SillyTavern World Info ({entries: {}})"
        if any("content" in v or "key" in v for v in values):
            return 0.6, "World Info-like entries object"
        return 0.0, ""
    return _score_array_book(data)


class SillyTavernLorebookAdapter(FormatAdapter):
    """SillyTavern World Info JSON, Chub lorebooks, and standalone V2/V3 character books."""

    format_id = "sillytavern-lorebook"
    kind = "lorebook"
    runs = ST_LOREBOOK
    label = "SillyTavern World Info / character book"
    aliases = ("worldinfo", "lorebook", "json")
    default_for_kind = True
    """What ``bunzai lorebook extract`` and ``merge`` write unless given ``--to``: a World Info
    file, the standalone lorebook most apps import."""
    options = (
        Option("variant", choices=("same", "worldinfo", "wi", "v2", "v3"), default="same",
               help="output shape: same (as read; World Info for other formats' books), "
                    "worldinfo (wi), v2 (bare character_book) or v3 (spec lorebook_v3)"),
        indent_option(4, "JSON indent (SillyTavern saves worlds with 4); 0 is compact"),
    )
    signature = {"json": ("entries", "spec")}
    detection = (
        ("World Info: entries object whose values have a key list and uid/content", 0.9),
        ("Chub lorebook: is_creation and an entries object", 0.9),
        ("World Info with originalData and no entries yet", 0.9),
        ("{spec: lorebook_v3, data: {entries: [...]}}", 0.9),
        ("V2 character book: entries array with keys, content, enabled, insertion_order", 0.85),
        ("hand-made book: entries array with keys and content only", 0.75),
        ("empty World Info {entries: {}} or entries object with content/key", 0.6),
        ("empty V2 book (entries [] plus book fields)", 0.55),
        ("cards, Agnai (kind), Risu (type risu), NovelAI (lorebookVersion), personas, regex", 0.0),
    )
    carries = ("*",)  # every canonical field: World Info maps all but the folders, which the
    # V2/V3 variants hold and the World Info writer reports
    neutral = WORLD_INFO
    losses = (
        ("entries[].folder / is_folder", "dropped: World Info has no folders"),
        ("entries[].position", "dropped when not one of ST's positions 0-7"),
        ("entries[].id", "missing, duplicate or text ids get a fresh uid (not a loss: ids are "
                         "not user data)"),
        ("entries[].comment", "approximated: an entry with a name but no comment gets the name "
                              "as its comment (ST's title)"),
    )

    reader = "read:read_book"
    writer = "write:write_book"

    detect = detect_json(score)

"""Spec violations of a Character Card V1/V2/V3 object, located by JSON path.

Readers are tolerant (real cards break the spec all the time), so this is where the breakage
is reported.  Everything is a warning except what makes the card unreadable as a card (no
object, ``data`` not an object); ``bunzai validate --strict`` fails on warnings too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import Issue
from ..io.jsonio import type_name
from .detect import SPEC_V2, SPEC_V3

__all__ = ["validate_book", "validate_card"]

_V1_FIELDS = ("name", "description", "personality", "scenario", "first_mes", "mes_example")
_V2_STRINGS = (*_V1_FIELDS, "creator_notes", "system_prompt", "post_history_instructions",
               "creator", "character_version")
_V2_LISTS = ("alternate_greetings", "tags")


def _is_list(v: Any) -> bool:
    return isinstance(v, Sequence) and not isinstance(v, str | bytes)


def _is_str_list(v: Any) -> bool:
    return _is_list(v) and all(isinstance(x, str) for x in v)


def _is_num(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


class _Checker:
    def __init__(self) -> None:
        self.issues: list[Issue] = []

    def warn(self, path: str, message: str) -> None:
        self.issues.append(Issue(path, message, "warning"))

    def error(self, path: str, message: str) -> None:
        self.issues.append(Issue(path, message, "error"))

    def present(self, obj: Mapping[str, Any], key: str, base: str, required: bool) -> bool:
        """Whether ``obj`` has ``key`` to check, every field check starting here: a missing
        field is a warning when the spec requires it, and nothing to check either way."""
        if key in obj:
            return True
        if required:
            self.warn(f"{base}.{key}", f"required field {key} is missing")
        return False

    def string(self, obj: Mapping[str, Any], key: str, base: str, *, required: bool) -> None:
        if not self.present(obj, key, base, required):
            return
        v = obj[key]
        if not isinstance(v, str):
            self.warn(f"{base}.{key}", f"{key} must be a string, found {type_name(v)}")

    def str_list(self, obj: Mapping[str, Any], key: str, base: str, *, required: bool) -> None:
        if not self.present(obj, key, base, required):
            return
        v = obj[key]
        if isinstance(v, str):
            self.warn(f"{base}.{key}", f"{key} must be an array of strings, found a string")
        elif not _is_str_list(v):
            self.warn(f"{base}.{key}", f"{key} must be an array of strings, found "
                      f"{type_name(v) if not _is_list(v) else 'an array with non-strings'}")

    def typed(self, obj: Mapping[str, Any], key: str, base: str, want: str, *,
              required: bool) -> None:
        if not self.present(obj, key, base, required):
            return
        v = obj[key]
        ok = {
            "bool": isinstance(v, bool),
            "number": _is_num(v),
            "object": isinstance(v, Mapping),
            "id": _is_num(v) or isinstance(v, str),
        }[want]
        if not ok:
            label = {"bool": "true or false", "number": "a number", "object": "an object",
                     "id": "a number or string"}[want]
            self.warn(f"{base}.{key}", f"{key} must be {label}, found {type_name(v)}")


def validate_book(book: Any, *, v3: bool, path: str = "$") -> list[Issue]:
    """Spec violations of a ``character_book`` (V2) or V3 lorebook object."""
    c = _Checker()
    _book(c, book, v3, path)
    return c.issues


def _book(c: _Checker, book: Any, v3: bool, base: str) -> None:
    if not isinstance(book, Mapping):
        c.warn(base, f"the book must be an object, found {type_name(book)}")
        return
    for key in ("name", "description"):
        c.string(book, key, base, required=False)
    for key in ("scan_depth", "token_budget"):
        c.typed(book, key, base, "number", required=False)
    c.typed(book, "recursive_scanning", base, "bool", required=False)
    c.typed(book, "extensions", base, "object", required=True)
    entries = book.get("entries")
    if "entries" not in book:
        c.warn(f"{base}.entries", "required field entries is missing")
        return
    if isinstance(entries, Mapping):
        c.warn(f"{base}.entries", "entries must be an array (this is a world-info style "
               "object keyed by id)")
        return
    if not isinstance(entries, Sequence) or isinstance(entries, str | bytes):
        c.warn(f"{base}.entries", f"entries must be an array, found {type_name(entries)}")
        return
    for i, entry in enumerate(entries):
        where = f"{base}.entries[{i}]"
        if not isinstance(entry, Mapping):
            c.warn(where, f"an entry must be an object, found {type_name(entry)}")
            continue
        c.str_list(entry, "keys", where, required=True)
        c.string(entry, "content", where, required=True)
        c.typed(entry, "extensions", where, "object", required=True)
        c.typed(entry, "enabled", where, "bool", required=True)
        c.typed(entry, "insertion_order", where, "number", required=True)
        c.typed(entry, "use_regex", where, "bool", required=v3)
        for key in ("case_sensitive", "selective", "constant"):
            c.typed(entry, key, where, "bool", required=False)
        for key in ("name", "comment"):
            c.string(entry, key, where, required=False)
        c.typed(entry, "priority", where, "number", required=False)
        c.typed(entry, "id", where, "id" if v3 else "number", required=False)
        c.str_list(entry, "secondary_keys", where, required=False)
        pos = entry.get("position")
        if "position" in entry and pos not in ("before_char", "after_char"):
            c.warn(f"{where}.position", f"position must be 'before_char' or 'after_char', "
                   f"found {pos!r}")


def validate_card(obj: Any) -> list[Issue]:
    """Spec violations of a card object (V1 flat, V2 or V3), with JSON paths."""
    c = _Checker()
    if not isinstance(obj, Mapping):
        c.error("$", f"a character card must be a JSON object, found {type_name(obj)}")
        return c.issues
    spec = obj.get("spec")
    if "spec" not in obj:
        for key in _V1_FIELDS:
            c.string(obj, key, "$", required=True)
        return c.issues
    if spec not in (SPEC_V2, SPEC_V3):
        c.error("$.spec", f"unknown spec {spec!r} (expected {SPEC_V2!r} or {SPEC_V3!r})")
        return c.issues
    v3 = spec == SPEC_V3
    version = obj.get("spec_version")
    if "spec_version" not in obj:
        c.warn("$.spec_version", "required field spec_version is missing")
    elif v3:
        try:
            number = float(version) if isinstance(version, str | int | float) else None
        except ValueError:
            number = None
        if number is None or isinstance(version, bool):
            c.warn("$.spec_version", f"spec_version must be a version string like '3.0', "
                   f"found {version!r}")
        elif number >= 4.0 or number < 3.0:
            c.warn("$.spec_version", f"spec_version {version!r} is not a 3.x version")
        elif not isinstance(version, str):
            c.warn("$.spec_version", "spec_version must be a string")
        elif number > 3.0:
            c.warn("$.spec_version", f"spec_version {version} is newer than 3.0; fields "
                   "this version added are kept but not understood")
    elif version != "2.0":
        c.warn("$.spec_version", f"spec_version must be '2.0', found {version!r}")
    data = obj.get("data")
    if not isinstance(data, Mapping):
        c.error("$.data", f"data must be an object, found {type_name(data)}")
        return c.issues
    base = "$.data"
    for key in _V2_STRINGS:
        c.string(data, key, base, required=True)
    for key in _V2_LISTS:
        c.str_list(data, key, base, required=True)
    c.typed(data, "extensions", base, "object", required=True)
    c.str_list(data, "group_only_greetings", base, required=v3)
    if "character_book" in data:
        book = data["character_book"]
        if book is None:
            c.warn(f"{base}.character_book", "character_book is null; leave it out when "
                   "the card has no book")
        else:
            _book(c, book, v3, f"{base}.character_book")
    if v3:
        c.string(data, "nickname", base, required=False)
        c.str_list(data, "source", base, required=False)
        for key in ("creation_date", "modification_date"):
            c.typed(data, key, base, "number", required=False)
        cnm = data.get("creator_notes_multilingual")
        if "creator_notes_multilingual" in data:
            if not isinstance(cnm, Mapping):
                c.warn(f"{base}.creator_notes_multilingual",
                       f"must be an object of strings, found {type_name(cnm)}")
            else:
                for lang, text in cnm.items():
                    if not isinstance(text, str):
                        c.warn(f"{base}.creator_notes_multilingual.{lang}",
                               f"must be a string, found {type_name(text)}")
        _assets(c, data, base)
    ext = data.get("extensions")
    scripts = ext.get("regex_scripts") if isinstance(ext, Mapping) else None
    if scripts is not None and not (_is_list(scripts)
                                    and all(isinstance(s, Mapping) for s in scripts)):
        c.warn(f"{base}.extensions.regex_scripts", "regex_scripts must be an array of "
               "SillyTavern regex script objects")
    return c.issues


def _assets(c: _Checker, data: Mapping[str, Any], base: str) -> None:
    if "assets" not in data:
        return
    assets = data["assets"]
    if not _is_list(assets):
        c.warn(f"{base}.assets", f"assets must be an array, found {type_name(assets)}")
        return
    icons = 0
    mains = 0
    for i, asset in enumerate(assets):
        where = f"{base}.assets[{i}]"
        if not isinstance(asset, Mapping):
            c.warn(where, f"an asset must be an object, found {type_name(asset)}")
            continue
        for key in ("type", "uri", "name", "ext"):
            c.string(asset, key, where, required=True)
        if asset.get("type") == "icon":
            icons += 1
            mains += asset.get("name") == "main"
    if icons > 1 and mains != 1:
        c.warn(f"{base}.assets", f"{icons} icon assets but {mains} named 'main' "
               "(exactly one must be)")

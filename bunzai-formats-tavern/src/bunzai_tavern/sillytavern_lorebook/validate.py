"""The rules of each lorebook variant, checked on the raw JSON with JSON paths."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bunzai.types import Issue

from .._fieldmap import is_int, is_num, type_name
from .fields import ENTRY


def _is_list(x: Any) -> bool:
    return isinstance(x, Sequence) and not isinstance(x, str | bytes)


def validate_book(data: Any) -> list[Issue]:
    if not isinstance(data, Mapping):
        return [Issue("$", f"{type_name(data)} is not a lorebook", "error")]
    if data.get("spec") == "lorebook_v3":
        inner = data.get("data")
        if not isinstance(inner, Mapping):
            return [Issue("$.data", "lorebook_v3 needs a data object", "error")]
        return _card_book(inner, "$.data", v3=True)
    entries = data.get("entries")
    if isinstance(entries, Mapping):
        return _worldinfo(data)
    if _is_list(entries):
        return _card_book(data, "$", v3=False)
    if "entries" not in data:
        return [Issue("$.entries", "missing", "error")]
    return [Issue("$.entries", f"is {type_name(entries)}; expected an object keyed by uid "
                               "or an array", "error")]


def _worldinfo(data: Mapping[str, Any]) -> list[Issue]:
    out: list[Issue] = []
    for okey, entry in data["entries"].items():
        path = f"$.entries[{okey!r}]"
        if not isinstance(entry, Mapping):
            out.append(Issue(path, f"entry is {type_name(entry)}, not an object", "error"))
            continue
        if "uid" not in entry:
            out.append(Issue(f"{path}.uid", "missing; SillyTavern identifies entries by uid"))
        elif not (is_int(entry["uid"]) or isinstance(entry["uid"], str)):
            out.append(Issue(f"{path}.uid", f"is {type_name(entry['uid'])}, must be a number"))
        elif str(entry["uid"]) != str(okey):
            out.append(Issue(f"{path}.uid", f"uid {entry['uid']!r} does not match its key "
                                             f"{okey!r}"))
        if "key" not in entry:
            out.append(Issue(f"{path}.key", "missing: the entry can only fire as constant"))
        elif not _is_list(entry["key"]):
            out.append(Issue(f"{path}.key", f"is {type_name(entry['key'])}, must be a list of "
                                            "strings"))
        pos = entry.get("position")
        if pos is not None and not (is_int(pos) and 0 <= pos <= 7):
            out.append(Issue(f"{path}.position", f"{pos!r} is not a position 0-7"))
        logic = entry.get("selectiveLogic")
        if logic is not None and not (is_int(logic) and 0 <= logic <= 3):
            out.append(Issue(f"{path}.selectiveLogic", f"{logic!r} is not 0-3"))
        role = entry.get("role")
        if role is not None and not (is_int(role) and 0 <= role <= 2):
            out.append(Issue(f"{path}.role", f"{role!r} is not 0, 1, 2 or null"))
        if isinstance(entry.get("displayIndex"), str):
            out.append(Issue(f"{path}.displayIndex", "is a string; SillyTavern writes a "
                                                     "number"))
        # type checks of every other known key, from the field table's converters
        problems: list[Issue] = []
        ENTRY.read(entry, path, problems)
        seen = {i.path for i in out}
        out += [i for i in problems if i.path not in seen]
    return out


def _card_book(book: Mapping[str, Any], path: str, *, v3: bool) -> list[Issue]:
    out: list[Issue] = []
    for key, check, what in (("name", _str, "a string"), ("description", _str, "a string"),
                             ("scan_depth", is_num, "a number"),
                             ("token_budget", is_num, "a number"),
                             ("recursive_scanning", _bool, "true/false")):
        if key in book and book[key] is not None and not check(book[key]):
            out.append(Issue(f"{path}.{key}", f"is {type_name(book[key])}, must be {what}"))
    if "extensions" not in book:
        out.append(Issue(f"{path}.extensions", "missing (required by the card spec, may be {})"))
    elif not isinstance(book["extensions"], Mapping):
        out.append(Issue(f"{path}.extensions", "must be an object", "error"))
    for i, e in enumerate(book.get("entries") or ()):
        epath = f"{path}.entries[{i}]"
        if not isinstance(e, Mapping):
            out.append(Issue(epath, f"entry is {type_name(e)}, not an object", "error"))
            continue
        if not _is_list(e.get("keys")) or not all(isinstance(k, str) for k in e["keys"]):
            out.append(Issue(f"{epath}.keys", "must be a list of strings"))
        if not isinstance(e.get("content"), str):
            out.append(Issue(f"{epath}.content", "missing or not a string", "error"))
        required = [("enabled", _bool, "true/false"), ("insertion_order", is_num, "a number"),
                    ("extensions", lambda x: isinstance(x, Mapping), "an object")]
        if v3:
            required.append(("use_regex", _bool, "true/false"))
        for key, check, what in required:
            if key not in e:
                out.append(Issue(f"{epath}.{key}", "missing (required by the card spec)"))
            elif not check(e[key]):
                out.append(Issue(f"{epath}.{key}", f"is {type_name(e[key])}, must be {what}"))
        sk = e.get("secondary_keys")
        if sk is not None and not (_is_list(sk) and all(isinstance(k, str) for k in sk)):
            out.append(Issue(f"{epath}.secondary_keys", "must be a list of strings"))
        eid = e.get("id")
        if eid is not None and not (is_int(eid) or (v3 and isinstance(eid, str))):
            out.append(Issue(f"{epath}.id", f"is {type_name(eid)}, must be a number"
                                            + (" or string" if v3 else "")))
    return out


def _str(x: Any) -> bool:
    return isinstance(x, str)


def _bool(x: Any) -> bool:
    return isinstance(x, bool)

"""The rules of each lorebook variant, checked on the raw JSON with JSON paths.

What the reader already warns about (values of the wrong type, a uid that is not its key,
entries that are not objects) is not said again here.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from bunzai.sdk import Issue
from bunzai.sdk.fields import is_int, is_num, type_name

from .._common.issues import counted

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput


def _is_list(x: Any) -> bool:
    return isinstance(x, Sequence) and not isinstance(x, str | bytes)


def check(input: AdapterInput, entities: Sequence[Any], format_id: str) -> list[Issue]:
    return validate_book(input.json)


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
    causes: dict[str, list[str]] = {}

    def note(path: str, message: str) -> None:
        causes.setdefault(message, []).append(path)

    for okey, entry in data["entries"].items():
        if not isinstance(entry, Mapping):
            continue
        path = f"$.entries[{okey!r}]"
        if "uid" not in entry:
            note(f"{path}.uid", "missing; SillyTavern identifies entries by uid")
        if "key" not in entry:
            note(f"{path}.key", "missing: the entry can only fire as constant")
        if isinstance(entry.get("displayIndex"), str):
            note(f"{path}.displayIndex", "is a string; SillyTavern writes a number")
    return [counted(paths, message) for message, paths in causes.items()]


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

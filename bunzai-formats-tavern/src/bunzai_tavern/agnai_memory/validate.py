"""The rules of an Agnai memory book, with JSON paths.

Values of the wrong type are the reader's warnings (it says what it read them as); these are
the rules Agnai itself applies, each said once however many entries break it.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from bunzai.sdk import Issue
from bunzai.sdk.fields import type_name

from .._common.issues import counted

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput


def check(input: AdapterInput, entities: Sequence[Any], format_id: str) -> list[Issue]:
    return validate_book(input.json)


def validate_book(data: Any, base: str = "$") -> list[Issue]:
    if not isinstance(data, Mapping):
        return [Issue(base, f"{type_name(data)} is not a memory book", "error")]
    out: list[Issue] = []
    if data.get("kind") != "memory":
        out.append(Issue(f"{base}.kind", "should be 'memory'"))
    if not isinstance(data.get("name"), str):
        out.append(Issue(f"{base}.name", "missing or not a string"))
    entries = data.get("entries")
    if not isinstance(entries, Sequence) or isinstance(entries, str):
        return [*out, Issue(f"{base}.entries", f"is {type_name(entries)}, must be an array",
                            "error")]
    errors: dict[str, list[str]] = {}
    missing: dict[str, list[str]] = {}
    for i, e in enumerate(entries):
        path = f"{base}.entries[{i}]"
        if not isinstance(e, Mapping):
            errors.setdefault("not an entry object: Agnai drops it on import", []).append(path)
            continue
        if not isinstance(e.get("entry"), str):
            errors.setdefault("missing or not a string: Agnai drops the entry on import",
                              []).append(f"{path}.entry")
        kw = e.get("keywords")
        if not isinstance(kw, Sequence) or isinstance(kw, str):
            errors.setdefault("missing or not a list: Agnai drops the entry on import",
                              []).append(f"{path}.keywords")
        for key in ("priority", "weight"):
            if key not in e:
                missing.setdefault(key, []).append(f"{path}.{key}")
    out += [Issue(i.path, i.message, "error") for i in
            (counted(paths, message) for message, paths in errors.items())]
    out += [counted(paths, "missing") for paths in missing.values()]
    return out

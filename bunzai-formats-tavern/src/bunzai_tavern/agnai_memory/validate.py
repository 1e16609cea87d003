"""The rules of an Agnai memory book, with JSON paths."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bunzai.types import Issue

from .._agnai.memory import ENTRY
from .._fieldmap import is_num, type_name


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
    for i, e in enumerate(entries):
        path = f"{base}.entries[{i}]"
        if not isinstance(e, Mapping):
            out.append(Issue(path, f"{type_name(e)} is not an entry", "error"))
            continue
        if not isinstance(e.get("entry"), str):
            out.append(Issue(f"{path}.entry", "missing or not a string (Agnai drops the "
                                              "entry on import)", "error"))
        kw = e.get("keywords")
        if not isinstance(kw, Sequence) or isinstance(kw, str):
            out.append(Issue(f"{path}.keywords", "missing or not a list (Agnai drops the "
                                                 "entry on import)", "error"))
        for key in ("priority", "weight"):
            if key not in e:
                out.append(Issue(f"{path}.{key}", "missing"))
            elif not is_num(e[key]):
                out.append(Issue(f"{path}.{key}", f"is {type_name(e[key])}, must be a number"))
        if "enabled" in e and not isinstance(e["enabled"], bool):
            out.append(Issue(f"{path}.enabled", f"is {type_name(e['enabled'])}, must be "
                                                "true/false"))
        problems: list[Issue] = []
        ENTRY.read(e, path, problems)
        seen = {x.path for x in out}
        out += [x for x in problems if x.path not in seen]
    return out

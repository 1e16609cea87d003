"""Writing scripts: one object, an array, or one file per script (``split``)."""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from bunzai.sdk import LossReport, OutputFile, WriteResult, dumps_layout
from bunzai.sdk.cards import build_st_regex

from .read import CONTAINER

if TYPE_CHECKING:
    from bunzai.sdk import Entity, RegexScript

_UNSAFE = re.compile(r'[\s.<>:"/\\|?*\x00-\x1f\x7f]')


def export_name(script_name: str) -> str:
    """The file stem SillyTavern's Export gives a script (unsafe characters to ``_``, lower)."""
    return _UNSAFE.sub("_", script_name).lower() or "regex"


def write_scripts(entities: Sequence[RegexScript], options: Mapping[str, Any],
                  format_id: str) -> WriteResult:
    json_layout = _record(entities[0], format_id).get("layout")
    loss = LossReport()
    objs: list[dict[str, Any]] = []
    many = len(entities) > 1
    for i, script in enumerate(entities):
        sub = LossReport()
        objs.append(build_st_regex(script, format_id=format_id, loss=sub, path=""))
        prefix = f"[{i}]." if many else ""
        for entry in sub:
            loss.add(prefix + entry.path.lstrip("."), entry.action, entry.reason)
    if options.get("split"):
        files, seen = [], set()
        for script, obj in zip(entities, objs, strict=True):
            stem = export_name(getattr(script, "name", "") or "")
            name, n = stem, 2
            while name in seen:
                name, n = f"{stem}-{n}", n + 1
            seen.add(name)
            files.append(OutputFile(dumps_layout(obj, json_layout, 4, options), ".json", name))
        return WriteResult(files, loss)
    first = _record(entities[0], format_id)
    if not many and first.get(CONTAINER) != "array":
        doc: Any = objs[0]
    else:
        items: list[Any] = list(objs)
        strays = first.get("strays") if first.get(CONTAINER) == "array" else None
        for pos, value in strays or ():
            items.insert(min(int(pos), len(items)), value)
        doc = items
    return WriteResult([OutputFile(dumps_layout(doc, json_layout, 4, options), ".json")], loss)


def _record(entity: Entity, format_id: str) -> dict[str, Any]:
    rec = entity.passthrough.get(format_id)
    return rec if isinstance(rec, dict) else {}

"""A master export part by part: each part is the file SillyTavern would save for it."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bunzai.sdk import (
    Issue,
    LossReport,
    OutputFile,
    ReadResult,
    WriteResult,
    dumps_layout,
)

from .._common import stpresets as st
from .._common.stpreset_adapter import REQUIRED

PARTS: tuple[tuple[str, str, str], ...] = (
    ("instruct", "INSTRUCT", "instruct"),
    ("context", "CONTEXT", "context"),
    ("sysprompt", "SYSPROMPT", "system_prompt"),
    ("preset", "TEXTGEN", "sampling"),
    ("reasoning", "REASONING", "reasoning"),
)
"""Export key, field table, canonical section."""

TEXTGEN_REQUIRED = {"temp": 1, "top_k": 0, "top_p": 1, "rep_pen": 1}
"""What SillyTavern's import needs to accept a text-completion part (isPossiblyTextCompletion-
Data); neutral values, filled in only when the preset has none."""


def read_master(input: Any, format_id: str) -> ReadResult:
    obj: Any = input.json_mutable()
    warnings: list[Issue] = []
    values: dict[str, Any] = {}
    names: dict[str, str] = {}
    layouts: dict[str, Any] = {}
    data: dict[str, Any] = {}
    for key, table, section in PARTS:
        if key not in obj:
            continue
        vals, layout, extra = st.read_object(obj[key], getattr(st, table), f"$.{key}",
                                             warnings)
        name = vals.pop("name", None)
        if isinstance(name, str):
            names[section] = name
        for k, v in vals.items():
            values.setdefault(k, {}).update(v) if isinstance(v, dict) else None
        layouts[key] = layout
        data.update({f"{key}.{k}": v for k, v in extra.items()})
    record = st.json_record(input, 4, parts=layouts, order=list(obj))
    first = next(iter(names.values()), None)
    names = {k: v for k, v in names.items() if v != first}  # a part named like the first
    return st.one_preset(values, record, data, format_id, warnings, name=first, names=names)


def _has(entity: Any, section: str) -> bool:
    return any(v is not None for v in getattr(entity, section).model_dump().values())


def write_master(entity: Any, options: Mapping[str, Any], format_id: str) -> WriteResult:
    rec = st.own(entity.passthrough, format_id)
    data = st.own(entity.app_data, format_id)
    parts_layout = rec.get("parts") if isinstance(rec.get("parts"), dict) else {}
    loss = LossReport()
    base = st.section_get(entity)
    doc: dict[str, Any] = {}
    for key, table, section in PARTS:
        if key not in parts_layout and not _has(entity, section) \
                and section not in entity.names:
            continue
        name = st.part_name(entity, section)
        part_data = {k[len(key) + 1:]: v for k, v in data.items() if k.startswith(key + ".")}
        obj = st.write_object(entity, getattr(st, table), parts_layout.get(key), part_data,
                              loss, get=lambda a, n=name: n if a == "name" else base(a))
        for k, v in (TEXTGEN_REQUIRED if key == "preset" else REQUIRED.get(table, {})).items():
            obj.setdefault(k, v)
        doc[key] = obj
    if not doc:  # nothing to bundle: the part SillyTavern's import accepts with no values
        doc["preset"] = dict(TEXTGEN_REQUIRED)
        if entity.name is not None:
            doc["preset"]["name"] = entity.name
    order = rec.get("order")
    if isinstance(order, list):
        doc = {**{k: doc[k] for k in order if k in doc},
               **{k: v for k, v in doc.items() if k not in order}}
    text = dumps_layout(doc, rec.get("json"), 4, options)
    return WriteResult([OutputFile(text, ".json")], loss)

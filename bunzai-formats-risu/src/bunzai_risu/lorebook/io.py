"""Reading and writing RisuAI lorebook exports."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from bunzai.errors import MalformedInput, UsageError
from bunzai.loss import LossReport
from bunzai.model import Lorebook
from bunzai.types import OutputFile, ReadResult, WriteResult

from .._common import jsonfmt, lore
from .._common.diff import diff_paths
from .._common.options import flag
from .._common.values import Notes
from . import FORMAT_ID, shape_of

if TYPE_CHECKING:
    from bunzai.input import AdapterInput
    from bunzai.model import Entity


def read(input: AdapterInput) -> ReadResult:
    data = input.json_mutable()
    found = shape_of(data)
    if found is None:
        raise MalformedInput("not a RisuAI lorebook: expected {type: 'risu', data: [entries]} "
                             "or an array of RisuAI entries")
    notes = Notes()
    container = found[0]
    if container == "export":
        entries = lore.read_entries(data["data"], "$.data", notes, FORMAT_ID)
        envelope = {k: v for k, v in data.items() if k != "data"}
        order = list(data)
    else:
        entries = lore.read_entries(data, "$", notes, FORMAT_ID)
        envelope, order = {}, []
    book = Lorebook(entries=entries)
    pt: dict[str, Any] = {"container": container, "layout": jsonfmt.layout(input.data)}
    if container == "export" and (envelope != {"type": "risu", "ver": 1}
                                  or order != ["type", "ver", "data"]):
        pt["envelope"] = envelope
        pt["order"] = order
    book.passthrough[FORMAT_ID] = pt
    return ReadResult([book], notes.warnings)


def write(entity: Entity, options: Mapping[str, Any]) -> WriteResult:
    if not isinstance(entity, Lorebook):
        raise UsageError(f"{FORMAT_ID} writes lorebooks, not a {entity.kind}")
    pt = entity.passthrough.get(FORMAT_ID) or {}
    loss = LossReport()
    data = lore.write_entries(entity.entries, FORMAT_ID, loss, "entries")
    empty = Lorebook()
    for p in diff_paths(entity.model_copy(update={"entries": []}), empty):
        loss.dropped(p, "a RisuAI lorebook export is a bare list of entries")
    as_array = flag(options.get("array"), "array")
    if as_array is None:
        as_array = pt.get("container") == "array"
    doc: Any
    if as_array:
        doc = data
    else:
        envelope = pt.get("envelope") if isinstance(pt.get("envelope"), Mapping) else None
        doc = {"type": "risu", "ver": 1, **(envelope or {}), "data": data}
        order = pt.get("order")
        if isinstance(order, list):
            ranked = {k: i for i, k in enumerate(order)}
            doc = {k: doc[k] for k in sorted(doc, key=lambda k: ranked.get(k, len(ranked)))}
    fmt = pt.get("layout") if isinstance(pt.get("layout"), Mapping) else None
    return WriteResult([OutputFile(jsonfmt.dump(doc, fmt), ".json")], loss)

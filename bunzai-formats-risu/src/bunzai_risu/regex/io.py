"""Reading and writing RisuAI regex exports."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from bunzai.errors import MalformedInput, UsageError
from bunzai.loss import LossReport
from bunzai.model import RegexScript
from bunzai.types import OutputFile, ReadResult, WriteResult

from .._common import jsonfmt, regex
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
        raise MalformedInput("not RisuAI regex scripts: expected {type: 'regex', data: [...]} "
                             "or an array of {comment, in, out, type}")
    notes = Notes()
    container = found[0]
    if container == "export":
        scripts = regex.read_scripts(data["data"], "$.data", notes, FORMAT_ID)
        envelope = {k: v for k, v in data.items() if k != "data"}
        order = list(data)
    else:
        scripts = regex.read_scripts(data, "$", notes, FORMAT_ID)
        envelope, order = {}, []
    if not scripts:
        raise MalformedInput("the RisuAI regex export holds no scripts")
    file_info: dict[str, Any] = {"container": container, "layout": jsonfmt.layout(input.data)}
    if container == "export" and (envelope != {"type": "regex"} or order != ["type", "data"]):
        file_info["envelope"] = envelope
        file_info["order"] = order
    for s in scripts:
        s.passthrough.setdefault(FORMAT_ID, {})["file"] = file_info
    return ReadResult(list(scripts), notes.warnings)


def write_many(entities: Sequence[Entity], options: Mapping[str, Any]) -> WriteResult:
    scripts: list[RegexScript] = []
    for e in entities:
        if not isinstance(e, RegexScript):
            raise UsageError(f"{FORMAT_ID} writes regex scripts, not a {e.kind}")
        scripts.append(e)
    info: Mapping[str, Any] = {}
    for s in scripts:
        pt = s.passthrough.get(FORMAT_ID)
        if isinstance(pt, Mapping) and isinstance(pt.get("file"), Mapping):
            info = pt["file"]
            break
    loss = LossReport()
    data = [regex.write_script(s, FORMAT_ID, loss, f"[{i}]." if len(scripts) > 1 else "")
            for i, s in enumerate(scripts)]
    as_array = flag(options.get("array"), "array")
    if as_array is None:
        as_array = info.get("container") == "array"
    doc: Any
    if as_array:
        doc = data
    else:
        envelope = info.get("envelope") if isinstance(info.get("envelope"), Mapping) else None
        doc = {"type": "regex", **(envelope or {}), "data": data}
        order = info.get("order")
        if isinstance(order, list):
            ranked = {k: i for i, k in enumerate(order)}
            doc = {k: doc[k] for k in sorted(doc, key=lambda k: ranked.get(k, len(ranked)))}
    fmt = info.get("layout") if isinstance(info.get("layout"), Mapping) else None
    return WriteResult([OutputFile(jsonfmt.dump(doc, fmt), ".json")], loss)

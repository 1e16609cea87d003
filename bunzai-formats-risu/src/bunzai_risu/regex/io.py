"""Reading and writing RisuAI regex exports."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from bunzai.errors import MalformedInput, UsageError
from bunzai.loss import LossReport
from bunzai.model import RegexScript
from bunzai.types import OutputFile, ReadResult, WriteResult

from .._common import envelope, regex
from .._common.values import Notes
from . import FORMAT_ID, shape_of

if TYPE_CHECKING:
    from bunzai.input import AdapterInput
    from bunzai.model import Entity

ENVELOPE = {"type": "regex"}
"""The envelope RisuAI writes around a regex export's scripts."""


def read(input: AdapterInput) -> ReadResult:
    data = input.json_mutable()
    found = shape_of(data)
    if found is None:
        raise MalformedInput("not RisuAI regex scripts: expected {type: 'regex', data: [...]} "
                             "or an array of {comment, in, out, type}")
    notes = Notes()
    scripts, file_info = envelope.unwrap(
        data, found[0], input.data, ENVELOPE,
        lambda items, at: regex.read_scripts(items, at, notes, FORMAT_ID))
    if not scripts:
        raise MalformedInput("the RisuAI regex export holds no scripts")
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
    warnings: list[str] = []
    out = envelope.wrap(data, info, ENVELOPE, options, warnings)
    return WriteResult([OutputFile(out, ".json")], loss, warnings)

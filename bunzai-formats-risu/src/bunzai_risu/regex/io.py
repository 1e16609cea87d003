"""Reading and writing RisuAI regex exports."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from bunzai.sdk import LossReport, MalformedInput, ReadResult, RegexScript, WriteResult

from .._common import envelope, regex
from . import shape_of

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput

ENVELOPE = {"type": "regex"}
"""The envelope RisuAI writes around a regex export's scripts."""
_FILE = "file"


def read(input: AdapterInput, options: Mapping[str, Any], format_id: str) -> ReadResult:
    scripts, layout, warnings = envelope.read_export(
        input, shape_of, ENVELOPE, "not RisuAI regex scripts: expected {type: 'regex', data: "
        "[...]} or an array of {comment, in, out, type}", regex.read_scripts, format_id)
    if not scripts:
        raise MalformedInput("the RisuAI regex export holds no scripts")
    for s in scripts:
        s.passthrough.setdefault(format_id, {})[_FILE] = layout
    return ReadResult(list(scripts), warnings)


def write(entities: Sequence[RegexScript], options: Mapping[str, Any], format_id: str
          ) -> WriteResult:
    scripts = list(entities)
    layout: Mapping[str, Any] = {}
    for s in scripts:
        record = s.passthrough.get(format_id)
        if isinstance(record, Mapping) and isinstance(record.get(_FILE), Mapping):
            layout = record[_FILE]
            break
    loss = LossReport()
    many = len(scripts) > 1
    data = [regex.write_script(s, format_id, loss=loss, path=f"[{i}]." if many else "")
            for i, s in enumerate(scripts)]
    return envelope.write_export(data, layout, ENVELOPE, options, loss)

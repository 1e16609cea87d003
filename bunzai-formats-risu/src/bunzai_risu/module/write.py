"""Writing ``.risum`` files (or RisuAI's flat module JSON)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bunzai.sdk import LossReport, Module, OutputFile, WriteResult, dumps, loads
from bunzai.sdk.fields import reorder

from .._common import risum
from .._common.module import write_module
from .read import _MAIN


def write(entity: Module, options: Mapping[str, Any], format_id: str) -> WriteResult:
    record = entity.passthrough.get(format_id)
    rec: Mapping[str, Any] = record if isinstance(record, Mapping) else {}
    container = str(options.get("container") or rec.get("container") or "risum")
    loss = LossReport()
    body, records = write_module(entity, format_id, loss, records=container == "risum")
    envelope = rec.get("envelope")
    if container == "risum":
        main = reorder({"module": body, "type": "risuModule"}, envelope)
        text = risum.dump_main(body) if list(main) == _MAIN else dumps(main, indent=2)
        saved = rec.get("text")
        if isinstance(saved, str) and loads(saved) == main:
            text = saved.encode("utf-8")
        return WriteResult([OutputFile(risum.encode(text, records), ".risum")], loss)
    if container == "json-main":
        doc: dict[str, Any] = reorder({"module": body, "type": "risuModule"}, envelope)
    else:
        doc = reorder({**body, "type": "risuModule"}, envelope)
    return WriteResult([OutputFile(dumps(doc, indent=2), ".json")], loss)

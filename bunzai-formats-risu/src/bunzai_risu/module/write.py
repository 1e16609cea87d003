"""Writing ``.risum`` files (or RisuAI's flat module JSON)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from bunzai.errors import UsageError
from bunzai.jsonio import dumps
from bunzai.loss import LossReport
from bunzai.model import Module
from bunzai.types import OutputFile, WriteResult

from .._common import risum
from .._common.module import write_module
from . import FORMAT_ID

if TYPE_CHECKING:
    from bunzai.model import Entity


def write(entity: Entity, options: Mapping[str, Any]) -> WriteResult:
    if not isinstance(entity, Module):
        raise UsageError(f"{FORMAT_ID} writes modules, not a {entity.kind}")
    pt = entity.passthrough.get(FORMAT_ID) or {}
    container = str(options.get("container") or pt.get("container") or "risum")
    loss = LossReport()
    body, records = write_module(entity, FORMAT_ID, loss)
    envelope = pt.get("envelope")
    if container == "risum":
        main = _ordered({"module": body, "type": "risuModule"}, envelope)
        text = risum.dump_main(body) if list(main) == ["module", "type"] else dumps(main, indent=2)
        saved = pt.get("text")
        if isinstance(saved, str):
            from bunzai.jsonio import loads
            if loads(saved) == main:
                text = saved.encode("utf-8")
        return WriteResult([OutputFile(risum.encode(text, records), ".risum")], loss)
    for i, a in enumerate(entity.assets):
        if a.data:
            loss.dropped(f"assets[{i}].data", "module JSON cannot carry asset bytes")
    if container == "json-main":
        doc: dict[str, Any] = _ordered({"module": body, "type": "risuModule"}, envelope)
    else:
        doc = _ordered({**body, "type": "risuModule"}, envelope)
    return WriteResult([OutputFile(dumps(doc, indent=2), ".json")], loss)


def _ordered(doc: dict[str, Any], order: Any) -> dict[str, Any]:
    if not isinstance(order, list):
        return doc
    ranked = {k: i for i, k in enumerate(order)}
    keys = sorted((k for k in doc if k in ranked), key=ranked.__getitem__)
    return {k: doc[k] for k in keys + [k for k in doc if k not in ranked]}

"""Writing a memory book file."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from bunzai.errors import UsageError
from bunzai.jsonio import dumps
from bunzai.loss import LossReport
from bunzai.types import OutputFile, WriteResult

from .._agnai.memory import MEMORY, write_memory_book
from .._options import layout_of

if TYPE_CHECKING:
    from bunzai.model import Entity


def write_book(entity: Entity, options: Mapping[str, Any], *, format_id: str) -> WriteResult:
    if entity.kind != "lorebook":
        raise UsageError(f"{format_id} writes lorebooks, not a {entity.kind}")
    loss = LossReport()
    obj = write_memory_book(entity, format_id=format_id, loss=loss)
    mine = entity.passthrough.get(format_id)
    rec = mine.get(MEMORY) if isinstance(mine, dict) else None
    indent, newline = layout_of(options, rec.get("layout") if isinstance(rec, dict) else None,
                                default=2)
    return WriteResult([OutputFile(dumps(obj, indent=indent) + (b"\n" if newline else b""),
                                   ".json")], loss)

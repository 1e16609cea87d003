"""Writing a memory book file."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from bunzai.sdk import LossReport, OutputFile, WriteResult, dumps_layout

from .._common.agnai_memory import write_memory_book

if TYPE_CHECKING:
    from bunzai.sdk import Lorebook


def write_book(entity: Lorebook, options: Mapping[str, Any], format_id: str) -> WriteResult:
    loss = LossReport()
    obj = write_memory_book(entity, format_id=format_id, loss=loss)
    mine = entity.passthrough.get(format_id)
    data = dumps_layout(obj, mine.get("layout") if isinstance(mine, dict) else None, 2, options)
    return WriteResult([OutputFile(data, ".json")], loss)

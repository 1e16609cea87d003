"""Reading a memory book file."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from bunzai.sdk import Issue, MalformedInput, ReadResult, sniff_layout
from bunzai.sdk.fields import type_name

from .._common.agnai_memory import read_memory_book

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput


def read_book(input: AdapterInput, options: Mapping[str, Any], format_id: str) -> ReadResult:
    obj: Any = input.json_mutable()
    if not isinstance(obj, dict):
        raise MalformedInput(f"a memory book is a JSON object, not {type_name(obj)}")
    warnings: list[Issue] = []
    book = read_memory_book(obj, format_id=format_id, warnings=warnings)
    layout = sniff_layout(input.data, 2)
    if layout:
        book.passthrough[format_id]["layout"] = layout
    return ReadResult([book], warnings)

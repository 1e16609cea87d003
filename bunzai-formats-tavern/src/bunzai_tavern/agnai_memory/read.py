"""Reading a memory book file."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from bunzai.sdk import Issue, ReadResult

from .._common.agnai_memory import read_memory_book
from .._common.jsonfile import json_object, keep_layout

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput


def read_book(input: AdapterInput, options: Mapping[str, Any], format_id: str) -> ReadResult:
    obj = json_object(input, "a memory book")
    warnings: list[Issue] = []
    book = read_memory_book(obj, format_id=format_id, warnings=warnings)
    keep_layout(book, input, format_id, 2)
    return ReadResult([book], warnings)

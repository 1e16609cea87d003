"""Reading: pick the variant from the shape, then map it (World Info here, V2/V3 via cardspec)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from bunzai.sdk import Issue, MalformedInput, ReadResult
from bunzai.sdk.fields import type_name

from .._common.jsonfile import json_object, keep_layout
from .books import read_array_book, read_v3_book
from .worldinfo import read_worldinfo

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput


def read_book(input: AdapterInput, options: Mapping[str, Any], format_id: str) -> ReadResult:
    obj = json_object(input, "a lorebook")
    warnings: list[Issue] = []
    if obj.get("spec") == "lorebook_v3":
        book = read_v3_book(obj, format_id=format_id, warnings=warnings)
    elif isinstance(obj.get("entries"), dict):
        book = read_worldinfo(obj, format_id=format_id, warnings=warnings)
    elif isinstance(obj.get("entries"), list):
        book = read_array_book(obj, format_id=format_id, warnings=warnings)
    elif "entries" not in obj:
        raise MalformedInput("no 'entries': not a World Info file or character book")
    else:
        raise MalformedInput(f"'entries' is {type_name(obj['entries'])}; expected an object "
                             "keyed by uid (World Info) or an array (character book)")
    keep_layout(book, input, format_id, 4)
    return ReadResult([book], warnings)

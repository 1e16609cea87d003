"""The start and end every reader of a one-object JSON file shares: the object itself, refused
by name when the file holds another JSON value, and the file's JSON layout kept for the writer."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bunzai.sdk import MalformedInput, sniff_layout
from bunzai.sdk.fields import type_name

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput


def json_object(input: AdapterInput, what: str) -> dict[str, Any]:
    """The file's JSON object, a copy the reader may change; another JSON value is refused
    saying what the file should be and what it is (``a lorebook is a JSON object, not a
    list``)."""
    obj: Any = input.json_mutable()
    if not isinstance(obj, dict):
        raise MalformedInput(f"{what} is a JSON object, not {type_name(obj)}")
    return obj


def keep_layout(entity: Any, input: AdapterInput, format_id: str, indent: int) -> None:
    """Keep the file's JSON layout, where it is not the app's usual ``indent``, in the
    entity's passthrough (``layout``), so the writer lays the file out as it was."""
    layout = sniff_layout(input.data, indent)
    if layout:
        entity.passthrough[format_id]["layout"] = layout


__all__ = ["json_object", "keep_layout"]

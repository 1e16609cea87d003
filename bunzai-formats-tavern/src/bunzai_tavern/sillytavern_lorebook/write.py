"""Writing: the variant that was read (its layout says which), World Info for other books."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from bunzai.sdk import LossReport, OutputFile, WriteResult, dumps_layout

from .books import write_array_book, write_v3_book
from .worldinfo import WI, write_worldinfo

if TYPE_CHECKING:
    from bunzai.sdk import Lorebook

VARIANTS = {"same": None, "worldinfo": WI, "wi": WI, "v2": "v2", "v3": "v3"}


def chosen_variant(entity: Any, option: str | None, format_id: str) -> str:
    forced = VARIANTS.get(option) if option else None
    if forced:
        return forced
    mine = entity.passthrough.get(format_id)
    if isinstance(mine, dict) and mine.get("variant") in (WI, "v2", "v3"):
        return str(mine["variant"])
    return WI


def write_book(entity: Lorebook, options: Mapping[str, Any], format_id: str) -> WriteResult:
    variant = chosen_variant(entity, options.get("variant"), format_id)
    loss = LossReport()
    if variant == WI:
        obj = write_worldinfo(entity, format_id=format_id, loss=loss)
    elif variant == "v3":
        obj = write_v3_book(entity, format_id=format_id, loss=loss)
    else:
        obj = write_array_book(entity, format_id=format_id, loss=loss)
    mine = entity.passthrough.get(format_id)
    data = dumps_layout(obj, mine.get("layout") if isinstance(mine, dict) else None, 4, options)
    return WriteResult([OutputFile(data, ".json")], loss)

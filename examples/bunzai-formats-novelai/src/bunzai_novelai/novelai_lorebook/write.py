"""Canonical Lorebook -> NovelAI lorebook (JSON or PNG), with an honest loss report.

A book read from NovelAI is rebuilt from its passthrough: every key in its original order, the
``contextConfig`` as it was, the cover image byte for byte (only the ``naidata`` chunk is
replaced).  A book from another format gets NovelAI's defaults for what NovelAI requires and
the canonical fields NovelAI cannot hold are reported.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any

from bunzai.jsonio import dumps
from bunzai.loss import LossReport
from bunzai.types import OutputFile, WriteResult

from . import PNG_KEYWORD
from .read import dump_json

LOREBOOK_VERSION = 5
DEFAULT_BOOK: dict[str, Any] = {"lorebookVersion": LOREBOOK_VERSION, "entries": [],
                                 "settings": {"orderByKeyLocations": False}, "categories": []}
DEFAULT_CONTEXT: dict[str, Any] = {
    "prefix": "", "suffix": "\n", "tokenBudget": 2048, "reservedTokens": 0,
    "budgetPriority": 400, "trimDirection": "trimBottom", "insertionType": "newline",
    "maximumTrimType": "sentence", "insertionPosition": -1,
}
"""NovelAI's defaults for a new entry's context settings."""
DEFAULT_ENTRY_ORDER = ("text", "contextConfig", "displayName", "id", "keys", "searchRange",
                       "enabled", "forceActivation", "keyRelative", "nonStoryActivatable",
                       "category", "loreBiasGroups")
DEFAULT_ENTRY_OTHER: dict[str, Any] = {"searchRange": 1000, "keyRelative": False,
                                       "nonStoryActivatable": False, "category": "",
                                       "loreBiasGroups": []}
CARRIED = frozenset({"id", "keys", "content", "comment", "name", "enabled", "constant",
                     "insertion_order", "is_folder", "passthrough"})
"""Canonical entry fields NovelAI holds (or that are handled separately below)."""
NOVELAI_LAYOUT: dict[str, Any] = {"indent": 2, "ascii": False, "newline": False}
"""How NovelAI lays out an exported .lorebook (as JavaScript's JSON.stringify(book, null, 2))."""
BOOK_FIELDS = ("name", "description", "scan_depth", "token_budget", "recursive_scanning")


def _ordered(values: Mapping[str, Any], order: list[str] | tuple[str, ...]) -> dict[str, Any]:
    out = {k: values[k] for k in order if k in values}
    out.update((k, v) for k, v in values.items() if k not in out)
    return out


def _entry(entry: Any, i: int, format_id: str, loss: LossReport) -> dict[str, Any]:
    from bunzai.model import LorebookEntry

    shape = entry.passthrough.get(format_id)
    if shape is not None:
        order, values = list(shape["order"]), dict(shape["other"])
        config, config_order = shape.get("contextConfig"), shape.get("contextConfigOrder", [])
    else:
        order, values = list(DEFAULT_ENTRY_ORDER), dict(DEFAULT_ENTRY_OTHER)
        config, config_order = dict(DEFAULT_CONTEXT), list(DEFAULT_CONTEXT)
        config.pop("budgetPriority")
    if entry.content or "text" in order:
        values["text"] = entry.content
    if entry.keys or "keys" in order:
        values["keys"] = list(entry.keys)
    if not entry.enabled or "enabled" in order:
        values["enabled"] = entry.enabled
    if entry.constant is not None:
        values["forceActivation"] = entry.constant
    if entry.comment is not None:
        values["displayName"] = entry.comment
        if entry.name is not None and entry.name != entry.comment:
            loss.dropped(f"entries[{i}].name", "NovelAI has one entry title (displayName), "
                                               "taken from the comment")
    elif entry.name is not None:
        values["displayName"] = entry.name
        loss.approximated(f"entries[{i}].name", "written as displayName (read back as the "
                                                "comment)")
        loss.approximated(f"entries[{i}].comment", "NovelAI's displayName, taken from the name")
    if isinstance(entry.id, str):
        values["id"] = entry.id
    elif entry.id is not None:
        values["id"] = str(entry.id)
        loss.approximated(f"entries[{i}].id", "NovelAI entry ids are strings")
    if entry.insertion_order is not None:
        config = dict(config or {})
        config["budgetPriority"] = entry.insertion_order
    elif shape is None:
        config = dict(config or {})
        config["budgetPriority"] = DEFAULT_CONTEXT["budgetPriority"]
        loss.approximated(f"entries[{i}].insertion_order",
                          "unset; NovelAI's default budget priority 400 written")
    if config is not None:
        values["contextConfig"] = _ordered(config, [*config_order, *DEFAULT_CONTEXT])
    blank = LorebookEntry()
    for name in LorebookEntry.model_fields:
        if name not in CARRIED and getattr(entry, name) != getattr(blank, name):
            loss.dropped(f"entries[{i}].{name}", "NovelAI entries have no such setting")
    return _ordered(values, order)


def _book(book: Any, format_id: str, loss: LossReport) -> dict[str, Any]:
    mine = book.passthrough.get(format_id, {})
    values = dict(mine.get("other") or DEFAULT_BOOK)
    order = mine.get("order") or list(DEFAULT_BOOK)
    for name in BOOK_FIELDS:
        if getattr(book, name) is not None:
            loss.dropped(name, "a NovelAI lorebook has no such setting")
    if book.extensions:
        loss.dropped("extensions", "a NovelAI lorebook has no extension blocks")
    entries: list[dict[str, Any]] = []
    for i, entry in enumerate(book.entries):
        if entry.is_folder:
            loss.dropped(f"entries[{i}]", "a folder, not an entry (NovelAI categories are "
                                          "not mapped)")
            continue
        if len(entries) != i:
            loss.approximated(f"entries[{i}]", f"written as entries[{len(entries)}]: folders "
                                               "before it were dropped")
        entries.append(_entry(entry, i, format_id, loss))
    if entries or "entries" in order:
        values["entries"] = entries
    return _ordered(values, order)


def write_lorebook(book: Any, options: Mapping[str, Any], *, format_id: str) -> WriteResult:
    loss = LossReport()
    doc = _book(book, format_id, loss)
    mine = book.passthrough.get(format_id, {})
    container = options.get("container") or mine.get("container", "json")
    if container == "json":
        warnings = ["the PNG cover image was not kept (container=json)"] if "png" in mine \
            else []
        layout = mine.get("json") if isinstance(mine.get("json"), Mapping) else None
        if layout is None and format_id not in book.passthrough:
            layout = NOVELAI_LAYOUT  # a new book, laid out as NovelAI exports one
        data = dump_json(doc, layout) if layout is not None else dumps(doc)
        return WriteResult([OutputFile(data, ".lorebook")], loss, warnings)
    from bunzai.containers.png import (
        PngFile,
        is_text_chunk_with_keyword,
        make_text_chunk,
        minimal_png,
        splice,
    )

    body = dumps(doc)
    cover = base64.b64decode(mine["png"]) if "png" in mine else minimal_png(1, 1)
    text = base64.b64encode(body) if mine.get("encoding", "base64") == "base64" else body
    chunk = make_text_chunk(PNG_KEYWORD, text, kind=mine.get("chunk", "tEXt"))
    data = splice(PngFile.parse(cover),
                  remove=lambda c: is_text_chunk_with_keyword(c, {PNG_KEYWORD}),
                  insert_before_iend=[chunk])
    return WriteResult([OutputFile(data, ".png")], loss)

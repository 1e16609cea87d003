"""Canonical Lorebook -> NovelAI lorebook (JSON or PNG).

A book read from NovelAI is rebuilt from its app data and layout: every key in its original
order, the ``contextConfig`` as it was, the cover image byte for byte (only the ``naidata``
chunk is replaced).  A book from another format gets NovelAI's defaults for a new entry.

The adapter declares what it carries (``carries``); core reports every other piece of user
data.  The writer reports only what it keeps but changes, and what an option or a value makes
it drop: a folder entry (and the entries after it, which move up), and an entry ``name`` that
cannot be the title because the comment already is.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any

from bunzai.sdk import LossReport, OutputFile, WriteResult, dumps, dumps_layout
from bunzai.sdk.fields import kept, reorder

from . import PNG_KEYWORD
from .read import CONFIG, ENTRY, PRIORITY

LOREBOOK_VERSION = 5
NEW_BOOK: dict[str, Any] = {"settings": {"orderByKeyLocations": False}, "categories": []}
"""What NovelAI writes for a new book besides its entries."""
NEW_ENTRY: dict[str, Any] = {"searchRange": 1000, "keyRelative": False,
                             "nonStoryActivatable": False, "category": "",
                             "loreBiasGroups": []}
"""NovelAI's defaults for a new entry's keys the canonical model has no field for."""
NEW_CONTEXT: dict[str, Any] = {
    "prefix": "", "suffix": "\n", "tokenBudget": 2048, "reservedTokens": 0,
    "budgetPriority": 400, "trimDirection": "trimBottom", "insertionType": "newline",
    "maximumTrimType": "sentence", "insertionPosition": -1,
}
"""NovelAI's defaults for a new entry's context settings."""
ENTRY_ORDER = ("text", "contextConfig", "displayName", "id", "keys", "searchRange", "enabled",
               "forceActivation", "keyRelative", "nonStoryActivatable", "category",
               "loreBiasGroups")
BOOK_ORDER = ("lorebookVersion", "entries", "settings", "categories")



def _entry(entry: Any, i: int, format_id: str, loss: LossReport) -> dict[str, Any]:
    layout, data = kept(entry, format_id)
    data = dict(data or (NEW_ENTRY if layout is None else {}))
    config = {k[len(CONFIG) + 1:]: data.pop(k) for k in list(data) if k.startswith(CONFIG + ".")}
    if entry.insertion_order is not None:
        config[PRIORITY] = entry.insertion_order
    tail: dict[str, Any] = {}
    if layout is not None and "config" in layout:
        tail[CONFIG] = reorder(config, layout["config"])
    elif config:  # a new entry: NovelAI's context settings around what it says
        tail[CONFIG] = reorder({**NEW_CONTEXT, **config}, list(NEW_CONTEXT))
    if layout is not None:
        tail.update((k, layout[k]) for k in ("lastUpdatedAt",) if k in layout)

    def value(attr: str) -> Any:
        if attr == "comment" and not entry.comment and entry.name:
            return entry.name  # NovelAI has one title: the name stands in for a comment
        if attr == "id" and entry.id is not None:
            return str(entry.id)  # NovelAI's ids are text
        return getattr(entry, attr)

    if entry.name and entry.comment:
        if entry.name != entry.comment:  # the same title twice is one title
            loss.dropped(f"entries[{i}].name", "NovelAI has one entry title (displayName), "
                                               "taken from the comment")
    elif entry.name:
        loss.approximated(f"entries[{i}].name", "written as displayName (read back as the "
                                                "comment)")
        loss.approximated(f"entries[{i}].comment", "NovelAI's displayName, taken from the name")
    out = ENTRY.write(value, layout, data, tail=tail)
    return out if layout is not None else reorder(out, ENTRY_ORDER)


def _book(book: Any, format_id: str, loss: LossReport) -> dict[str, Any]:
    layout, data = kept(book, format_id)
    doc: dict[str, Any] = dict(data or (NEW_BOOK if layout is None else {}))
    doc["lorebookVersion"] = (layout or {}).get("version", LOREBOOK_VERSION)
    entries: list[dict[str, Any]] = []
    folders: dict[int, str] = {}
    for i, entry in enumerate(book.entries):
        if entry.is_folder:
            folders[i] = "a folder, not an entry (NovelAI categories are not mapped)"
            continue
        entries.append(_entry(entry, i, format_id, loss))
    loss.left_out("entries", folders, len(book.entries))
    doc["entries"] = entries
    order = (layout or {}).get("order")
    return reorder(doc, order if isinstance(order, list) else BOOK_ORDER)


def write_lorebook(book: Any, options: Mapping[str, Any], format_id: str) -> WriteResult:
    loss = LossReport()
    doc = _book(book, format_id, loss)
    layout = kept(book, format_id)[0] or {}
    container = options.get("container") or layout.get("container", "json")
    if container == "json":
        warnings = ["the PNG cover image was not kept (container=json)"] if "png" in layout \
            else []
        json_layout = layout.get("json") if isinstance(layout.get("json"), Mapping) else None
        # a new book is laid out as NovelAI exports one (JSON.stringify(book, null, 2))
        data = (dumps_layout(doc, json_layout, 2) if json_layout is not None or not layout
                else dumps(doc))
        return WriteResult([OutputFile(data, ".lorebook")], loss, warnings)
    from bunzai.sdk.png import (
        PngFile,
        is_text_chunk_with_keyword,
        make_text_chunk,
        minimal_png,
        splice,
    )

    body = dumps(doc)
    cover = base64.b64decode(layout["png"]) if "png" in layout else minimal_png(1, 1)
    text = base64.b64encode(body) if layout.get("encoding", "base64") == "base64" else body
    chunk = make_text_chunk(PNG_KEYWORD, text, kind=layout.get("chunk", "tEXt"))
    data = splice(PngFile.parse(cover),
                  remove=lambda c: is_text_chunk_with_keyword(c, {PNG_KEYWORD}),
                  insert_before_iend=[chunk])
    return WriteResult([OutputFile(data, ".png")], loss)

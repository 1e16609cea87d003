"""Standalone V2 ``character_book`` and V3 ``{spec: "lorebook_v3"}`` files, through cardspec.

The card-book mapping is core's (``bunzai.cardspec.lorebook``), shared with every card that
embeds a book; this module only adds the file wrappers and the variant marker.  The marker and
the V3 wrapper's extra root keys live beside cardspec's shape record in
``passthrough[<format id>]`` and are removed before cardspec sees the record.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

from bunzai.cardspec.lorebook import ST_ENTRY_EXTENSIONS, build_book, parse_book
from bunzai.errors import MalformedInput
from bunzai.loss import LossReport
from bunzai.types import Issue

from .._fieldmap import same

if TYPE_CHECKING:
    from bunzai.model import Lorebook, LorebookEntry

V2, V3 = "v2", "v3"
_MINE = ("variant", "root", "root_order", "layout")
"""Keys this adapter adds to cardspec's book record."""


def read_array_book(obj: dict[str, Any], *, format_id: str,
                    warnings: list[Issue]) -> Lorebook:
    """A bare V2 book ``{name?, entries: [...]}`` (hand-made books included)."""
    book = parse_book(obj, format_id=format_id, warnings=warnings, path="$")
    _mark(book, format_id, V2)
    return book


def read_v3_book(obj: dict[str, Any], *, format_id: str, warnings: list[Issue]) -> Lorebook:
    data = obj.get("data")
    if not isinstance(data, dict):
        raise MalformedInput("lorebook_v3 without a 'data' object")
    book = parse_book(data, format_id=format_id, warnings=warnings, path="$.data")
    rec = _mark(book, format_id, V3)
    root = {k: copy.deepcopy(v) for k, v in obj.items() if k not in ("spec", "data")}
    if root:
        rec["root"] = root
    if list(obj) != ["spec", "data", *root]:
        rec["root_order"] = list(obj)
    return book


def _mark(book: Lorebook, format_id: str, variant: str) -> dict[str, Any]:
    rec = book.passthrough.get(format_id)
    if not isinstance(rec, dict):
        rec = {}
        book.passthrough[format_id] = rec
    rec["variant"] = variant
    return rec


_ST_EXT = {key: (attr, check) for key, attr, check, _back in ST_ENTRY_EXTENSIONS}


def _st_copies(entry: LorebookEntry, loss: LossReport, epath: str) -> dict[str, Any]:
    """``entry.extensions`` without SillyTavern's copies of entry settings.

    A card book keeps ST's settings in ``extensions`` under ST's names and cardspec reads them
    back as fields, so a copy left in canonical ``extensions`` (World Info keeps the card's
    original ``extensions`` verbatim) would come back as the field's value.  The field is the
    truth: copies are left out and reported.
    """
    ext = copy.deepcopy(entry.extensions)
    for key in list(ext):
        spec = _ST_EXT.get(key)
        if spec is None:
            continue
        attr, check = spec
        value = ext[key]
        ok, mapped = (True, None) if value is None else check(value)
        if not ok:
            continue
        del ext[key]
        if same(mapped, getattr(entry, attr)):
            loss.approximated(f"{epath}.extensions.{key}", f"SillyTavern's copy of {attr}; "
                                                          "a card book carries the field itself")
        else:
            loss.dropped(f"{epath}.extensions.{key}", f"a stale SillyTavern copy that "
                                                      f"disagrees with {attr}; {attr} is used")
    return ext


def _for_cardspec(book: Lorebook, format_id: str, variant: str,
                  loss: LossReport) -> tuple[Lorebook, dict[str, Any]]:
    """The book as cardspec should see it: its own records when the book was read as this
    variant, none otherwise (another variant's record would make it restore a wrong shape)."""
    rec = book.passthrough.get(format_id)
    mine = rec if isinstance(rec, dict) else {}
    if mine.get("variant") == variant:
        shape = {k: v for k, v in mine.items() if k not in _MINE}
        pt = dict(book.passthrough)
        pt[format_id] = shape
        return book.model_copy(update={"passthrough": pt}), mine
    pt = {k: v for k, v in book.passthrough.items() if k != format_id}
    entries = [e.model_copy(update={
        "passthrough": {k: v for k, v in e.passthrough.items() if k != format_id},
        "extensions": _st_copies(e, loss, f"entries[{i}]")})
        for i, e in enumerate(book.entries)]
    return book.model_copy(update={"passthrough": pt, "entries": entries}), {}


def _rebase(sub: LossReport, loss: LossReport) -> None:
    """cardspec reports under ``path``; a standalone book's paths start at the book."""
    for e in sub:
        loss.add(e.path.lstrip("."), e.action, e.reason)


def write_array_book(book: Lorebook, *, format_id: str, loss: LossReport) -> dict[str, Any]:
    view, _ = _for_cardspec(book, format_id, V2, loss)
    sub = LossReport()
    out = build_book(view, v3=False, format_id=format_id, loss=sub, path="")
    _rebase(sub, loss)
    return out


def write_v3_book(book: Lorebook, *, format_id: str, loss: LossReport) -> dict[str, Any]:
    view, mine = _for_cardspec(book, format_id, V3, loss)
    sub = LossReport()
    data = build_book(view, v3=True, format_id=format_id, loss=sub, path="")
    _rebase(sub, loss)
    out: dict[str, Any] = {"spec": "lorebook_v3", "data": data}
    out.update(copy.deepcopy(mine.get("root") or {}))
    order = mine.get("root_order")
    if isinstance(order, list):
        out = {**{k: out[k] for k in order if k in out},
               **{k: v for k, v in out.items() if k not in order}}
    return out

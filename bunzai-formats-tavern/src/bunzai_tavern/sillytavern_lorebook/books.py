"""Standalone V2 ``character_book`` and V3 ``{spec: "lorebook_v3"}`` files, through cardspec.

The card-book mapping is core's (``bunzai.sdk.cards``), shared with every card that embeds a
book; this module only adds the file wrappers and the variant marker.  The marker and the V3
wrapper's key order live beside cardspec's layout in ``passthrough[<format id>]`` and are taken
out before cardspec sees it; the V3 wrapper's own keys are user data, in the book's
``app_data[<format id>]`` under ``lorebook_v3.<key>``.
"""

from __future__ import annotations

from functools import cache
from typing import TYPE_CHECKING, Any

from bunzai.sdk import LossReport, MalformedInput, Neutrality
from bunzai.sdk.cards import ENTRY_KEYS, ST_ENTRY_EXTENSIONS, build_book, parse_book
from bunzai.sdk.fields import jcopy, same

from .._common.neutral import ENTRY_EXTENSIONS
from .worldinfo import WRAPPER

if TYPE_CHECKING:
    from bunzai.sdk import Issue, Lorebook, LorebookEntry

V2, V3 = "v2", "v3"
_MINE = ("variant", "root_order", "layout")
"""Keys this adapter adds to cardspec's book layout."""


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
    layout = _mark(book, format_id, V3)
    root = {WRAPPER + k: v for k, v in obj.items() if k not in ("spec", "data")}
    if root:
        book.app_data.setdefault(format_id, {}).update(root)
    if list(obj)[:2] != ["spec", "data"]:
        layout["root_order"] = list(obj)
    return book


def _mark(book: Lorebook, format_id: str, variant: str) -> dict[str, Any]:
    layout = book.passthrough.get(format_id)
    if not isinstance(layout, dict):
        layout = {}
        book.passthrough[format_id] = layout
    layout["variant"] = variant
    return layout


_ST_EXT = {key: (attr, check) for key, attr, check, _back in ST_ENTRY_EXTENSIONS}


@cache
def _neutral() -> Neutrality:
    return Neutrality(ENTRY_EXTENSIONS)


def _asks_nothing(key: str, value: Any) -> bool:
    """A copy at SillyTavern's default (``role`` 0): leaving it out loses nothing."""
    return _neutral().neutral(f"entries[*].extensions.{key}", value)


def _st_copies(entry: LorebookEntry, loss: LossReport, epath: str) -> dict[str, Any]:
    """``entry.extensions`` without SillyTavern's copies of entry settings.

    A card book keeps ST's settings in ``extensions`` under ST's names and cardspec reads them
    back as fields, so a copy left in canonical ``extensions`` (World Info keeps the card's
    original ``extensions`` verbatim) would come back as the field's value.  The field is the
    truth: copies are left out and reported, unless they say only what SillyTavern assumes.
    """
    ext = jcopy(entry.extensions)
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
        elif not _asks_nothing(key, value):
            loss.dropped(f"{epath}.extensions.{key}", f"a stale SillyTavern copy that "
                                                      f"disagrees with {attr}; {attr} is used")
    return ext


_CARD_BOOK_KEYS = frozenset({*ENTRY_KEYS, "mode"})


def _card_book_data(entry: LorebookEntry, format_id: str, loss: LossReport,
                    epath: str) -> dict[str, Any]:
    """The entry's app data without keys a card book reads as the entry's own fields (World
    Info keeps Chub's disagreeing card-book copies there): written, they would replace the
    fields, so they are left out and reported."""
    own = entry.app_data.get(format_id)
    if not own or _CARD_BOOK_KEYS.isdisjoint(own):
        return entry.app_data
    kept = {}
    for key, value in own.items():
        if key in _CARD_BOOK_KEYS:
            if value is not None:
                loss.dropped(f"{epath}.app_data.{format_id}.{key}",
                             f"a card book reads {key!r} as the entry's own field; the field "
                             "is written instead")
            continue
        kept[key] = value
    return {**entry.app_data, format_id: kept}


def _for_cardspec(book: Lorebook, format_id: str, variant: str,
                  loss: LossReport) -> tuple[Lorebook, dict[str, Any]]:
    """The book as cardspec should see it: its own layout when the book was read as this
    variant, none otherwise (another variant's layout would make it restore a wrong shape);
    its app data without the V3 wrapper's keys."""
    got = book.passthrough.get(format_id)
    mine = got if isinstance(got, dict) else {}
    own = book.app_data.get(format_id) or {}
    app_data = dict(book.app_data)
    if any(k.startswith(WRAPPER) for k in own):
        app_data[format_id] = {k: v for k, v in own.items() if not k.startswith(WRAPPER)}
    if mine.get("variant") == variant:
        passthrough = dict(book.passthrough)
        passthrough[format_id] = {k: v for k, v in mine.items() if k not in _MINE}
        return book.model_copy(update={"passthrough": passthrough, "app_data": app_data}), mine
    passthrough = {k: v for k, v in book.passthrough.items() if k != format_id}
    entries = [e.model_copy(update={
        "passthrough": {k: v for k, v in e.passthrough.items() if k != format_id},
        "app_data": _card_book_data(e, format_id, loss, f"entries[{i}]"),
        "extensions": _st_copies(e, loss, f"entries[{i}]")})
        for i, e in enumerate(book.entries)]
    return book.model_copy(update={"passthrough": passthrough, "app_data": app_data,
                                   "entries": entries}), {}


def _rebase(sub: LossReport, loss: LossReport) -> None:
    """cardspec reports under ``path``; a standalone book's paths start at the book."""
    for e in sub:
        loss.add(e.path.lstrip("."), e.action, e.reason)


def write_array_book(book: Lorebook, *, format_id: str, loss: LossReport) -> dict[str, Any]:
    view, _ = _for_cardspec(book, format_id, V2, loss)
    for key, value in (book.app_data.get(format_id) or {}).items():
        if key.startswith(WRAPPER) and value is not None:
            loss.dropped(f"app_data.{format_id}.{key}",
                         "a V2 book has no place for the lorebook_v3 file's own keys")
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
    for key, value in (book.app_data.get(format_id) or {}).items():
        if key.startswith(WRAPPER):
            out[key[len(WRAPPER):]] = jcopy(value)
    order = mine.get("root_order")
    if isinstance(order, list):
        out = {**{k: out[k] for k in order if k in out},
               **{k: v for k, v in out.items() if k not in order}}
    return out

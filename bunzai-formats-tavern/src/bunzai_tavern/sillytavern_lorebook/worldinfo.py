"""SillyTavern World Info (``{"entries": {"<uid>": entry}}``) <-> canonical Lorebook.

Chub's hybrid books are World Info files whose entries also carry the V2 names; they go through
the same code: the field table reads the ST names and keeps the V2 ones (see ``fields.py``).
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

from bunzai.cardspec.lorebook import ST_ENTRY_EXTENSIONS
from bunzai.errors import MalformedInput
from bunzai.loss import LossReport
from bunzai.types import Issue

from .._fieldmap import is_int, same
from .fields import BOOK, ENTRY

if TYPE_CHECKING:
    from bunzai.model import Lorebook, LorebookEntry

WI = "wi"
"""Key of the World Info record inside ``passthrough[<format id>]``."""

_ST_EXT = {key: (attr, check, back) for key, attr, check, back in ST_ENTRY_EXTENSIONS}
"""cardspec's ST entry-extension names (``extensions.depth`` …) -> canonical field."""


def _lift_mirrors(values: dict[str, Any], record: dict[str, Any]) -> None:
    """Take ST's copies of the entry settings out of ``extensions`` when they agree.

    Entries imported from a card keep the card entry's ``extensions`` (ST names such as
    ``depth``, ``probability``) beside the real top-level fields.  A copy that agrees with its
    field is the same fact twice: it is regenerated from the field on write, so the canonical
    entry looks like one read from a card book.  A copy that disagrees stays in ``extensions``.
    """
    ext = values.get("extensions")
    if not isinstance(ext, dict) or not ext:
        return
    lifted = []
    for key in list(ext):
        spec = _ST_EXT.get(key)
        if spec is None:
            continue
        attr, check, _back = spec
        current = values.get(attr)
        if ext[key] is None:
            agrees = current is None
        else:
            ok, mapped = check(ext[key])
            agrees = ok and same(mapped, current)
        if agrees:
            lifted.append(key)
    if lifted:
        record["ext_mirror"] = lifted
        record["ext_order"] = list(ext)
        for key in lifted:
            del ext[key]


def _restore_mirrors(entry: LorebookEntry, record: dict[str, Any] | None) -> dict[str, Any]:
    ext = copy.deepcopy(entry.extensions)
    if not record or not record.get("ext_mirror"):
        return ext
    for key in record["ext_mirror"]:
        spec = _ST_EXT.get(key)
        if spec is None or key in ext:
            continue
        attr, _check, back = spec
        value = getattr(entry, attr)
        ext[key] = None if value is None else back(value)
    order = record.get("ext_order") or []
    return {**{k: ext[k] for k in order if k in ext},
            **{k: v for k, v in ext.items() if k not in order}}


def read_worldinfo(obj: dict[str, Any], *, format_id: str,
                   warnings: list[Issue]) -> Lorebook:
    from pydantic import ValidationError

    from bunzai.model import Lorebook, LorebookEntry

    entries_obj = obj.get("entries")
    if not isinstance(entries_obj, dict):
        raise MalformedInput("World Info 'entries' must be an object keyed by uid")
    values, book_rec = BOOK.read(obj, "$", warnings, skip=("entries",))
    entries: list[LorebookEntry] = []
    strays: list[list[Any]] = []
    for pos, (okey, raw) in enumerate(entries_obj.items()):
        path = f"$.entries[{okey!r}]"
        if not isinstance(raw, dict):
            warnings.append(Issue(path, "entry is not an object; kept as it was, not read"))
            strays.append([pos, okey, copy.deepcopy(raw)])
            continue
        evals, erec = ENTRY.read(raw, path, warnings)
        _lift_mirrors(evals, erec)
        written_key = _key_for(evals["id"])
        if okey != written_key:
            erec["okey"] = okey
            erec["okey_for"] = evals["id"]
            if written_key is not None:
                warnings.append(Issue(f"{path}.uid", f"uid {evals['id']!r} does not match "
                                      f"its key {okey!r}; both kept"))
        try:
            entries.append(LorebookEntry(**evals, passthrough={format_id: {WI: erec}}
                                         if erec else {}))
        except ValidationError as exc:  # the converters make this unreachable in practice
            raise MalformedInput(f"{path}: {exc.errors()[0]['msg']}") from None
    if strays:
        book_rec["strays"] = strays
    book_rec_all: dict[str, Any] = {"variant": WI}
    if book_rec:
        book_rec_all[WI] = book_rec
    try:
        return Lorebook(**values, entries=entries, passthrough={format_id: book_rec_all})
    except ValidationError as exc:
        raise MalformedInput(f"$: {exc.errors()[0]['msg']}") from None


def _key_for(uid: Any) -> str | None:
    if is_int(uid) or isinstance(uid, str):
        return str(uid)
    return None


def write_worldinfo(book: Lorebook, *, format_id: str, loss: LossReport,
                    path: str = "") -> dict[str, Any]:
    """The World Info object for ``book``; ``path`` prefixes loss paths (``lorebook``)."""
    mine = book.passthrough.get(format_id)
    book_rec = mine.get(WI) if isinstance(mine, dict) and mine.get("variant") == WI else None
    used: set[str] = set()
    for e in book.entries:
        k = _key_for(e.id)
        if k is not None:
            used.add(k)
    next_uid = _first_free(used)
    seen: set[str] = set()
    out_entries: dict[str, Any] = {}
    for i, entry in enumerate(book.entries):
        epath = f"{path}.entries[{i}]" if path else f"entries[{i}]"
        rec = _entry_record(entry, format_id)
        uid: Any = entry.id
        key = _key_for(uid)
        if rec is None and isinstance(uid, str):
            # SillyTavern's uids are numbers (readers of World Info refuse text ids)
            if uid.isascii() and uid.isdigit() and str(int(uid)) == uid and uid not in seen:
                loss.approximated(f"{epath}.id", "World Info uids are numbers")
                uid = int(uid)
            else:
                key = None
        if key is None and rec is not None and rec.get("okey_for", 0) is None \
                and rec.get("okey") not in seen and rec.get("okey") not in used:
            key = rec["okey"]  # the source entry had no uid either: keep it that way
        elif key is None or key in seen:
            while str(next_uid) in used or str(next_uid) in seen:
                next_uid += 1
            why = ("no id; SillyTavern needs a uid" if uid is None
                   else f"id {uid!r} is not a number, which World Info uids are" if key is None
                   else f"id {uid!r} is used twice; World Info keys entries by uid")
            loss.approximated(f"{epath}.id", f"{why}: assigned {next_uid}")
            uid, key = next_uid, str(next_uid)
            next_uid += 1
        obj = _write_entry(entry, uid, rec, loss, epath)
        if rec is not None and "okey" in rec and same(rec.get("okey_for"), entry.id) \
                and rec["okey"] not in seen and rec["okey"] not in out_entries:
            key = rec["okey"]
        seen.add(key)
        out_entries[key] = obj
    if book_rec and book_rec.get("strays"):
        items = list(out_entries.items())
        for pos, okey, value in book_rec["strays"]:
            if okey not in out_entries:
                items.insert(min(pos, len(items)), (okey, copy.deepcopy(value)))
        out_entries = dict(items)
    return BOOK.write(lambda a: getattr(book, a), book_rec, loss, path,
                      tail={"entries": out_entries})


def _entry_record(entry: LorebookEntry, format_id: str) -> dict[str, Any] | None:
    mine = entry.passthrough.get(format_id)
    if isinstance(mine, dict) and isinstance(mine.get(WI), dict):
        return mine[WI]  # type: ignore[no-any-return]
    return None


def _write_entry(entry: LorebookEntry, uid: Any, rec: dict[str, Any] | None,
                 loss: LossReport, epath: str) -> dict[str, Any]:
    overrides: dict[str, Any] = {"id": uid, "extensions": _restore_mirrors(entry, rec)}
    if rec is None and entry.comment is None and entry.name is not None:
        # SillyTavern shows ``comment`` as the entry title and has no name of its own.
        overrides["comment"] = entry.name
        loss.approximated(f"{epath}.comment", "World Info has no entry name; the name is "
                                              "also written as the comment (ST's title)")

    def get(attr: str) -> Any:
        return overrides[attr] if attr in overrides else getattr(entry, attr)

    if entry.folder is not None:
        loss.dropped(f"{epath}.folder", "World Info has no folders")
    if entry.is_folder:
        loss.dropped(f"{epath}.is_folder", "World Info has no folders; written as a "
                                           "plain entry")
    return ENTRY.write(get, rec, loss, epath)


def _first_free(used: set[str]) -> int:
    n = 0
    while str(n) in used:
        n += 1
    return n

"""SillyTavern World Info (``{"entries": {"<uid>": entry}}``) <-> canonical Lorebook.

Chub's hybrid books are World Info files whose entries also carry the V2 names; they go through
the same code: the field table reads the ST names and keeps the V2 ones (see ``fields.py``).

Where things go: what the table cannot map (unknown keys, ``addMemo``, ``originalData``) is the
book's and each entry's ``app_data[format_id]``; the book's layout is
``passthrough[format_id]["wi"]`` and each entry's ``passthrough[format_id]["wi"]``, so a World
Info layout is never mistaken for a card book's when the same format writes another variant.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bunzai.sdk import Issue, MalformedInput
from bunzai.sdk.cards import ST_ENTRY_EXTENSIONS
from bunzai.sdk.fields import Bad, jcopy, same

from .._common.issues import counted, grouped
from .fields import BOOK, ENTRY, SECOND_SPELLINGS, ST_ENTRY

if TYPE_CHECKING:
    from bunzai.sdk import Lorebook, LorebookEntry, LossReport

WI = "wi"
"""Key of the World Info layout inside ``passthrough[<format id>]``."""

WRAPPER = "lorebook_v3."
"""Prefix of the book's app data that came from a ``lorebook_v3`` file's own root keys (they
have no place in World Info)."""

_ST_EXT = {key: (attr, check, back) for key, attr, check, back in ST_ENTRY_EXTENSIONS}
"""SillyTavern's copies of entry settings in ``extensions`` (``depth`` …) -> canonical field."""

_PLAIN = frozenset({str, int, float, bool, type(None)})


def _copy_agrees(value: Any, current: Any, back: Any) -> bool:
    """Whether an extension copy says what its field says (same JSON value, same type)."""
    if current is None or value is None:
        return value is current
    expected = back(current)
    t = type(value)
    return t is type(expected) and (bool(value == expected) if t in _PLAIN
                                    else same(value, expected))


def _lift_mirrors(values: dict[str, Any], layout: dict[str, Any]) -> None:
    """Take ST's copies of the entry settings out of ``extensions`` when they agree.

    Entries imported from a card keep the card entry's ``extensions`` (ST names such as
    ``depth``, ``probability``) beside the real top-level fields.  A copy that agrees with its
    field is the same fact twice: it is regenerated from the field on write (layout), so the
    canonical entry looks like one read from a card book.  A copy that disagrees stays in
    ``extensions``.
    """
    ext = values["extensions"]
    lifted = []
    plain = _PLAIN
    for key, value in ext.items():
        attr = _LIFT_SAME.get(key)
        if attr is not None:
            # A copy of its field's own value agrees when it is that value: same JSON type and
            # value (None only with None), exactly what _copy_agrees decides for it.
            current = values[attr]
            t = type(value)
            if t is type(current) and (value == current if t in plain else same(value, current)):
                lifted.append(key)
        else:
            spec = _LIFT_CODED.get(key)
            if spec is not None and _copy_agrees(value, values[spec[0]], spec[1]):
                lifted.append(key)
    if lifted:
        layout["ext_mirror"] = lifted
        layout["ext_order"] = list(ext)
        if len(lifted) == len(ext):
            values["extensions"] = {}
        else:
            rest = dict(ext)
            for key in lifted:
                del rest[key]
            values["extensions"] = rest


_PROBE = object()
_LIFT_SAME = {key: attr for key, (attr, _check, back) in _ST_EXT.items()
              if back(_PROBE) is _PROBE}
"""Extension key -> its field, where the writer writes the field's own value: such a copy is
compared with the field directly."""
_LIFT_CODED = {key: (attr, back) for key, (attr, _check, back) in _ST_EXT.items()
               if key not in _LIFT_SAME}
"""Extension key -> (field, its writer mapping) for the copies that are coded (position …)."""


def _restore_mirrors(entry: LorebookEntry, layout: dict[str, Any] | None) -> dict[str, Any]:
    ext = jcopy(entry.extensions)
    if not layout or not layout.get("ext_mirror"):
        return ext
    for key in layout["ext_mirror"]:
        spec = _ST_EXT.get(key)
        if spec is None or key in ext:
            continue
        attr, _check, back = spec
        value = getattr(entry, attr)
        ext[key] = None if value is None else back(value)
    order = layout.get("ext_order") or []
    return {**{k: ext[k] for k in order if k in ext},
            **{k: v for k, v in ext.items() if k not in order}}


def _uid_key(uid: Any) -> str | None:
    """The object key SillyTavern files an entry under: its uid as text."""
    t = type(uid)
    if t is int or t is str:
        return str(uid)
    return None


def read_worldinfo(obj: dict[str, Any], *, format_id: str,
                   warnings: list[Issue]) -> Lorebook:
    """The book of a World Info object; ``obj`` is the reader's own parse (taken, not copied)."""
    from pydantic import ValidationError

    from bunzai.sdk import Lorebook, LorebookEntry

    entries_obj = obj.get("entries")
    if not isinstance(entries_obj, dict):
        raise MalformedInput("World Info 'entries' must be an object keyed by uid")
    values, book_layout, book_data = BOOK.read(obj, "$", warnings, skip=("entries",),
                                               owned=True)
    entries: list[LorebookEntry] = []
    strays: list[list[Any]] = []
    rekeyed: list[str] = []
    repeated: list[str] = []
    seen: set[str] = set()
    entry_warnings: list[Issue] = []
    # The table's values are the reader's own dict: validated as they are, with the model's
    # own validator (what model_validate calls), the entry's own places added to them.
    validate = LorebookEntry.__pydantic_validator__.validate_python
    for pos, (okey, raw) in enumerate(entries_obj.items()):
        path = f"$.entries[{okey!r}]"
        if type(raw) is not dict:
            warnings.append(Issue(path, "entry is not an object; kept as it was, not read"))
            strays.append([pos, okey, raw])
            continue
        table = ST_ENTRY if raw.keys().isdisjoint(SECOND_SPELLINGS) else ENTRY
        evals, layout, data = table.read(raw, path, entry_warnings, owned=True)
        if evals["extensions"]:
            _lift_mirrors(evals, layout)
        uid = evals["id"]
        t = type(uid)
        key = str(uid) if t is int or t is str else None  # as _uid_key
        if okey != key:
            layout["okey"] = okey
            layout["okey_for"] = uid
            if key is not None:
                rekeyed.append(f"{path}.uid")
        if key is not None:
            if key in seen:
                layout["repeats"] = uid  # the file gives this uid twice: so does the rewrite
                repeated.append(f"{path}.uid")
            seen.add(key)
        evals["passthrough"] = {format_id: {WI: layout}} if layout else {}
        evals["app_data"] = {format_id: data} if data else {}
        try:
            entries.append(validate(evals))
        except ValidationError as exc:  # the converters make this unreachable in practice
            raise MalformedInput(f"{path}: {exc.errors()[0]['msg']}") from None
    if entry_warnings:
        warnings += grouped(entry_warnings)
    if rekeyed:
        warnings.append(counted(rekeyed, "the uid does not match the entry's key; entries are "
                                         "identified by their uid, as SillyTavern does, and "
                                         "the keys are kept"))
    if repeated:
        warnings.append(counted(repeated, "this uid is already an earlier entry's; SillyTavern "
                                          "identifies entries by uid and may confuse them"))
    if strays:
        book_layout["strays"] = strays  # no app reads them; kept for a byte-faithful rewrite
    mine: dict[str, Any] = {"variant": WI}
    if book_layout:
        mine[WI] = book_layout
    try:
        return Lorebook(**values, entries=entries, passthrough={format_id: mine},
                        app_data={format_id: book_data} if book_data else {})
    except ValidationError as exc:
        raise MalformedInput(f"$: {exc.errors()[0]['msg']}") from None


def write_worldinfo(book: Lorebook, *, format_id: str, loss: LossReport,
                    path: str = "") -> dict[str, Any]:
    """The World Info object for ``book``; ``path`` prefixes loss paths (``lorebook``)."""
    mine = book.passthrough.get(format_id)
    from_wi = isinstance(mine, dict) and mine.get("variant") == WI
    book_layout = mine.get(WI) if from_wi else None
    own = book.app_data.get(format_id) or {}
    data = {k: v for k, v in own.items() if not k.startswith(WRAPPER)}
    for key, value in own.items():
        if key.startswith(WRAPPER) and value is not None:
            loss.dropped(_at(path, f"app_data.{format_id}.{key}"),
                         "World Info has no place for the lorebook_v3 file's own keys")
    layouts = [_entry_layout(e, format_id) for e in book.entries]
    uids = _uids(book.entries, layouts, from_wi)
    keys = {k for k in map(_uid_key, uids) if k is not None}
    out_entries: dict[str, Any] = {}
    for i, (entry, layout, uid) in enumerate(zip(book.entries, layouts, uids, strict=True)):
        epath = _at(path, f"entries[{i}]")
        okey = layout.get("okey") if layout is not None else None
        if isinstance(okey, str) and same(layout.get("okey_for"), entry.id) \
                and okey not in out_entries:
            key = okey
        else:
            key = _uid_key(uid) or ""
            if key in out_entries:
                key = _free_key(out_entries, keys)
        keys.add(key)
        out_entries[key] = _write_entry(entry, uid, layout, from_wi, format_id, loss, epath)
    strays = book_layout.get("strays") if book_layout else None
    if strays:
        items = list(out_entries.items())
        for pos, okey, value in strays:
            if okey not in out_entries:
                items.insert(min(pos, len(items)), (okey, jcopy(value)))
        out_entries = dict(items)
    return BOOK.write(lambda a: getattr(book, a), book_layout, data, loss, path,
                      tail={"entries": out_entries})


def _uids(entries: list[LorebookEntry], layouts: list[dict[str, Any] | None],
          from_wi: bool) -> list[Any]:
    """Each entry's uid: its id where World Info can hold it, a fresh number otherwise.

    SillyTavern identifies entries by uid, so a uid is not given twice unless the file read
    gave it twice.  An entry read without a uid stays without one, a text uid read from World
    Info stays text; other formats' text ids become numbers.  Ids are not user data: a fresh
    number is not a loss.
    """
    taken: set[str] = set()
    out: list[Any] = [None] * len(entries)
    pending: list[int] = []
    for i, (entry, layout) in enumerate(zip(entries, layouts, strict=True)):
        uid = entry.id
        if layout is not None:
            if uid is None and "okey" in layout and layout.get("okey_for") is None:
                continue  # read without a uid: written without one
            if "repeats" in layout and same(layout["repeats"], uid):
                out[i] = uid
                continue
        if not from_wi and isinstance(uid, str) and uid.isascii() and uid.isdigit() \
                and str(int(uid)) == uid:
            uid = int(uid)
        key = _uid_key(uid)
        if key is None or key in taken or (type(uid) is str and not from_wi):
            pending.append(i)
            continue
        taken.add(key)
        out[i] = uid
    fresh = 0
    for i in pending:
        while str(fresh) in taken:
            fresh += 1
        taken.add(str(fresh))
        out[i] = fresh
    return out


def _free_key(out_entries: dict[str, Any], keys: set[str]) -> str:
    n = 0
    while str(n) in out_entries or str(n) in keys:
        n += 1
    return str(n)


def _entry_layout(entry: LorebookEntry, format_id: str) -> dict[str, Any] | None:
    mine = entry.passthrough.get(format_id)
    if isinstance(mine, dict) and isinstance(mine.get(WI), dict):
        return mine[WI]  # type: ignore[no-any-return]
    return None


def _write_entry(entry: LorebookEntry, uid: Any, layout: dict[str, Any] | None,
                 from_wi: bool, format_id: str, loss: LossReport,
                 epath: str) -> dict[str, Any]:
    overrides: dict[str, Any] = {"id": uid, "extensions": _restore_mirrors(entry, layout)}
    if not from_wi and entry.comment is None and entry.name:
        # SillyTavern shows ``comment`` as the entry title and has no name of its own.
        overrides["comment"] = entry.name
        loss.approximated(f"{epath}.comment", "World Info has no entry name; the name is "
                                              "also written as the comment (ST's title)")

    def get(attr: str) -> Any:
        return overrides[attr] if attr in overrides else getattr(entry, attr)

    if entry.folder:
        loss.dropped(f"{epath}.folder", "World Info has no folders")
    if entry.is_folder:
        loss.dropped(f"{epath}.is_folder", "World Info has no folders; written as a "
                                           "plain entry")
    return ENTRY.write(get, layout, _entry_data(entry, format_id, loss, epath), loss, epath)


_FIRST = {f.names[0][0]: f.names[0][1] for f in ENTRY.fields if f.attr is not None}
"""World Info's own name of each field, and how it is read."""


def _entry_data(entry: LorebookEntry, format_id: str, loss: LossReport,
                epath: str) -> dict[str, Any] | None:
    """The entry's app data to write back beside its fields.

    World Info's reader keeps here what it could not map (unknown keys, a card-book copy that
    disagrees, a value of the wrong type), which reads back the same way.  A book another
    variant read may hold a key World Info maps (a card book's stray ``depth``): written, it
    would be read as the field, so it is left out and reported instead.
    """
    data = entry.app_data.get(format_id)
    if not data:
        return None
    out = dict(data)
    for key, value in data.items():
        conv = _FIRST.get(key)
        if conv is None or value is None:
            continue
        try:
            conv.canon(value)
        except Bad:
            continue  # unreadable: read back as app data again
        del out[key]
        loss.dropped(f"{epath}.app_data.{format_id}.{key}",
                     f"World Info reads {key!r} as the entry's own setting; the entry's field "
                     "is written instead")
    return out


def _at(base: str, rest: str) -> str:
    return f"{base}.{rest}" if base else rest

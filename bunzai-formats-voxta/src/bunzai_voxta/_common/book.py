"""Voxta memory books (``Books/<id>/book.json``) as canonical lorebooks, and back.

A book holds ``Items`` of ``Id``, ``Keywords``, ``Text``, ``Weight`` and ``CreatedAt`` (Character
Foundry also writes ``Deleted``, ``LastUpdated`` and ``DeletedAt``).  Mapping: ``Keywords`` ->
``keys``, ``Text`` -> ``content`` (macros translated), ``Weight`` -> ``priority`` (the item's
importance when memories compete for room), ``Deleted`` -> ``enabled: false``.  Ids and dates are
layout kept for the rewrite; a book's ``Name`` and ``Description`` become the lorebook's (the first
book's, when a character links several, whose entries are read in link order).  What else a book
or an item says (its creator, unknown keys; a later book's name) is user data in ``app_data``.

Everything else a canonical entry can say has no place in a Voxta item; the adapters declare what
they carry and core reports the rest by path.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from bunzai.sdk import Issue
from bunzai.sdk.fields import (
    Conv,
    ObjectReader,
    ObjectWriter,
    Table,
    field,
    is_num,
    same,
)

from .jsonfmt import DOTNET
from .neutral import BOOK_NEUTRAL as BOOK_NEUTRAL
from .package import BOOK_JSON, JsonMember, is_member, where
from .util import (
    ABSENT,
    PLAIN,
    TEXT,
    TEXTS,
    as_text,
    digest,
    new_id,
    ordered,
    text_notes,
)

if TYPE_CHECKING:
    from bunzai.sdk import Lorebook, LorebookEntry, LossReport, Neutrality

BOOK_ORDER = ("$type", "PackageId", "ExplicitContent", "Creator", "Description", "Items", "Name",
              "Version", "DateCreated", "DateModified", "Id")
ITEM_ORDER = ("Id", "Keywords", "Text", "Weight", "Deleted", "CreatedAt", "LastUpdated",
              "DeletedAt")
BOOK_LAYOUT = frozenset({"$type", "Id", "PackageId", "Version", "DateCreated", "DateModified"})
ITEM_LAYOUT = frozenset({"Id", "CreatedAt", "LastUpdated", "DeletedAt"})
"""An item's id and its record dates: Voxta's bookkeeping, not something a user wrote."""


def weight_of(priority: Any) -> Any:
    """The item Weight a canonical priority is written as (Voxta's weights are integers)."""
    if isinstance(priority, float) and priority.is_integer():
        return int(priority)
    if isinstance(priority, float):
        return round(priority)
    return priority


def _weight_notes(key: str, raw: Any, value: Any) -> Sequence[tuple[str, str]]:
    return (("", f"{key} is not a number; ignored"),) if value is None else ()


WEIGHT = Conv("weight", lambda x: x if is_num(x) else None, weight_of,
              lambda x: type(x) is int, notes=_weight_notes)
DELETED = Conv("deleted flag", lambda x: x is not True, lambda v: not v)
"""``Deleted`` is ``enabled: false``; anything but ``true`` is an item in use."""

ITEM = Table((
    field("keys", "Keywords", conv=TEXTS, absent=[]),
    field("content", "Text", conv=TEXT, absent=""),
    field("priority", "Weight", conv=WEIGHT),
    field("enabled", "Deleted", conv=DELETED, absent=True, omit_empty=True, quiet=True),
))
"""A memory-book item's keys the canonical entry names; values that do not come back as they
were are kept as layout (see ``util.py``)."""

DESCRIPTION = Conv("text", lambda x: as_text(x) or None,
                   exact=lambda x: type(x) is str and x != "", notes=text_notes)
"""A book's Description: an empty one says nothing."""


def later_book(book_id: str) -> str:
    """The ``app_data`` key of a later book's own data (its name, creator, …)."""
    return f"Books[{book_id}]"


def split_rest(obj: Mapping[str, Any], mapped: frozenset[str] | set[str],
               layout: frozenset[str]) -> tuple[dict[str, Any], dict[str, Any]]:
    """Unmapped keys as (layout, user data): ids, links and record dates are layout."""
    rest: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    for key, value in obj.items():
        if key in mapped:
            continue
        if key in layout:
            rest[key] = value
        else:
            extra[key] = value
    return rest, extra




# -- reading ---------------------------------------------------------------------------------


def read_entries(member: JsonMember, warnings: list[Issue], fmt: str
                 ) -> list[LorebookEntry]:
    from bunzai.sdk import LorebookEntry

    w = where(member.path)
    items = member.value.get("Items", ABSENT)
    if items is ABSENT or items is None:
        return []
    if isinstance(items, str) or not isinstance(items, Sequence):
        warnings.append(Issue(f"{w}.Items", f"Items is {type(items).__name__}, not an array; "
                              "ignored"))
        return []
    out: list[LorebookEntry] = []
    for i, item in enumerate(items):
        iw = f"{w}.Items[{i}]"
        if not isinstance(item, Mapping):
            warnings.append(Issue(iw, "an item that is not an object; skipped"))
            continue
        reading = ITEM.read(item, iw, warnings, skip=[k for k in item if k not in ITEM.known()])
        rest, extra = split_rest(item, ITEM.known(), ITEM_LAYOUT)
        layout: dict[str, Any] = {"book": folder_of(member.path), "order": list(item),
                                  "rest": rest}
        record = {k: v for k, v in reading.layout.items() if k != "order"}
        if record:
            layout["fields"] = record
        out.append(LorebookEntry(**reading.values, app_data={fmt: extra} if extra else {},
                                 passthrough={fmt: layout}))
    return out


def folder_of(path: str) -> str:
    parts = path.split("/")
    return parts[1] if len(parts) > 2 else path


def book_record(member: JsonMember, first: bool, warnings: list[Issue]
                ) -> tuple[dict[str, Any], dict[str, Any], str | None, str | None]:
    """(layout record, user data, name, description) of one book."""
    obj = member.value
    w = where(member.path)
    reader = ObjectReader(obj, w, warnings)
    name = reader.get("Name", PLAIN, "") if "Name" in obj else None
    description = reader.get("Description", DESCRIPTION)
    mapped = {"Items", "Name", "Description"} if first else {"Items"}
    rest, extra = split_rest(obj, mapped, BOOK_LAYOUT)
    record: dict[str, Any] = {"id": folder_of(member.path), "path": member.path,
                              "order": list(obj), "rest": rest, "style": member.style,
                              "items": "Items" in obj}
    if first and reader.raw:
        record["fields"] = {"raw": reader.raw}
    return record, extra, name if first else None, description if first else None


def read_books(members: Sequence[JsonMember], warnings: list[Issue], fmt: str
               ) -> Lorebook | None:
    """One lorebook holding the entries of ``members`` (None when there are none)."""
    from bunzai.sdk import Lorebook

    if not members:
        return None
    records: list[dict[str, Any]] = []
    extra: dict[str, Any] = {}
    entries: list[LorebookEntry] = []
    name: str | None = None
    description: str | None = None
    for i, member in enumerate(members):
        record, data, n, d = book_record(member, i == 0, warnings)
        records.append(record)
        if i == 0:
            name, description = n, d
            extra.update(data)
        elif data:  # a later book's name and other data: the lorebook has one name
            extra[later_book(record["id"])] = data
        entries.extend(read_entries(member, warnings, fmt))
    return Lorebook(name=name, description=description, entries=entries,
                    app_data={fmt: extra} if extra else {}, passthrough={fmt: {"books": records}})


# -- writing ---------------------------------------------------------------------------------


def at(path: str, sub: str) -> str:
    """A loss path below ``path`` (the entity itself when ``path`` is empty)."""
    return f"{path}.{sub}" if path else sub


def _layout(obj: Any, fmt: str) -> dict[str, Any]:
    value = obj.passthrough.get(fmt) if obj is not None else None
    return value if isinstance(value, dict) else {}


def _data(obj: Any, fmt: str) -> dict[str, Any]:
    value = obj.app_data.get(fmt) if obj is not None else None
    return value if isinstance(value, dict) else {}




class BookWriter:
    """Turns lorebooks into ``book.json`` objects, reusing each book's id, layout and key order."""

    def __init__(self, package_id: str | None, warnings: list[str], fmt: str,
                 neutral: Neutrality) -> None:
        self.package_id = package_id
        self.fmt = fmt
        self.neutral = neutral
        """Neutral values: a lorebook that holds only these is no loss when not written."""
        self.warnings = warnings
        self.books: dict[str, tuple[dict[str, Any], str, str]] = {}
        """Book id -> (object, style, member path), in the order first written."""
        self._digests: dict[str, str] = {}

    def write(self, book: Lorebook | None, loss: LossReport, path: str,
              default_name: str = "") -> list[str]:
        """Write ``book``'s entries into books; returns the ids of the books it now links."""
        if book is None:
            return []
        layout = _layout(book, self.fmt)
        records = [r for r in layout.get("books", []) if isinstance(r, dict)
                   and isinstance(r.get("id"), str) and r["id"]]
        if not records and not book.entries and path:
            if not self.neutral.neutral(path, book):
                loss.dropped(path, "a Voxta memory book holds items: a lorebook without "
                             "entries is written as no book, so its name and settings go")
            return []
        extra = {k: v for k, v in _data(book, self.fmt).items() if not is_member(k)}
        if not records:  # new books: the first, and the later ones whose own data is kept
            records = [{"id": new_id()}, *({"id": k[len("Books["):-1]} for k in extra
                                           if k.startswith("Books[") and k.endswith("]"))]
        groups: dict[str, list[tuple[int, LorebookEntry]]] = {r["id"]: [] for r in records}
        first_id = records[0]["id"]
        for i, entry in enumerate(book.entries):
            home = _layout(entry, self.fmt).get("book")
            groups[home if isinstance(home, str) and home in groups else first_id].append(
                (i, entry))
        written = [i for r in records for i, _ in groups[r["id"]]]
        if written != sorted(written):  # the list once: an index would name the wrong entry
            loss.approximated(at(path, "entries"), "Voxta keeps each book's items together, "
                              "so the entries come back in another order")
        linked: list[str] = []
        for index, record in enumerate(records):
            obj = self._book(book, record, index == 0, extra, groups[record["id"]], loss, path,
                             default_name)
            linked.append(self._place(record, obj))
        return linked

    def _place(self, record: dict[str, Any], obj: dict[str, Any]) -> str:
        """Store a book under its id; a different book already there gets a fresh id."""
        book_id = str(record["id"])
        style = str(record.get("style") or DOTNET)
        fingerprint = digest(obj)
        if book_id in self.books and self._digests.get(book_id) != fingerprint:
            fresh = new_id()
            self.warnings.append(f"memory book {book_id} is linked by several characters whose "
                                 f"copies differ; this copy is written as book {fresh}")
            book_id = fresh
            if "Id" in obj:
                obj["Id"] = fresh
            path = f"Books/{fresh}/book.json"
        else:
            path = str(record.get("path") or "")
            m = BOOK_JSON.match(path)
            if m is None or m[1] != book_id:
                path = f"Books/{book_id}/book.json"
        if book_id not in self.books:
            self.books[book_id] = (obj, style, path)
            self._digests[book_id] = fingerprint
        return book_id

    def _book(self, book: Lorebook, record: dict[str, Any], first: bool, extra: dict[str, Any],
              entries: list[tuple[int, LorebookEntry]], loss: LossReport,
              path: str, default_name: str) -> dict[str, Any]:
        fields = record.get("fields")
        rest = record.get("rest") if isinstance(record.get("rest"), dict) else None
        obj: dict[str, Any] = dict(rest) if rest is not None else {"$type": "book"}
        if rest is None and self.package_id:
            obj["PackageId"] = self.package_id
        if first:
            obj.update({k: v for k, v in extra.items() if not k.startswith("Books[")})
            w = ObjectWriter(fields if isinstance(fields, dict) else None)
            name = book.name
            if name is None and rest is None:  # a new book: Voxta lists books by name
                name = default_name or "Memory book"
                loss.approximated(at(path, "name"), "a Voxta memory book needs a name; "
                                  f"written as {name!r}")
            w.put("Name", name, PLAIN, "")
            if book.description != "":  # an empty description is none
                w.put("Description", book.description, DESCRIPTION)
            obj.update(w.out)
        else:
            mine = extra.get(later_book(record["id"]))
            if isinstance(mine, dict):
                obj.update(mine)
        items = [self._item(entry, loss, at(path, f"entries[{i}]")) for i, entry in entries]
        if items or record.get("items", True):
            obj["Items"] = items
        if "Id" not in obj or rest is None:
            obj["Id"] = record["id"]
        return ordered(obj, record.get("order") if rest is not None else None, BOOK_ORDER)

    def _item(self, entry: LorebookEntry, loss: LossReport, path: str) -> dict[str, Any]:
        layout = _layout(entry, self.fmt)
        rest = layout.get("rest") if isinstance(layout.get("rest"), dict) else None
        item: dict[str, Any] = dict(rest) if rest is not None else {}
        if "Id" not in item:
            item["Id"] = new_id()
        item.update(_data(entry, self.fmt))
        fields = layout.get("fields")
        mapped = ITEM.write(lambda attr: getattr(entry, attr),
                            fields if isinstance(fields, dict) else None)
        back = ITEM.reads_as(mapped)
        if not same(back["content"], entry.content):
            loss.approximated(f"{path}.content", "the text spells a macro Voxta writes "
                              "differently ({{ char }}, {{ user }})")
        if not same(back["priority"], entry.priority):
            loss.approximated(f"{path}.priority", "Voxta weights are whole numbers")
        item.update(mapped)
        if not entry.enabled and rest is None:
            self.warnings.append("a disabled entry is written as a deleted memory-book item "
                                 "(Voxta keeps it but never uses it)")
        return ordered(item, layout.get("order") if rest is not None else None, ITEM_ORDER)

"""Agnai memory book <-> canonical Lorebook, shared by standalone books and a character's
embedded ``characterBook`` (specs §10.2-10.3).

Agnai's own names come first (``entry``, ``keywords``, ``weight``); the V2 names some tools
write beside them (``content``, ``keys``, ``insertion_order``) are second spellings, regenerated
when they agree and kept as they were when not.  Fields Agnai keeps for V2 round trips
(``id``, ``comment``, ``secondaryKeys``, ``constant``, ``position``, ``probability`` …) map to
their canonical fields.  An entry's ``case_sensitive`` and ``extensions`` are ignored by Agnai
(its import drops them), so they are the entry's app data, not canonical fields: another
format reports them, this one writes them back where they were.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bunzai.sdk import POSITIONS, SELECTIVE_LOGIC, Issue, MalformedInput
from bunzai.sdk.fields import (
    BOOL,
    ID,
    NUM,
    STRLIST,
    Bad,
    Conv,
    Table,
    enum,
    field,
    is_int,
    jcopy,
    slot,
    type_name,
)

from .book_root import book_table

if TYPE_CHECKING:
    from bunzai.sdk import Lorebook, LossReport

BOOK_MARK = "memory"
"""Layout key saying the book was read as a memory book (its entries' shapes are Agnai's)."""

SKIPPED = "skipped entries"
"""App-data key of the items of ``entries`` that are no entry object: ``[[index, value], …]``.
No app reads them, but they are what the file held: the same format puts each back at its
place, every other format reports them dropped."""

IDS = ("_id", "userId")
"""Agnai's database ids, present when a book was saved from its database rather than
downloaded: layout, kept for a byte-faithful rewrite."""


def _position(x: Any) -> str:
    if isinstance(x, str):
        return x
    if is_int(x) and 0 <= x < len(POSITIONS):
        return POSITIONS[x]  # a SillyTavern number, as tools that copy ST entries write it
    raise Bad(f"unknown position {x!r}")


POSITION = Conv("position", _position, jcopy, lambda x: type(x) is str)

ENTRY = Table((
    field("name"),
    field("content", "entry", "content", absent=""),
    field("keys", "keywords", "keys", conv=STRLIST, absent=[]),
    field("priority", conv=NUM),
    field("insertion_order", "weight", "insertion_order", conv=NUM),
    field("enabled", conv=BOOL, absent=True),
    slot("extensions"),
    slot("case_sensitive"),
    field("id", conv=ID),
    field("comment"),
    field("secondary_keys", "secondaryKeys", "secondary_keys", conv=STRLIST, absent=[],
          omit_empty=True),
    field("constant", conv=BOOL),
    field("position", conv=POSITION),
    field("probability", conv=NUM),
    field("use_probability", "useProbability", conv=BOOL),
    field("selective", conv=BOOL),
    field("selective_logic", "selectiveLogic", conv=enum(SELECTIVE_LOGIC, "selectiveLogic")),
    field("exclude_recursion", "excludeRecursion", conv=BOOL),
))
"""One memory entry."""

BOOK = book_table(camel_first=True)

def read_memory_book(obj: dict[str, Any], *, format_id: str, warnings: list[Issue],
                     path: str = "$") -> Lorebook:
    """The book of a memory-book object; ``obj`` is the reader's own parse (not copied)."""
    from bunzai.sdk import Lorebook, LorebookEntry

    entries_raw = obj.get("entries")
    if not isinstance(entries_raw, list):
        raise MalformedInput(f"{path}.entries is {type_name(entries_raw)}; a memory book "
                             "needs an array of entries")
    values, layout, data = BOOK.read(obj, path, warnings, skip=("entries", "kind", *IDS),
                                     owned=True)
    layout[BOOK_MARK] = True
    if "kind" not in obj:
        layout["kind_absent"] = True
    elif obj["kind"] != "memory":
        layout["kind"] = obj["kind"]
    ids = {k: obj[k] for k in IDS if k in obj}
    if ids:
        layout["ids"] = ids
    entries = []
    strays = []
    for i, raw in enumerate(entries_raw):
        epath = f"{path}.entries[{i}]"
        if not isinstance(raw, dict):
            warnings.append(Issue(epath, f"{type_name(raw)} is not an entry; skipped"))
            strays.append([i, raw])
            continue
        evals, elayout, edata = ENTRY.read(raw, epath, warnings, owned=True)
        entries.append(LorebookEntry(**evals, passthrough={format_id: elayout} if elayout else {},
                                     app_data={format_id: edata} if edata else {}))
    if strays:
        data[SKIPPED] = strays
    return Lorebook(**values, entries=entries, passthrough={format_id: layout},
                    app_data={format_id: data} if data else {})


def write_memory_book(book: Lorebook, *, format_id: str, loss: LossReport,
                      path: str = "") -> dict[str, Any]:
    """The memory book object; ``path`` prefixes loss paths (``lorebook`` when embedded)."""
    got = book.passthrough.get(format_id)
    layout: dict[str, Any] = got if isinstance(got, dict) else {}
    from_agnai = bool(layout.get(BOOK_MARK))
    entries: list[Any] = []
    for i, entry in enumerate(book.entries):
        epath = f"{path}.entries[{i}]" if path else f"entries[{i}]"
        elayout = entry.passthrough.get(format_id)
        overrides: dict[str, Any] = {}
        if not from_agnai and entry.name is None and entry.comment:
            # Agnai titles entries by name: the same title, under Agnai's name for it
            overrides["name"] = entry.comment
        if not isinstance(elayout, dict):
            # Agnai's schema wants both numbers (its import turns a missing one into 0):
            # an entry from elsewhere gets them, so Agnai's own checks pass
            for attr, name in (("priority", "priority"), ("insertion_order", "weight")):
                if getattr(entry, attr) is None:
                    overrides[attr] = 0
                    loss.approximated(f"{epath}.{attr}", f"an Agnai memory entry needs a "
                                      f"{name}; none was set: written as 0, what Agnai "
                                      "takes for a missing one")

        def get(attr: str, entry: Any = entry, overrides: dict[str, Any] = overrides) -> Any:
            return overrides[attr] if attr in overrides else getattr(entry, attr)

        entries.append(ENTRY.write(get, elayout if isinstance(elayout, dict) else None,
                                   entry.app_data.get(format_id), loss, epath))
    own = book.app_data.get(format_id)
    for pos, value in _strays(own):
        entries.insert(min(pos, len(entries)), jcopy(value))
    tail: dict[str, Any] = {}
    if not layout.get("kind_absent"):
        tail["kind"] = jcopy(layout.get("kind", "memory"))
    for key, value in (layout.get("ids") or {}).items():
        tail[key] = jcopy(value)
    tail["entries"] = entries
    # Agnai's schema wants a name (its import calls a nameless book "Imported Book")
    unnamed = not layout and book.name is None
    rest = {k: v for k, v in own.items() if k != SKIPPED} if isinstance(own, dict) else own
    out = BOOK.write(lambda a: "" if unnamed and a == "name" else getattr(book, a), layout,
                     rest, loss, path, tail=tail)
    if not from_agnai and "kind" in out:
        out = {"kind": out.pop("kind"), **out}  # where Agnai's download puts it
    return out


def _strays(own: Any) -> list[tuple[int, Any]]:
    """The skipped items kept in the book's app data, as (index, value)."""
    found = own.get(SKIPPED) if isinstance(own, dict) else None
    if not isinstance(found, list):
        return []
    return [(item[0], item[1]) for item in found
            if isinstance(item, list) and len(item) == 2 and is_int(item[0])]

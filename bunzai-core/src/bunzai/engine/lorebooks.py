"""Lorebook operations on canonical entities: extract from a card, embed into one, merge.

Merging never overwrites silently: identical entries (same keys and content) collapse into one,
and entries that share an id or a key set but say different things are all kept and reported.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ..errors import ConversionRefused, UsageError
from ..model import Character, Lorebook, LorebookEntry

if TYPE_CHECKING:
    from ..host.types import WriteResult


@dataclass(frozen=True, slots=True)
class Duplicate:
    """Entry ``entry`` of book ``book`` (both from 1) equals an entry kept before it."""

    book: int
    entry: int
    equals_book: int
    equals_entry: int

    def line(self) -> str:
        return (f"book {self.book} entry {self.entry} equals book {self.equals_book} entry "
                f"{self.equals_entry}")


@dataclass
class MergeReport:
    """What a merge did besides copying: entries that collapsed into an equal one, and entries
    kept although they conflict."""

    found: list[Duplicate] = field(default_factory=list)
    conflicts: list[str] = field(default_factory=list)

    @property
    def duplicates(self) -> list[str]:
        """Every duplicate, one line each."""
        return [d.line() for d in self.found]

    def groups(self) -> list[dict[str, Any]]:
        """The duplicates by (book, book it repeats), as the loss report groups its repeats:
        ``51 entries of book 2 equal entries of book 1``."""
        by: dict[tuple[int, int], list[Duplicate]] = {}
        for d in self.found:
            by.setdefault((d.book, d.equals_book), []).append(d)
        out = []
        for (book, other), found in by.items():
            if len(found) == 1:
                line = found[0].line()
            elif book == other:
                line = f"{len(found)} entries of book {book} equal earlier entries of book {book}"
            else:
                line = f"{len(found)} entries of book {book} equal entries of book {other}"
            out.append({"book": book, "equals_book": other, "count": len(found), "line": line})
        return out

    def to_dict(self) -> dict[str, Any]:
        return {"duplicates": self.duplicates, "duplicate_groups": self.groups(),
                "conflicts": self.conflicts}


def merge_lines(facts: Mapping[str, Any], verbose: bool = False) -> list[str]:
    """The lines of a merge report kept in a result's facts (:meth:`MergeReport.to_dict`)."""
    dups = (facts.get("duplicates", []) if verbose
            else [g["line"] for g in facts.get("duplicate_groups", [])])
    return ([f"duplicate: {d}" for d in dups]
            + [f"conflict: {c}" for c in facts.get("conflicts", [])])


def extract(entity: Any) -> Lorebook:
    """The lorebook embedded in a character, a module or a chat (KoboldAI Lite world info,
    RisuAI chat lore), as a standalone entity."""
    book = getattr(entity, "lorebook", None)
    if entity.kind not in ("character", "module", "chat"):
        raise UsageError(f"a {entity.kind} has no embedded lorebook")
    name = getattr(entity, "name", None) or getattr(entity, "title", None)
    if book is None or not book.entries:
        raise UsageError(f"{name or 'this ' + entity.kind} has no embedded lorebook")
    out: Lorebook = book.model_copy(deep=True)
    if not out.name:
        out.name = f"{name}'s Lorebook" if name else None
    return out


def embed(character: Character, book: Lorebook) -> Character:
    """A copy of the character carrying ``book`` as its embedded lorebook (replacing any)."""
    if character.kind != "character" or book.kind != "lorebook":
        raise UsageError("embed takes a character and a lorebook")
    out = character.model_copy(deep=True)
    out.lorebook = book.model_copy(deep=True)
    return out


def check_embedded(result: WriteResult, target: str) -> None:
    """Refuse a card written by ``embed`` that does not hold the book: the card format has no
    place for it (a Pygmalion five-key card), so the command must not succeed without it.

    Single settings an entry loses on the way are the usual conversion losses and are only
    reported; what is refused is the book itself reported as dropped or approximated.
    """
    for e in result.loss:
        if e.path in ("lorebook", "lorebook.entries") and e.action != "stashed":
            raise ConversionRefused(
                f"a {target} card cannot hold the lorebook ({e.reason}); nothing was written "
                "(embed into a card format that has a character book, such as sillytavern)")


def _signature(e: LorebookEntry) -> tuple[Any, ...]:
    return (tuple(e.keys), tuple(e.secondary_keys), e.content)


def merge_books(books: list[Lorebook], name: str | None = None) -> tuple[Lorebook, MergeReport]:
    """Merge lorebooks in order; de-duplicate by content, keep and report conflicts."""
    report = MergeReport()
    merged: list[LorebookEntry] = []
    seen: dict[tuple[Any, ...], int] = {}
    origin: list[tuple[int, int]] = []  # (book, entry) of each merged entry, from 1
    by_keys: dict[tuple[str, ...], int] = {}
    used_ids: set[str] = set()  # as text: 1 and "1" are one id in a file
    for bi, book in enumerate(books):
        for ei, entry in enumerate(book.entries):
            where = f"book {bi + 1} entry {ei + 1}"
            sig = _signature(entry)
            if sig in seen:
                report.found.append(Duplicate(bi + 1, ei + 1, *origin[seen[sig]]))
                continue
            e = entry.model_copy(deep=True)
            keys = tuple(sorted(e.keys))
            if keys and keys in by_keys:
                first_book, first_entry = origin[by_keys[keys]]
                report.conflicts.append(
                    f"{where} has the same keys ({', '.join(keys)}) as book {first_book} entry "
                    f"{first_entry} but different content: both kept")
            if e.id is not None and str(e.id) in used_ids:
                new_id = _fresh_id(used_ids, e.id)
                report.conflicts.append(f"{where} reused id {e.id!r}: renumbered to {new_id!r}")
                e.id = new_id
            if e.id is not None:
                used_ids.add(str(e.id))
            seen[sig] = len(merged)
            if keys:
                by_keys.setdefault(keys, len(merged))
            merged.append(e)
            origin.append((bi + 1, ei + 1))
    first = books[0] if books else Lorebook()
    out = Lorebook(name=name or first.name, description=first.description,
                   scan_depth=first.scan_depth, token_budget=first.token_budget,
                   recursive_scanning=first.recursive_scanning,
                   extensions=dict(first.extensions), entries=merged,
                   app_data=_merged_app_data(books, report))
    for bi, book in enumerate(books[1:], 2):
        for key in _BOOK_SETTINGS:
            theirs, ours = getattr(book, key), getattr(out, key)
            if theirs is not None and theirs != ours and not (key == "name" and name):
                report.conflicts.append(f"book {bi}'s {key} {_short(theirs)} not kept "
                                        f"(the merged book's is {_short(ours)})")
    return out, report


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


_BOOK_SETTINGS = ("name", "description", "scan_depth", "token_budget", "recursive_scanning")


def _merged_app_data(books: list[Lorebook], report: MergeReport) -> dict[str, Any]:
    """Every book's own app data (a NovelAI book's categories, which its entries name): lists
    are joined without repeats, a value only a later book has is taken, and a later book's
    different value is reported, not kept."""
    import copy

    out: dict[str, Any] = {}
    for bi, book in enumerate(books, 1):
        for fmt, data in (book.app_data or {}).items():
            if fmt not in out:
                out[fmt] = copy.deepcopy(data)
                continue
            mine = out[fmt]
            if not (isinstance(mine, dict) and isinstance(data, dict)):
                if mine != data:
                    report.conflicts.append(f"book {bi}'s {fmt} data not kept")
                continue
            for key, value in data.items():
                if key not in mine:
                    mine[key] = copy.deepcopy(value)
                elif isinstance(mine[key], list) and isinstance(value, list):
                    mine[key] += [copy.deepcopy(v) for v in value if v not in mine[key]]
                elif mine[key] != value:
                    report.conflicts.append(f"book {bi}'s {fmt} {key} {_short(value)} not kept "
                                            "(an earlier book's differs)")
    return out


def _fresh_id(used: set[str], old: Any) -> Any:
    if isinstance(old, int):
        return max((int(i) for i in used if i.isascii() and i.isdigit()), default=0) + 1
    n = 2
    while f"{old}-{n}" in used:
        n += 1
    return f"{old}-{n}"

"""Writing lorebooks as a Voxta package of memory books (``Books/<id>/book.json`` each).

Books read from one package are written back as that package (its ``package.json`` and every
other member included), with the same ids, key order and JSON dialect.  Lorebooks from another
format become new books with fresh ids in a new package whose entry resource is the first book.

The loss report names what reads back differently, known from what was written; the writer
never reads the package back.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from bunzai.sdk import LossReport, OutputFile, WriteResult

from .._common.book import BookWriter
from .._common.jsonfmt import DOTNET, dumps
from .._common.package import (
    BOOK_JSON,
    COMMENT,
    PACKAGE_ORDER,
    SUFFIX,
    assemble,
    build_zip,
    carried_members,
    is_member,
    package_json,
)
from .._common.util import new_id, ordered

if TYPE_CHECKING:
    from bunzai.sdk import Lorebook



def _shared(book: Any, fmt: str) -> Any:
    layout = book.passthrough.get(fmt)
    return layout.get("shared") if isinstance(layout, dict) else None


def write_book_package(entities: Sequence[Lorebook], options: Mapping[str, Any],
                       format_id: str) -> WriteResult:
    books = list(entities)
    shareds = [_shared(b, format_id) for b in books]
    first = shareds[0]
    shared = first if (isinstance(first, dict) and first.get("key") and all(
        isinstance(s, dict) and s.get("key") == first["key"] for s in shareds)) else None
    source = package_json(shared)
    warnings: list[str] = []
    losses = [LossReport() for _ in books]
    package_id = None if source is not None else new_id()
    from bunzai.sdk import Neutrality

    from . import VoxtaLorebookAdapter

    writer = BookWriter(package_id if shared is None else None, warnings, format_id,
                        Neutrality(VoxtaLorebookAdapter.neutral))
    written = [writer.write(book, loss, "") for book, loss in zip(books, losses, strict=True)]
    linked = [i for ids in written for i in ids]
    produced: dict[str, bytes] = {}
    if source is not None:
        value, style = source
        produced["package.json"] = dumps(value, style or DOTNET)
    elif shared is None and package_id and linked:
        produced["package.json"] = dumps(_new_package(books[0], linked[0], package_id))
    for obj, style, path in writer.books.values():
        produced[path] = dumps(obj, style)
    carried = carried_members(books, format_id)
    names = shared.get("names") if shared else None
    firsts = [writer.books[ids[0]][2] for ids in written if ids and ids[0] in writer.books]
    entries = assemble(names if isinstance(names, list) else [], produced, carried, firsts)
    data = build_zip(entries, dirs=bool(shared and shared.get("dirs")),
                     comment=shared.get("comment", COMMENT) if shared else COMMENT, like=books)
    _report_members(books, written, [n for n, _ in entries], set(carried), losses, format_id)
    loss = LossReport()
    for i, report in enumerate(losses):
        loss.extend(report, f"[{i}]." if len(books) > 1 else "")
    return WriteResult([OutputFile(data, SUFFIX)], loss, warnings)


def _report_members(books: list[Lorebook], written: list[list[str]], names: list[str],
                    carried: set[str], losses: list[LossReport], fmt: str) -> None:
    """The package members no book holds are read with the first book in the package."""
    first = next((m[1] for n in names if (m := BOOK_JSON.match(n))), None)
    holder = next((i for i, ids in enumerate(written) if first in ids), 0)
    kept = {n for n in names if n in carried}
    for i, book in enumerate(books):
        data = book.app_data.get(fmt)
        mine = {k for k in data if is_member(k)} if isinstance(data, dict) else set()
        for key in sorted(mine ^ (kept if i == holder else set())):
            losses[i].approximated(f"app_data.{fmt}.{key}", "a package's other members are "
                                   "read with its first book")


def _new_package(book: Lorebook, book_id: str, package_id: str) -> dict[str, Any]:
    obj: dict[str, Any] = {"$type": "package", "ExplicitContent": False,
                           "EntryResource": {"Kind": 2, "Id": book_id},
                           "Name": book.name or "Memory book", "Version": "1.0.0",
                           "Id": package_id}
    return ordered(obj, None, PACKAGE_ORDER)

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
from .._common.jsonfmt import dumps
from .._common.package import (
    BOOK_JSON,
    PACKAGE_ORDER,
    SUFFIX,
    is_member,
    pack,
    shared_layout,
    source_package_json,
)
from .._common.util import new_id, ordered

if TYPE_CHECKING:
    from bunzai.sdk import Lorebook


def write_book_package(entities: Sequence[Lorebook], options: Mapping[str, Any],
                       format_id: str) -> WriteResult:
    books = list(entities)
    shared = shared_layout(books, format_id)
    source = source_package_json(shared)
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
        produced["package.json"] = source[1]
    elif shared is None and package_id and linked:
        produced["package.json"] = dumps(_new_package(books[0], linked[0], package_id))
    for obj, style, path in writer.books.values():
        produced[path] = dumps(obj, style)
    firsts = [writer.books[ids[0]][2] for ids in written if ids and ids[0] in writer.books]
    data, names, kept = pack(shared, produced, books, format_id, firsts)
    _report_members(books, written, names, kept, losses, format_id)
    loss = LossReport()
    for i, report in enumerate(losses):
        loss.extend(report, f"[{i}]." if len(books) > 1 else "")
    return WriteResult([OutputFile(data, SUFFIX)], loss, warnings)


def _report_members(books: list[Lorebook], written: list[list[str]], names: list[str],
                    kept: set[str], losses: list[LossReport], fmt: str) -> None:
    """The package members no book holds are read with the first book in the package
    (``kept``: the members written that the books carried)."""
    first = next((m[1] for n in names if (m := BOOK_JSON.match(n))), None)
    holder = next((i for i, ids in enumerate(written) if first in ids), 0)
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

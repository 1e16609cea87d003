"""Writing lorebooks as a Voxta package of memory books (``Books/<id>/book.json`` each).

Books read from one package are written back as that package (its ``package.json`` and every
other member included), with the same ids, key order and JSON dialect.  Lorebooks from another
format become new books with fresh ids in a new package whose entry resource is the first book.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from bunzai.loss import LossReport
from bunzai.types import OutputFile, WriteResult

from .._common.book import BookWriter
from .._common.jsonfmt import DOTNET, dumps
from .._common.package import COMMENT, assemble, build_zip, package_json
from .._common.util import new_id, ordered
from .read import FMT

if TYPE_CHECKING:
    from bunzai.model import Lorebook

SUFFIX = ".voxpkg"
PACKAGE_ORDER = ("$type", "Description", "Creator", "ExplicitContent", "EntryResource",
                 "ThumbnailResource", "Name", "Version", "DateCreated", "DateModified", "Id")


def _pt(book: Any) -> dict[str, Any]:
    value = book.passthrough.get(FMT)
    return value if isinstance(value, dict) else {}


def write_book_package(entities: Sequence[Lorebook], options: Mapping[str, Any]
                       ) -> WriteResult:
    books = list(entities)
    shareds = [_pt(b).get("shared") for b in books]
    first = shareds[0]
    shared = first if (isinstance(first, dict) and first.get("key") and all(
        isinstance(s, dict) and s.get("key") == first["key"] for s in shareds)) else None
    source = package_json(shared)
    warnings: list[str] = []
    losses = [LossReport() for _ in books]
    package_id = None if source is not None else new_id()
    writer = BookWriter(package_id if shared is None else None, warnings, FMT)
    written: list[list[str]] = []
    for book, loss in zip(books, losses, strict=True):
        written.append(writer.write(book, loss, ""))
    linked = [i for ids in written for i in ids]
    produced: dict[str, bytes] = {}
    if source is not None:
        value, style = source
        produced["package.json"] = dumps(value, style or DOTNET)
    elif shared is None and package_id and linked:
        produced["package.json"] = dumps(_new_package(books[0], linked[0], package_id))
    for obj, style, path in writer.books.values():
        produced[path] = dumps(obj, style)
    extra: dict[str, Any] = {}
    carried: dict[str, Any] = {}
    for book in books:
        pt = _pt(book)
        s = pt.get("shared")
        if isinstance(s, dict) and isinstance(s.get("carried"), dict) and isinstance(
                pt.get("extra"), dict):
            carried.update(s["carried"])
            extra.update((k, v) for k, v in pt["extra"].items() if k in s["carried"])
    layout = shared or ({"names": [*produced, *carried], "carried": carried} if carried
                        else None)
    data = build_zip(assemble(layout, extra, produced),
                     dirs=bool(shared and shared.get("dirs")),
                     comment=shared.get("comment", COMMENT) if shared else COMMENT)
    _check(books, written, data, losses)
    loss = LossReport()
    for i, report in enumerate(losses):
        loss.extend(report, f"[{i}]." if len(books) > 1 else "")
    return WriteResult([OutputFile(data, SUFFIX)], loss, warnings)


def _new_package(book: Lorebook, book_id: str, package_id: str) -> dict[str, Any]:
    obj: dict[str, Any] = {"$type": "package", "ExplicitContent": False,
                           "EntryResource": {"Kind": 2, "Id": book_id},
                           "Name": book.name or "Memory book", "Version": "1.0.0",
                           "Id": package_id}
    return ordered(obj, None, PACKAGE_ORDER)


def _check(books: list[Lorebook], written: list[list[str]], data: bytes,
           losses: list[LossReport]) -> None:
    """Read the package back and report every canonical difference not yet reported."""
    from bunzai.compare import diff_paths
    from bunzai.input import AdapterInput

    from .read import read_book_package

    back: dict[Any, Lorebook] = {}
    for again in read_book_package(AdapterInput(data, "check.voxpkg"), {}).entities:
        records = _pt(again).get("books") or [{}]
        back[records[0].get("id")] = again  # type: ignore[assignment]
    for i, (book, ids) in enumerate(zip(books, written, strict=True)):
        found = back.get(ids[0]) if ids else None
        if found is None:
            losses[i].dropped("$", "the lorebook could not be written")
            continue
        for path in diff_paths(book, found):
            if not losses[i].covers(path):
                losses[i].approximated(path, "Voxta cannot hold this value exactly")

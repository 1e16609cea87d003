"""Reading the memory books of a Voxta package as lorebooks, one per ``Books/<id>/book.json``.

The mapping is shared with the ``voxta`` adapter (``_common/book.py``).  Members that are not
books (characters, scenarios, assets) are user data of the first book (``app_data``, by member
path); the package's layout (``package.json``, member order, the comment) is kept in
``passthrough``, so the books of one package are written back as that package.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from bunzai.sdk import Issue, MalformedInput, ReadResult

from .._common.book import read_books
from .._common.package import BOOK_JSON, open_package, scenario_issue, shared_record

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput, Lorebook


def read_book_package(input: AdapterInput, options: Mapping[str, Any], format_id: str
                      ) -> ReadResult:
    z, pkg, warnings = open_package(input, BOOK_JSON)
    if not pkg.books:
        raise MalformedInput("not a Voxta memory-book package: no Books/<id>/book.json")
    consumed = {m.path for m in pkg.books.values()}
    shared, carried = shared_record(input, z, pkg, consumed)
    if pkg.characters:
        warnings.append(Issue("$", f"{len(pkg.characters)} character(s) in the package are not "
                              "lorebooks (read the package as voxta for them); kept for a Voxta "
                              "rewrite"))
    warnings += [scenario_issue(scenario.path) for scenario in pkg.scenarios]
    out: list[Lorebook] = []
    for index, member in enumerate(pkg.books.values()):
        book = read_books([member], warnings, format_id)
        assert book is not None
        book.passthrough[format_id]["shared"] = shared
        if index == 0 and carried:
            book.app_data.setdefault(format_id, {}).update(carried)
        out.append(book)
    return ReadResult(list(out), warnings)

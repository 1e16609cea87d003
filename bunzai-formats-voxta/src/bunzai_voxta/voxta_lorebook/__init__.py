"""``voxta-lorebook``: the memory books of a Voxta package as standalone lorebooks.

Import-light: detection looks only at the shared zip listing and the parsed ``book.json``; the
reader and writer are imported when used.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from bunzai.sdk import Detection, FormatAdapter

from .._common.neutral import BOOK_NEUTRAL

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput

_BOOK = re.compile(r"^(?:Books|MemoryBooks)/[^/]+/book\.json$")
_CHARACTER = re.compile(r"^Characters/[^/]+/character\.json$")


class VoxtaLorebookAdapter(FormatAdapter):
    """Voxta memory books: a package of ``Books/<id>/book.json``, one lorebook each."""

    format_id = "voxta-lorebook"
    kind = "lorebook"
    label = "Voxta memory books (.voxpkg)"
    suffix = ".voxpkg"
    multi = True
    aliases = ("voxta-book", "voxta-books")
    signature = {"zip": ("Books/", "MemoryBooks/"), "jpeg+zip": ("Books/", "MemoryBooks/")}
    detection = (
        ("zip with Books/<id>/book.json whose $type is book and no character", 0.95),
        ("zip with Books/<id>/book.json holding Items, without Voxta's $type", 0.7),
        ("zip with Books/<id>/book.json that is not a book object (read says what is wrong)",
         0.55),
        ("the memory books of a Voxta character package (that is the voxta format's file; "
         "--from voxta-lorebook reads its books)", 0.3),
        ("anything else", 0.0),
    )
    losses = (
        ("entries[].priority", "written as Voxta's Weight, a whole number"),
        ("name", "a book needs one: 'Memory book' when the lorebook has none (approximated)"),
    )
    carries = ("name", "description", "entries[*].keys", "entries[*].content",
               "entries[*].enabled", "entries[*].priority")
    reasons = (
        *((f, "Voxta memory books have no such setting")
          for f in ("scan_depth", "token_budget", "recursive_scanning", "extensions")),
        ("entries[*]", "Voxta memory-book items hold only keywords, text, a weight and a "
                       "deleted flag"),
    )
    neutral = tuple((f"app_data.voxta-lorebook.{key}", (value,))
                    for key, value in BOOK_NEUTRAL.items())
    """A book's settings when new."""
    reader = "read:read_book_package"
    writer = "write:write_book_package"

    def detect(self, input: AdapterInput) -> Detection:
        z = input.zip
        if z is None:
            return Detection(0.0)
        names = z.names()
        books = [n for n in names if _BOOK.match(n)]
        if not books:
            return Detection(0.0)
        if any(_CHARACTER.match(n) for n in names):
            return Detection(0.3, f"{len(books)} memory book(s) of a Voxta character package")
        value = input.zip_json(books[0])
        if isinstance(value, Mapping) and value.get("$type") == "book":
            return Detection(0.95, f"Voxta package of {len(books)} memory book(s)")
        if isinstance(value, Mapping) and isinstance(value.get("Items"), Sequence):
            return Detection(0.7, "Books/<id>/book.json holds Items but no Voxta $type")
        return Detection(0.55, f"{books[0]} is not a memory-book object")

"""``agnai-memory``: Agnaistic memory books (the Memory page's download)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bunzai.sdk import FormatAdapter, detect_json

from .._common.options import indent_option
from .._common.paths import MEMORY_ENTRY_FIELDS, book, memory_neutral
from .._common.runs import AGNAI_MEMORY

_SAMPLE = 32


def _agnai_entries(entries: Any) -> bool:
    """Entries in Agnai's own vocabulary: ``entry`` text and a ``keywords`` list."""
    if not isinstance(entries, Sequence) or isinstance(entries, str) or not entries:
        return False
    items = [entries[i] for i in range(min(len(entries), _SAMPLE))]
    return all(isinstance(e, Mapping) and isinstance(e.get("keywords"), Sequence)
               and not isinstance(e.get("keywords"), str) and isinstance(e.get("entry"), str)
               for e in items)


def score(data: Any) -> tuple[float, str]:
    if not isinstance(data, Mapping) or "schema_version" in data:
        return 0.0, ""
    entries = data.get("entries")
    if data.get("kind") == "memory":
        if isinstance(entries, Sequence) and not isinstance(entries, str):
            return 0.95, "Agnai memory book (kind: memory)"
        return 0.0, ""
    if "kind" not in data and "spec" not in data and _agnai_entries(entries):
        return 0.7, "memory-book entries (entry text, keywords) without kind"
    return 0.0, ""


class AgnaiMemoryAdapter(FormatAdapter):
    """Agnaistic memory books: named entries with keywords, priority and weight."""

    format_id = "agnai-memory"
    kind = "lorebook"
    runs = AGNAI_MEMORY
    label = "Agnai memory book"
    aliases = ("memory", "agnai-book")
    options = (indent_option(2, "JSON indent; 0 is compact"),)
    signature = {"json": ("entries",)}
    detection = (
        ("object with kind 'memory' and an entries array", 0.95),
        ("no kind, entries with entry text and a keywords list", 0.7),
        ("anything else (World Info, V2 books, cards, canonical JSON)", 0.0),
    )
    carries = book("", MEMORY_ENTRY_FIELDS)
    reasons = (
        ("entries[*]", "Agnai memory entries have no such setting"),
        ("entries[*].case_sensitive", "Agnai ignores case sensitivity (its import drops it)"),
        ("entries[*].extensions", "Agnai empties an entry's extensions on import"),
        ("entries[*].folder", "Agnai memory books have no folders"),
        ("entries[*].is_folder", "Agnai memory books have no folders"),
    )
    neutral = memory_neutral("", "agnai-memory")

    reader = "read:read_book"
    writer = "write:write_book"

    detect = detect_json(score)

"""Agnai memory book <-> canonical Lorebook, shared by standalone books and a character's
embedded ``characterBook`` (specs §10.2-10.3).

Agnai's own names come first (``entry``, ``keywords``, ``weight``); the V2 names some tools
write beside them (``content``, ``keys``, ``insertion_order``) are second spellings, regenerated
when they agree and kept as they were when not.  Fields Agnai keeps for V2 round trips
(``id``, ``comment``, ``secondaryKeys``, ``constant``, ``position``, ``probability`` …) map to
their canonical fields; everything else a canonical entry can hold is reported as lost.
"""

from __future__ import annotations

import copy
from typing import TYPE_CHECKING, Any

from bunzai.errors import MalformedInput
from bunzai.loss import LossReport
from bunzai.model.lorebook import POSITIONS, SELECTIVE_LOGIC
from bunzai.types import Issue

from .._fieldmap import (
    BOOL,
    DICT,
    ID,
    INT,
    NUM,
    STRLIST,
    Bad,
    Conv,
    Table,
    enum,
    field,
    is_int,
    slot,
    type_name,
    unwritable,
)

if TYPE_CHECKING:
    from bunzai.model import Lorebook

MEMORY = "memory"
"""Key of the memory-book record inside ``passthrough[<format id>]``."""


def _position(x: Any) -> str:
    if isinstance(x, str):
        return x
    if is_int(x) and 0 <= x < len(POSITIONS):
        return POSITIONS[x]  # a SillyTavern number, as tools that copy ST entries write it
    raise Bad(f"unknown position {x!r}")


POSITION = Conv("position", _position)

ENTRY = Table((
    field("name"),
    field("content", "entry", "content", absent=""),
    field("keys", "keywords", "keys", conv=STRLIST, absent=[]),
    field("priority", conv=NUM),
    field("insertion_order", "weight", "insertion_order", conv=NUM),
    field("enabled", conv=BOOL, absent=True),
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
    field("case_sensitive", conv=BOOL, foreign=False),
    field("extensions", conv=DICT, absent={}, foreign=False),
))
"""One memory entry; ``case_sensitive`` and ``extensions`` are written only when the source
had them (Agnai drops both)."""

BOOK = Table((
    slot("kind"),
    slot("_id"),
    field("name"),
    field("description"),
    slot("userId"),
    field("scan_depth", "scanDepth", "scan_depth", conv=INT),
    field("token_budget", "tokenBudget", "token_budget", conv=INT),
    field("recursive_scanning", "recursiveScanning", "recursive_scanning", conv=BOOL),
    field("extensions", conv=DICT, absent={}, omit_empty=True),
))


def read_memory_book(obj: dict[str, Any], *, format_id: str, warnings: list[Issue],
                     path: str = "$") -> Lorebook:
    from bunzai.model import Lorebook, LorebookEntry

    entries_raw = obj.get("entries")
    if not isinstance(entries_raw, list):
        raise MalformedInput(f"{path}.entries is {type_name(entries_raw)}; a memory book "
                             "needs an array of entries")
    values, rec = BOOK.read(obj, path, warnings, skip=("entries",))
    entries = []
    strays = []
    for i, raw in enumerate(entries_raw):
        epath = f"{path}.entries[{i}]"
        if not isinstance(raw, dict):
            warnings.append(Issue(epath, f"{type_name(raw)} is not an entry; kept as it was"))
            strays.append([i, copy.deepcopy(raw)])
            continue
        evals, erec = ENTRY.read(raw, epath, warnings)
        entries.append(LorebookEntry(**evals, passthrough={format_id: {MEMORY: erec}}
                                     if erec else {}))
    if strays:
        rec["strays"] = strays
    return Lorebook(**values, entries=entries, passthrough={format_id: {MEMORY: rec}})


def _record(obj: Any, format_id: str) -> dict[str, Any] | None:
    mine = obj.passthrough.get(format_id)
    if isinstance(mine, dict) and isinstance(mine.get(MEMORY), dict):
        return mine[MEMORY]  # type: ignore[no-any-return]
    return None


def write_memory_book(book: Lorebook, *, format_id: str, loss: LossReport,
                      path: str = "") -> dict[str, Any]:
    """The memory book object; ``path`` prefixes loss paths (``lorebook`` when embedded)."""
    rec = _record(book, format_id)
    entries: list[Any] = []
    for i, entry in enumerate(book.entries):
        epath = f"{path}.entries[{i}]" if path else f"entries[{i}]"
        erec = _record(entry, format_id)
        overrides: dict[str, Any] = {}
        if erec is None and entry.name is None and entry.comment is not None:
            overrides["name"] = entry.comment  # Agnai titles entries by name
            loss.approximated(f"{epath}.name", "Agnai entries are titled by name; the comment "
                                               "is written as the name")
        for attr in unwritable(ENTRY, entry, erec, skip=("passthrough",)):
            loss.dropped(f"{epath}.{attr}", f"Agnai memory entries have no {attr}")

        def get(attr: str, entry: Any = entry, overrides: dict[str, Any] = overrides) -> Any:
            return overrides[attr] if attr in overrides else getattr(entry, attr)

        entries.append(ENTRY.write(get, erec, loss, epath))
    for pos, value in (rec or {}).get("strays") or ():
        entries.insert(min(int(pos), len(entries)), copy.deepcopy(value))
    out = BOOK.write(lambda a: getattr(book, a), rec, loss, path, tail={"entries": entries})
    if rec is None:
        out = {"kind": "memory", **out}
    return out

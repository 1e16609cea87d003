"""Reading and writing RisuAI lorebook exports."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from bunzai.errors import MalformedInput, UsageError
from bunzai.loss import LossReport
from bunzai.model import Lorebook
from bunzai.types import OutputFile, ReadResult, WriteResult

from .._common import envelope, lore
from .._common.diff import diff_paths
from .._common.values import Notes
from . import FORMAT_ID, shape_of

if TYPE_CHECKING:
    from bunzai.input import AdapterInput
    from bunzai.model import Entity

ENVELOPE = {"type": "risu", "ver": 1}
"""The envelope RisuAI writes around a lorebook export's entries."""


def read(input: AdapterInput) -> ReadResult:
    data = input.json_mutable()
    found = shape_of(data)
    if found is None:
        raise MalformedInput("not a RisuAI lorebook: expected {type: 'risu', data: [entries]} "
                             "or an array of RisuAI entries")
    notes = Notes()
    entries, pt = envelope.unwrap(data, found[0], input.data, ENVELOPE,
                                  lambda items, at: lore.read_entries(items, at, notes,
                                                                      FORMAT_ID))
    book = Lorebook(entries=entries)
    book.passthrough[FORMAT_ID] = pt
    return ReadResult([book], notes.warnings)


def write(entity: Entity, options: Mapping[str, Any]) -> WriteResult:
    if not isinstance(entity, Lorebook):
        raise UsageError(f"{FORMAT_ID} writes lorebooks, not a {entity.kind}")
    pt = entity.passthrough.get(FORMAT_ID) or {}
    loss = LossReport()
    data = lore.write_entries(entity.entries, FORMAT_ID, loss, "entries")
    empty = Lorebook()
    for p in diff_paths(entity.model_copy(update={"entries": []}), empty):
        loss.dropped(p, "a RisuAI lorebook export is a bare list of entries")
    warnings: list[str] = []
    out = envelope.wrap(data, pt, ENVELOPE, options, warnings)
    return WriteResult([OutputFile(out, ".json")], loss, warnings)

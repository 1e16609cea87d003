"""Reading and writing RisuAI lorebook exports."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from bunzai.sdk import Lorebook, LossReport, ReadResult, WriteResult

from .._common import envelope, lore
from . import shape_of

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput

ENVELOPE = {"type": "risu", "ver": 1}
"""The envelope RisuAI writes around a lorebook export's entries."""


def read(input: AdapterInput, options: Mapping[str, Any], format_id: str) -> ReadResult:
    entries, layout, warnings = envelope.read_export(
        input, shape_of, ENVELOPE, "not a RisuAI lorebook: expected {type: 'risu', data: "
        "[entries]} or an array of RisuAI entries", lore.read_entries, format_id)
    book = Lorebook(entries=entries)
    book.passthrough[format_id] = layout
    return ReadResult([book], warnings)


def write(entity: Lorebook, options: Mapping[str, Any], format_id: str) -> WriteResult:
    layout = entity.passthrough.get(format_id)
    loss = LossReport()
    data = lore.write_entries(entity.entries, format_id, loss, "entries")
    return envelope.write_export(data, layout if isinstance(layout, Mapping) else {}, ENVELOPE,
                                 options, loss)

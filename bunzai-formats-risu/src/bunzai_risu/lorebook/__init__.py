"""``risu-lorebook``: RisuAI lorebook exports and bare arrays of RisuAI lorebook entries."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from bunzai.sdk import FormatAdapter, Option

from .._common.declared import (
    ACTS_ON,
    BOOK_REASONS,
    ENTRY_CARRIED,
    ENTRY_REASONS,
    reasons_under,
    under,
)
from .._common.envelope import detected
from .._common.runs import RISU_LOREBOOK

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput

FORMAT_ID = "risu-lorebook"
RISU_ONLY_KEYS = ("insertorder", "secondkey", "alwaysActive", "mode")
"""Keys only RisuAI's internal entry has; one of them tells a bare entry array apart."""


def is_entry(item: Any) -> bool:
    """An object with RisuAI's ``key`` and ``content`` (wrong value types are read tolerantly)."""
    return isinstance(item, Mapping) and "key" in item and "content" in item


def shape_of(data: Any) -> tuple[str, float] | None:
    """(``export``/``array``, score) for RisuAI lorebook JSON, None otherwise."""
    if isinstance(data, Mapping):
        if data.get("type") != "risu":
            return None
        entries = data.get("data")
        # HypaV3 memory presets share the envelope with an object in ``data``: not ours.
        if not isinstance(entries, Sequence) or isinstance(entries, str):
            return None
        if not all(is_entry(e) for e in entries):
            return None
        return "export", 1.0 if data.get("ver") == 1 else 0.8
    if (isinstance(data, Sequence) and not isinstance(data, str) and data
            and all(is_entry(e) for e in data)
            and any(k in e for e in data for k in RISU_ONLY_KEYS)):
        return "array", 0.9
    return None


class RisuLorebookAdapter(FormatAdapter):
    """RisuAI lorebook: the ``{type: "risu", ver: 1, data: [...]}`` export or a bare entry array."""

    format_id = FORMAT_ID
    kind = "lorebook"
    runs = RISU_LOREBOOK
    label = "RisuAI lorebook export"
    options = (
        Option("array", bool, default=False,
               help="write a bare JSON array of entries instead of RisuAI's export envelope "
                    "(the default, also for bare sources: RisuAI imports only the envelope)"),
    )
    detection = (
        ("export envelope type 'risu', ver 1, data = list of entries with key/content",
         1.0),
        ("bare JSON array of entries with key/content and a RisuAI-only key "
         "(insertorder, secondkey, alwaysActive, mode)", 0.9),
        ("export envelope with another or no ver", 0.8),
        ("type 'risu' with an object in data (HypaV3 memory preset), anything else", 0.0),
    )
    signature = {"json": ("type", "[]")}
    acts_on = ACTS_ON
    carries = under("entries[*].", ENTRY_CARRIED)
    reasons = (*BOOK_REASONS, *reasons_under("entries[*].", ENTRY_REASONS))
    losses = (
        ("entries[*] depth, role, probability, delay, whole words, key logic, disabled",
         "written as @@decorators, which apps other than RisuAI show as text"),
        ("entries[*].keys with commas", "approximated: RisuAI joins keys with commas"),
    )
    reader = "io:read"
    writer = "io:write"

    def detect(self, input: AdapterInput) -> tuple[float, str]:
        return detected(input, shape_of, "RisuAI lorebook")

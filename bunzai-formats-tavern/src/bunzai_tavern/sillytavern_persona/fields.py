"""The persona descriptor (``persona_descriptions[<avatar>]``), specs §8.1."""

from __future__ import annotations

from .._fieldmap import DICTLIST, INT, Table, field

DESCRIPTOR = Table((
    field("description", absent=""),
    field("position", conv=INT),
    field("depth", conv=INT),
    field("role", conv=INT),
    field("lorebook"),
    field("title"),
    field("connections", conv=DICTLIST),
))

"""The persona descriptor (``persona_descriptions[<avatar>]``), specs §8.1."""

from __future__ import annotations

from bunzai.sdk.fields import DICTLIST, INT, Table, field

DESCRIPTOR = Table((
    field("description", absent=""),
    field("position", conv=INT),
    field("depth", conv=INT),
    field("role", conv=INT),
    field("lorebook"),
    field("title"),
    field("connections", conv=DICTLIST),
))

DESCRIPTOR_ATTRS = ("position", "depth", "role", "lorebook", "title", "connections")
"""The descriptor's fields besides the description."""

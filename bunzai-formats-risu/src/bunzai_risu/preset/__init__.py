"""``risu-preset``: RisuAI presets (``.risup``, and the older ``.risupreset``), read-only.

Reading is in ``read.py``.  Writing is left out: the file must be gzip-compressed the way
RisuAI's compressor does it for a rewrite to be the same bytes, and RisuAI's importer takes
SillyTavern chat-completion presets, which ``sillytavern-openai`` writes to its rules.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bunzai.sdk import Detection, FormatAdapter

from .._common import rpack

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput

GZIP = b"\x1f\x8b\x08"
PACKED_GZIP = rpack.encode(GZIP)


def score(input: AdapterInput) -> tuple[float, str]:
    if input.container not in ("binary", "gzip"):
        return 0.0, ""
    head = input.head(3)
    if head == PACKED_GZIP:
        if input.suffix == ".risup":
            return 0.92, "RisuAI preset (.risup: RPack over gzip)"
        return 0.35, "RPack over gzip without a .risup name"
    if head == GZIP and input.suffix == ".risupreset":
        return 0.9, "RisuAI preset (.risupreset: gzip)"
    return 0.0, ""


class RisuPresetAdapter(FormatAdapter):
    """RisuAI preset (read-only)."""

    format_id = "risu-preset"
    kind = "preset"
    label = "RisuAI preset (.risup)"
    suffix = ".risup"
    aliases = ("risup",)
    signature = {"binary": (), "gzip": ()}
    detection = (
        (".risup whose first bytes are gzip's under RPack", 0.92),
        (".risupreset that is gzip", 0.9),
        ("RPack over gzip without a .risup name", 0.35),
    )
    reader = "read:read_preset"

    def detect(self, input: AdapterInput) -> Detection:
        s, why = score(input)
        return Detection(s, why)

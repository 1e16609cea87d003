"""``sillytavern-novel``: SillyTavern presets for NovelAI (``NovelAI Settings/<name>.json``).

Reading and writing are the shared SillyTavern preset code (``_common/stpresets.py``, table
``NOVEL``); this module holds detection.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .._common.stpreset_adapter import StPresetAdapter, reasons_for


class SillyTavernNovelAdapter(StPresetAdapter):
    """SillyTavern NovelAI preset."""

    format_id = "sillytavern-novel"
    label = "SillyTavern NovelAI preset"
    aliases = ("st-novel",)
    signature = {"json": ("order",)}
    table = "NOVEL"
    section = "sampling"
    detection = (("an order list with tail_free_sampling, phrase_rep_pen or "
                  "repetition_penalty_range", 0.85),)
    reasons = reasons_for("a SillyTavern NovelAI preset", ('sampling',))

    def score(self, data: Any) -> tuple[float, str]:
        if not isinstance(data, Mapping) or "temp" in data \
                or not isinstance(data.get("order"), Sequence):
            return 0.0, ""
        if any(k in data for k in ("tail_free_sampling", "phrase_rep_pen",
                                   "repetition_penalty_range")):
            return 0.85, "SillyTavern NovelAI preset (order, NovelAI's sampler keys)"
        return 0.0, ""


SillyTavernNovelAdapter.carries = SillyTavernNovelAdapter.carried()

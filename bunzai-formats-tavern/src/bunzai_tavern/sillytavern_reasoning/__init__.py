"""``sillytavern-reasoning``: SillyTavern reasoning formatting (``reasoning/<name>.json``): prefix,
suffix, separator.

Reading and writing are the shared SillyTavern preset code (``_common/stpresets.py``, table
``REASONING``); this module holds detection.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._common.stpreset_adapter import StPresetAdapter, reasons_for


class SillyTavernReasoningAdapter(StPresetAdapter):
    """SillyTavern reasoning template."""

    format_id = "sillytavern-reasoning"
    label = "SillyTavern reasoning template"
    aliases = ("st-reasoning",)
    signature = {"json": ("prefix",)}
    table = "REASONING"
    section = "reasoning"
    detection = (("object of only name, prefix, suffix and separator", 0.85),)
    reasons = reasons_for("a SillyTavern reasoning template", ('reasoning',))

    def score(self, data: Any) -> tuple[float, str]:
        if not isinstance(data, Mapping):
            return 0.0, ""
        if isinstance(data.get("prefix"), str) and isinstance(data.get("suffix"), str) \
                and set(data) <= {"name", "prefix", "suffix", "separator"}:
            return 0.85, "SillyTavern reasoning template (prefix, suffix, separator)"
        return 0.0, ""


SillyTavernReasoningAdapter.carries = SillyTavernReasoningAdapter.carried()

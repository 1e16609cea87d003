"""``sillytavern-kobold``: SillyTavern presets for KoboldAI and KoboldCpp (``KoboldAI
Settings/<name>.json``).

Reading and writing are the shared SillyTavern preset code (``_common/stpresets.py``, table
``KOBOLD``); this module holds detection.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._common.stpreset_adapter import StPresetAdapter, reasons_for


class SillyTavernKoboldAdapter(StPresetAdapter):
    """SillyTavern KoboldAI preset."""

    format_id = "sillytavern-kobold"
    label = "SillyTavern KoboldAI preset"
    aliases = ("st-kobold",)
    signature = {"json": ("temp",)}
    table = "KOBOLD"
    section = "sampling"
    detection = (("temp and rep_pen with typical (not typical_p)", 0.85),)
    reasons = reasons_for("a SillyTavern KoboldAI preset", ('sampling',))

    def score(self, data: Any) -> tuple[float, str]:
        if not isinstance(data, Mapping) or "temp" not in data or "rep_pen" not in data:
            return 0.0, ""
        if "typical" in data and "typical_p" not in data:
            return 0.85, "SillyTavern KoboldAI preset (temp, rep_pen, typical)"
        return 0.0, ""


SillyTavernKoboldAdapter.carries = SillyTavernKoboldAdapter.carried()

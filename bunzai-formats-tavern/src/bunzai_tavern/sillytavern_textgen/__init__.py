"""``sillytavern-textgen``: SillyTavern text-completion presets for text-generation-webui and the
other text-generation APIs (``TextGen Settings/<name>.json``).

Reading and writing are the shared SillyTavern preset code (``_common/stpresets.py``, table
``TEXTGEN``); this module holds detection.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._common.stpreset_adapter import StPresetAdapter, reasons_for


class SillyTavernTextGenAdapter(StPresetAdapter):
    """SillyTavern text-completion preset."""

    format_id = "sillytavern-textgen"
    label = "SillyTavern text-completion preset"
    aliases = ("st-textgen",)
    signature = {"json": ("temp",)}
    table = "TEXTGEN"
    section = "sampling"
    detection = (("temp and rep_pen with typical_p, sampler_priority or temperature_last", 0.85),
                 ("temp and rep_pen alone", 0.5))
    reasons = reasons_for("a SillyTavern text-completion preset", ('sampling',))

    def score(self, data: Any) -> tuple[float, str]:
        if not isinstance(data, Mapping) or "temp" not in data or "rep_pen" not in data:
            return 0.0, ""
        if "typical" in data:
            return 0.0, ""
        if any(k in data for k in ("typical_p", "sampler_priority", "temperature_last")):
            return 0.85, "SillyTavern text-completion preset (temp, rep_pen, typical_p)"
        return 0.5, "temp and rep_pen without another text-generation key"


SillyTavernTextGenAdapter.carries = SillyTavernTextGenAdapter.carried()

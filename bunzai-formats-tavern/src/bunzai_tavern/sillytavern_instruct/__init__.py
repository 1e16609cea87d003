"""``sillytavern-instruct``: SillyTavern instruct templates (``instruct/<name>.json``): the
sequences around each message.

Reading and writing are the shared SillyTavern preset code (``_common/stpresets.py``, table
``INSTRUCT``); this module holds detection.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._common.stpreset_adapter import StPresetAdapter, reasons_for


class SillyTavernInstructAdapter(StPresetAdapter):
    """SillyTavern instruct template."""

    format_id = "sillytavern-instruct"
    label = "SillyTavern instruct template"
    aliases = ("st-instruct",)
    signature = {"json": ("input_sequence",)}
    table = "INSTRUCT"
    section = "instruct"
    detection = (("object with string input_sequence and output_sequence", 0.9),)
    reasons = reasons_for("a SillyTavern instruct template", ('instruct',))

    def score(self, data: Any) -> tuple[float, str]:
        if not isinstance(data, Mapping):
            return 0.0, ""
        if isinstance(data.get("input_sequence"), str) \
                and isinstance(data.get("output_sequence"), str) and "story_string" not in data:
            return 0.9, "SillyTavern instruct template (input_sequence, output_sequence)"
        return 0.0, ""


SillyTavernInstructAdapter.carries = SillyTavernInstructAdapter.carried()

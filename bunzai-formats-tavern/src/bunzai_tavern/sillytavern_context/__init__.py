"""``sillytavern-context``: SillyTavern context templates (``context/<name>.json``): the story
string and its separators.

Reading and writing are the shared SillyTavern preset code (``_common/stpresets.py``, table
``CONTEXT``); this module holds detection.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._common.stpreset_adapter import StPresetAdapter, reasons_for


class SillyTavernContextAdapter(StPresetAdapter):
    """SillyTavern context template."""

    format_id = "sillytavern-context"
    label = "SillyTavern context template"
    aliases = ("st-context",)
    signature = {"json": ("story_string",)}
    table = "CONTEXT"
    section = "context"
    detection = (("object with a string story_string", 0.9),)
    reasons = reasons_for("a SillyTavern context template", ('context',))

    def score(self, data: Any) -> tuple[float, str]:
        if not isinstance(data, Mapping):
            return 0.0, ""
        if isinstance(data.get("story_string"), str) and "input_sequence" not in data:
            return 0.9, "SillyTavern context template (story_string)"
        return 0.0, ""


SillyTavernContextAdapter.carries = SillyTavernContextAdapter.carried()

"""``sillytavern-sysprompt``: SillyTavern system prompts (``sysprompt/<name>.json``): name,
content, post-history instructions.

Reading and writing are the shared SillyTavern preset code (``_common/stpresets.py``, table
``SYSPROMPT``); this module holds detection.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from .._common.stpreset_adapter import StPresetAdapter, reasons_for


class SillyTavernSysPromptAdapter(StPresetAdapter):
    """SillyTavern system prompt."""

    format_id = "sillytavern-sysprompt"
    label = "SillyTavern system prompt"
    aliases = ("st-sysprompt",)
    signature = {"json": ("content",)}
    table = "SYSPROMPT"
    section = "system_prompt"
    detection = (("object of only name, content and post_history", 0.85),
                 ("object of only content and post_history", 0.6))
    reasons = reasons_for("a SillyTavern system prompt", ('system_prompt',))

    def score(self, data: Any) -> tuple[float, str]:
        if not isinstance(data, Mapping) or not isinstance(data.get("content"), str):
            return 0.0, ""
        keys = set(data)
        if keys <= {"name", "content", "post_history"} and isinstance(data.get("name"), str):
            return 0.85, "SillyTavern system prompt (name, content)"
        if keys <= {"content", "post_history"}:
            return 0.6, "a system prompt without a name"
        return 0.0, ""


SillyTavernSysPromptAdapter.carries = SillyTavernSysPromptAdapter.carried()

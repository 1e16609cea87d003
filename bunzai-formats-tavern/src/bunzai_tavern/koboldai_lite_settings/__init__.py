"""``koboldai-lite-settings``: KoboldAI Lite's generation settings (``savedsettings``), from a
settings file or, asked for by name, from a whole save.

Reading and writing are in ``io.py``; this module holds detection.  A whole save is a chat
first (``koboldai-lite``, 0.95): this format scores it below that, so its settings are read
with ``--from koboldai-lite-settings``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from bunzai.sdk import Detection, FormatAdapter

from .._common.options import indent_option
from .._common.stpreset_adapter import reasons_for

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput


def score(data: Any) -> tuple[float, str]:
    if not isinstance(data, Mapping) or not isinstance(data.get("savedsettings"), Mapping):
        return 0.0, ""
    if "prompt" in data or "actions" in data:
        return 0.3, "KoboldAI Lite save: its settings (the story is read as a chat)"
    return 0.93, "KoboldAI Lite settings (a savedsettings object alone)"


class KoboldAILiteSettingsAdapter(FormatAdapter):
    """KoboldAI Lite generation settings."""

    format_id = "koboldai-lite-settings"
    kind = "preset"
    label = "KoboldAI Lite settings"
    suffix = ".json"
    aliases = ("kobold-lite-settings",)
    signature = {"json": ("savedsettings",)}
    detection = (
        ("an object with savedsettings and no story (a settings file)", 0.93),
        ("a whole Lite save (its settings, read when asked for by name)", 0.3),
    )
    reasons = reasons_for("KoboldAI Lite settings",
                          ("sampling", "instruct", "system_prompt", "reasoning"))
    reader = "io:read_settings"
    writer = "io:write_settings"
    options = (indent_option(0, "JSON indent (Lite saves on one line); 0 is compact"),)

    def detect(self, input: AdapterInput) -> Detection:
        s, why = score(input.json)
        return Detection(s, why)


def _carried() -> tuple[str, ...]:
    from .io import CARRIED

    return CARRIED


KoboldAILiteSettingsAdapter.carries = _carried()

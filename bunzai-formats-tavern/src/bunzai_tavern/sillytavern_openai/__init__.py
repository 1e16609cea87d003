"""``sillytavern-openai``: SillyTavern chat-completion presets (``OpenAI Settings/<name>.json``).

Samplers and utility prompts map by the shared table (``OPENAI``); the prompt manager's prompts
and their per-character order are read here (``io.py``).  Connection settings (source, model
names, proxy) say which service to call, not how to prompt it: they stay the preset's app data.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from .._common.stpreset_adapter import StPresetAdapter, reasons_for


def _seq(x: Any) -> bool:
    return isinstance(x, Sequence) and not isinstance(x, str | bytes)


class SillyTavernOpenAIAdapter(StPresetAdapter):
    """SillyTavern chat-completion preset."""

    format_id = "sillytavern-openai"
    label = "SillyTavern chat-completion preset"
    aliases = ("st-openai",)
    signature = {"json": ("prompts", "chat_completion_source", "openai_max_context")}
    table = "OPENAI"
    section = "chat_completion"
    detection = (
        ("prompts and prompt_order lists (the prompt manager)", 0.9),
        ("chat_completion_source or openai_max_context without a prompt list", 0.7),
    )
    reasons = reasons_for("a SillyTavern chat-completion preset", ("sampling",
                                                                    "chat_completion"))

    def score(self, data: Any) -> tuple[float, str]:
        if not isinstance(data, Mapping):
            return 0.0, ""
        if _seq(data.get("prompts")) and _seq(data.get("prompt_order")):
            return 0.9, "SillyTavern chat-completion preset (prompts, prompt_order)"
        if "chat_completion_source" in data or "openai_max_context" in data:
            return 0.7, "SillyTavern chat-completion settings without a prompt list"
        return 0.0, ""

    def read(self, input: Any, options: Mapping[str, Any]) -> Any:
        from .io import read_openai

        return read_openai(input, self.format_id)

    def write(self, entity: Any, options: Mapping[str, Any]) -> Any:
        from .io import write_openai

        return write_openai(entity, options, self.format_id)


SillyTavernOpenAIAdapter.carries = (*SillyTavernOpenAIAdapter.carried(),
                                    "chat_completion.prompts", "chat_completion.prompt_order")

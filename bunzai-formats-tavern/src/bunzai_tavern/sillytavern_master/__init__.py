"""``sillytavern-master``: SillyTavern's master export (Advanced Formatting > Master Export).

One object bundling the selected instruct template (``instruct``), context template
(``context``), system prompt (``sysprompt``), text-completion preset (``preset``) and, in newer
versions, reasoning formatting (``reasoning``); each part keeps its own name
(``Preset.names``).  Reading and writing are ``io.py``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bunzai.sdk import Detection, FormatAdapter

from .._common.options import indent_option

PARTS = ("instruct", "context", "sysprompt", "preset", "reasoning")


class SillyTavernMasterAdapter(FormatAdapter):
    """SillyTavern master export."""

    format_id = "sillytavern-master"
    kind = "preset"
    label = "SillyTavern master export"
    suffix = ".json"
    aliases = ("st-master",)
    signature = {"json": ("instruct", "context", "sysprompt", "preset", "reasoning")}
    options = (indent_option(4, "JSON indent (SillyTavern exports with 4); 0 is compact"),)
    detection = (("object whose keys are only instruct, context, sysprompt, preset and "
                  "reasoning, each an object", 0.9),)
    reasons = (("chat_completion", "a master export holds no chat-completion prompt list "
                                   "(SillyTavern exports those as their own preset)"),)

    def detect(self, input: Any) -> Detection:
        data = input.json
        if isinstance(data, Mapping) and data and set(data) <= set(PARTS) \
                and all(isinstance(v, Mapping) for v in data.values()):
            return Detection(0.9, f"SillyTavern master export ({', '.join(data)})")
        return Detection(0.0, "")

    def read(self, input: Any, options: Mapping[str, Any]) -> Any:
        from .io import read_master

        return read_master(input, self.format_id)

    def write(self, entity: Any, options: Mapping[str, Any]) -> Any:
        from .io import write_master

        return write_master(entity, options, self.format_id)


def _carries() -> tuple[str, ...]:
    from .._common import stpresets as st

    out: list[str] = ["name", "names"]
    for table in (st.INSTRUCT, st.CONTEXT, st.SYSPROMPT, st.TEXTGEN, st.REASONING):
        out += [a for a in table.attrs() if a not in out]
    return tuple(out)


SillyTavernMasterAdapter.carries = _carries()

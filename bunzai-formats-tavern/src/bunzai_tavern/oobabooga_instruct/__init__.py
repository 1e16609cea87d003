"""``oobabooga-instruct``: text-generation-webui instruction templates, in the Jinja shape
(``instruction_template``) and the 2023 shape (``user``, ``bot``, ``turn_template``,
``context``).

Reading and writing are in ``io.py``; the template becomes instruct sequences through
``_common/chat_template.py``.  This module holds detection; the prompt renderer is every
chat-template adapter's (``_common/template_adapter.py``).
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from .._common.stpreset_adapter import reasons_for
from .._common.template_adapter import TemplateAdapter

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput

_JINJA = re.compile(rb"^instruction_template:", re.M)
_LEGACY = re.compile(rb"^turn_template:", re.M)


def score(input: AdapterInput) -> tuple[float, str]:
    if input.container != "text" or input.suffix not in ("", ".yaml", ".yml") \
            or input.size > 1 << 20:
        return 0.0, ""
    data = input.data
    if _JINJA.search(data):
        return 0.91, "text-generation-webui instruction template (instruction_template)"
    if _LEGACY.search(data) and b"<|user-message|>" in data:
        return 0.89, "text-generation-webui 2023 instruction template (turn_template)"
    return 0.0, ""


class OobaboogaInstructAdapter(TemplateAdapter):
    """text-generation-webui instruction template."""

    format_id = "oobabooga-instruct"
    label = "text-generation-webui instruction template"
    suffix = ".yaml"
    aliases = ("ooba-instruct", "textgen-webui-instruct")
    signature = {"text": ()}
    detection = (
        ("YAML with an instruction_template key (Jinja)", 0.91),
        ("YAML with turn_template holding <|user-message|> (2023)", 0.89),
    )
    reasons = reasons_for("a text-generation-webui instruction template",
                          ("instruct", "system_prompt"))

    score = staticmethod(score)

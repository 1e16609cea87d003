"""``hf-chat-template``: Hugging Face chat templates, from a ``tokenizer_config.json`` or a
``chat_template.jinja`` file.

Reading and writing are in ``io.py``; the template becomes instruct sequences through
``_common/chat_template.py``.  This module holds detection; the prompt renderer is every
chat-template adapter's (``_common/template_adapter.py``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from .._common.options import indent_option
from .._common.stpreset_adapter import reasons_for
from .._common.template_adapter import TemplateAdapter

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput


def score(input: AdapterInput) -> tuple[float, str]:
    container = input.container
    if container == "json":
        doc = input.json
        got = doc.get("chat_template") if isinstance(doc, Mapping) else None
        if isinstance(got, str) or (isinstance(got, Sequence) and got
                                    and all(isinstance(t, Mapping) for t in got)):
            return 0.83, "Hugging Face tokenizer_config.json with a chat_template"
        return 0.0, ""
    if container != "text" or input.size > 1 << 20:
        return 0.0, ""
    head = input.head(4096)
    if b"{%" not in head and b"{{" not in head:
        return 0.0, ""
    if b"messages" not in input.data:
        return 0.0, ""
    if input.suffix == ".jinja":
        return 0.79, "Jinja chat template (.jinja over messages)"
    if input.suffix in ("", ".j2", ".txt"):
        return 0.41, "Jinja text over messages"
    return 0.0, ""


class HFChatTemplateAdapter(TemplateAdapter):
    """Hugging Face chat template."""

    format_id = "hf-chat-template"
    label = "Hugging Face chat template"
    suffix = ".jinja"
    aliases = ("chat-template", "hf-template")
    signature = {"json": ("chat_template",), "text": ()}
    detection = (
        ("a JSON object with chat_template (tokenizer_config.json)", 0.83),
        ("a .jinja text with Jinja tags over messages", 0.79),
        ("Jinja tags over messages in a text without a .jinja name", 0.41),
    )
    reasons = reasons_for("a Hugging Face chat template", ("instruct", "system_prompt"))
    options = (indent_option(2, "JSON indent of a tokenizer_config.json (2 as saved by "
                                "transformers); 0 is compact"),)

    score = staticmethod(score)

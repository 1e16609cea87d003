"""``risu-regex``: RisuAI regex (custom script) exports and bare arrays of custom scripts."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from bunzai.sdk import FormatAdapter, Option

from .._common.declared import SCRIPT_CARRIED, SCRIPT_REASONS
from .._common.envelope import detected
from .._common.runs import RISU_REGEX

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput

FORMAT_ID = "risu-regex"


def is_script(item: Any) -> bool:
    return (isinstance(item, Mapping) and isinstance(item.get("in"), str)
            and isinstance(item.get("out"), str) and isinstance(item.get("type"), str))


def shape_of(data: Any) -> tuple[str, float] | None:
    """(``export``/``array``, score) for RisuAI regex JSON, None otherwise."""
    if isinstance(data, Mapping):
        scripts = data.get("data")
        if data.get("type") != "regex" or not isinstance(scripts, Sequence) or isinstance(
                scripts, str):
            return None
        if not all(is_script(s) for s in scripts):
            return None
        return "export", 1.0 if scripts else 0.9
    if (isinstance(data, Sequence) and not isinstance(data, str) and data
            and all(is_script(s) and "comment" in s for s in data)):
        return "array", 0.9
    return None


class RisuRegexAdapter(FormatAdapter):
    """RisuAI regex scripts: the ``{type: "regex", data: [...]}`` export or a bare script array."""

    format_id = FORMAT_ID
    kind = "regex"
    runs = RISU_REGEX
    label = "RisuAI regex export"
    multi = True
    options = (
        Option("array", bool, default=False,
               help="write a bare JSON array of scripts instead of RisuAI's export envelope "
                    "(the default, also for bare sources: RisuAI imports only the envelope)"),
    )
    detection = (
        ("export envelope type 'regex' with a list of {in, out, type} scripts", 1.0),
        ("export envelope type 'regex' with an empty list", 0.9),
        ("bare JSON array of {comment, in, out, type} scripts", 0.9),
        ("anything else (SillyTavern's scriptName/findRegex shape included)", 0.0),
    )
    signature = {"json": ("type", "[]")}
    carries = SCRIPT_CARRIED
    reasons = SCRIPT_REASONS
    losses = (
        ("placement / markdown_only / prompt_only", "approximated: a RisuAI script runs at one "
         "stage (editinput, editoutput, editprocess, editdisplay)"),
    )
    reader = "io:read"
    writer = "io:write"

    def detect(self, input: AdapterInput) -> tuple[float, str]:
        return detected(input, shape_of, "RisuAI regex scripts")

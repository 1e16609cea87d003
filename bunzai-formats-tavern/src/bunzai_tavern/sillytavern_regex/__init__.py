"""``sillytavern-regex``: SillyTavern regex script exports (one script, or an array of them).

The field mapping is core's (``bunzai.sdk.cards``), shared with character-scoped scripts in
``data.extensions.regex_scripts``; this folder adds the file shapes and detection.  Patterns are
data: nothing compiles or runs them.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bunzai.sdk import FormatAdapter, Option, detect_json

from .._common.options import indent_option
from .._common.runs import ST_REGEX

_SAMPLE = 64


def is_st_script(x: Any) -> bool:
    """An ST regex object: camelCase ``scriptName`` and a string ``findRegex``."""
    return (isinstance(x, Mapping) and isinstance(x.get("scriptName"), str)
            and isinstance(x.get("findRegex"), str))


def _weak_script(x: Any) -> bool:
    """``scriptName`` plus another ST regex key (a broken or partial export)."""
    return (isinstance(x, Mapping) and "scriptName" in x
            and any(k in x for k in ("findRegex", "replaceString", "placement", "trimStrings")))


def score(data: Any) -> tuple[float, str]:
    if isinstance(data, Mapping):
        if "script_name" in data or "find_regex" in data:
            return 0.0, ""  # TavernHelper's snake_case scripts: another app
        if is_st_script(data):
            return 0.9, "SillyTavern regex script (scriptName, findRegex)"
        if _weak_script(data):
            return 0.6, "SillyTavern regex script without a usable findRegex"
        return 0.0, ""
    if isinstance(data, Sequence) and not isinstance(data, str | bytes) and len(data) > 0:
        items = [data[i] for i in range(min(len(data), _SAMPLE))]
        if all(is_st_script(x) for x in items):
            return 0.9, f"array of {len(data)} SillyTavern regex script(s)"
        if all(_weak_script(x) or is_st_script(x) for x in items):
            return 0.6, "array of partial SillyTavern regex scripts"
    return 0.0, ""


class SillyTavernRegexAdapter(FormatAdapter):
    """SillyTavern regex scripts: one exported script, or an array of them."""

    format_id = "sillytavern-regex"
    kind = "regex"
    runs = ST_REGEX
    label = "SillyTavern regex script"
    multi = True
    aliases = ("regex", "json")
    options = (
        Option("split", bool, default=False,
               help="one file per script (what SillyTavern 1.12 imports) instead of one file, "
                    "an array when there are several scripts"),
        indent_option(4, "JSON indent (as SillyTavern exports); 0 is compact"),
    )
    signature = {"json": ("scriptName", "[]")}
    detection = (
        ("object with scriptName and a string findRegex", 0.9),
        ("array whose items all have scriptName and findRegex", 0.9),
        ("scriptName with other ST regex keys but no string findRegex", 0.6),
        ("TavernHelper snake_case scripts (script_name, find_regex)", 0.0),
        ("SillyTavern settings.json (read its global scripts with --from sillytavern-regex)",
         0.0),
    )
    carries = ("id", "name", "pattern", "flags", "replace", "trim_strings", "placement",
               "disabled", "markdown_only", "prompt_only", "run_on_edit", "substitute_regex",
               "min_depth", "max_depth")
    reasons = (("extensions", "SillyTavern regex scripts have no extensions"),)
    losses = (
        ("placement", "approximated: placements ST has no number for are left out"),
    )

    reader = "read:read_scripts"
    writer = "write:write_scripts"

    detect = detect_json(score)

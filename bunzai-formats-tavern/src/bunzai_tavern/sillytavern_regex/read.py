"""Reading one script, an array of scripts, or the global scripts of a settings.json."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from bunzai.sdk import Issue, MalformedInput, ReadResult, sniff_layout
from bunzai.sdk.cards import parse_st_regex
from bunzai.sdk.fields import type_name

from .._common.stsettings import is_settings, settings_regex

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput, RegexScript

CONTAINER = "container"
"""Key in a script's layout (``passthrough[<format id>]``): ``object``, ``array`` or
``settings``."""


def read_scripts(input: AdapterInput, options: Mapping[str, Any], format_id: str) -> ReadResult:
    obj: Any = input.json_mutable()
    warnings: list[Issue] = []
    if isinstance(obj, dict) and is_settings(obj):
        items = settings_regex(obj)
        if items is None or items == []:
            raise MalformedInput("this SillyTavern settings.json holds no global regex scripts")
        if not isinstance(items, list):
            raise MalformedInput("extension_settings.regex is "
                                 f"{type_name(items)}, expected an array of scripts")
        container, base = "settings", "$.extension_settings.regex"
    elif isinstance(obj, dict):
        items, container, base = [obj], "object", "$"
    elif isinstance(obj, list):
        items, container, base = obj, "array", "$"
        if not items:
            raise MalformedInput("an empty array: no regex scripts to read")
    else:
        raise MalformedInput(f"a regex script is a JSON object, not {type_name(obj)}")
    scripts: list[RegexScript] = []
    strays: list[list[Any]] = []
    for i, item in enumerate(items):
        path = base if container == "object" else f"{base}[{i}]"
        if not isinstance(item, dict):
            warnings.append(Issue(path, f"{type_name(item)} is not a regex script; "
                                        "kept as it was, not read"))
            strays.append([i, item])
            continue
        if "findRegex" not in item:
            warnings.append(Issue(f"{path}.findRegex", "missing: the script matches nothing"))
        script = parse_st_regex(item, format_id=format_id, warnings=warnings, path=path)
        script.passthrough.setdefault(format_id, {})[CONTAINER] = container
        scripts.append(script)
    if not scripts:
        raise MalformedInput("no regex script objects in this file")
    if strays and container == "array":
        scripts[0].passthrough[format_id]["strays"] = strays  # no app reads them
    layout = sniff_layout(input.data, 4) if container != "settings" else {}
    if layout:
        scripts[0].passthrough[format_id]["layout"] = layout
    return ReadResult(list(scripts), warnings)

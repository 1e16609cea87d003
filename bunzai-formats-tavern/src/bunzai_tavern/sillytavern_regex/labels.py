"""Origin evidence for regex files."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bunzai.sdk import LabelRule


def _st_regex(input: Any, entities: Sequence[Any]) -> list[str]:
    from . import is_st_script
    data = input.json
    items = data if isinstance(data, Sequence) and not isinstance(data, str) else [data]
    n = sum(1 for x in items if is_st_script(x))
    if n == 0 or n != len(items):
        return []
    return [f"{n} SillyTavern regex script(s): camelCase scriptName/findRegex"]


def _tavern_helper(input: Any, entities: Sequence[Any]) -> list[str]:
    data = input.json
    items = data if isinstance(data, Sequence) and not isinstance(data, str) else [data]
    if items and all(isinstance(x, Mapping) and "script_name" in x and "find_regex" in x
                     for x in items):
        return ["snake_case script_name/find_regex: TavernHelper (JS-Slash-Runner) regex"]
    return []


def rules() -> list[LabelRule]:
    return [
        LabelRule("SillyTavern", 0.9, _st_regex, "origin", "sillytavern-regex-export"),
        LabelRule("TavernHelper", 0.8, _tavern_helper, "origin", "tavernhelper-regex"),
    ]

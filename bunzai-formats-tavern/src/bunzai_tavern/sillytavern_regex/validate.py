"""The rules of an ST regex export, checked on the raw JSON with JSON paths."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from bunzai.sdk import Issue
from bunzai.sdk.fields import is_int, type_name

from .._common.stsettings import is_settings, settings_regex

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput

_BOOLS = ("disabled", "markdownOnly", "promptOnly", "runOnEdit")


def check(input: AdapterInput, entities: Sequence[Any], format_id: str) -> list[Issue]:
    return validate_scripts(input.json)


def validate_scripts(data: Any) -> list[Issue]:
    if isinstance(data, Mapping) and is_settings(data):
        items, base = settings_regex(data), "$.extension_settings.regex"
        if not isinstance(items, Sequence) or isinstance(items, str):
            return [Issue(base, "not an array of scripts", "error")]
        return [i for n, s in enumerate(items) for i in _script(s, f"{base}[{n}]")]
    if isinstance(data, Mapping):
        return _script(data, "$")
    if isinstance(data, Sequence) and not isinstance(data, str):
        return [i for n, s in enumerate(data) for i in _script(s, f"$[{n}]")]
    return [Issue("$", f"{type_name(data)} is not a regex script", "error")]


def _script(s: Any, path: str) -> list[Issue]:
    if not isinstance(s, Mapping):
        return [Issue(path, f"{type_name(s)} is not a regex script object", "error")]
    out: list[Issue] = []
    for key in ("scriptName", "findRegex"):
        if key not in s:
            out.append(Issue(f"{path}.{key}", "missing (SillyTavern needs it)", "error"))
        elif not isinstance(s[key], str):
            out.append(Issue(f"{path}.{key}", f"is {type_name(s[key])}, must be a string",
                             "error"))
    if isinstance(s.get("scriptName"), str) and not s["scriptName"].strip():
        out.append(Issue(f"{path}.scriptName", "is empty; SillyTavern refuses to import it"))
    if "replaceString" in s and not isinstance(s["replaceString"], str):
        out.append(Issue(f"{path}.replaceString", f"is {type_name(s['replaceString'])}, "
                                                  "must be a string"))
    trim = s.get("trimStrings")
    if trim is not None and not (isinstance(trim, Sequence) and not isinstance(trim, str)
                                 and all(isinstance(t, str) for t in trim)):
        out.append(Issue(f"{path}.trimStrings", "must be a list of strings"))
    placement = s.get("placement")
    if placement is None:
        out.append(Issue(f"{path}.placement", "missing: the script never runs"))
    elif not (isinstance(placement, Sequence) and not isinstance(placement, str)):
        out.append(Issue(f"{path}.placement", f"is {type_name(placement)}, must be a list of "
                                              "numbers"))
    else:
        for n, p in enumerate(placement):
            if not is_int(p):
                out.append(Issue(f"{path}.placement[{n}]", f"is {type_name(p)}, must be a "
                                                           "number"))
            elif p in (0, 4):
                out.append(Issue(f"{path}.placement[{n}]", f"{p} is a legacy placement "
                                                           "SillyTavern migrates on load"))
            elif p not in (1, 2, 3, 5, 6):
                out.append(Issue(f"{path}.placement[{n}]", f"unknown placement {p}"))
    for key in _BOOLS:
        if key in s and not isinstance(s[key], bool):
            out.append(Issue(f"{path}.{key}", f"is {type_name(s[key])}, must be true/false"))
    sub = s.get("substituteRegex")
    if sub is not None and not isinstance(sub, bool) and sub not in (0, 1, 2):
        out.append(Issue(f"{path}.substituteRegex", "must be true/false or 0, 1, 2"))
    for key in ("minDepth", "maxDepth"):
        v = s.get(key)
        if v is not None and not is_int(v):
            out.append(Issue(f"{path}.{key}", f"is {type_name(v)}, must be a number or null"))
    return out

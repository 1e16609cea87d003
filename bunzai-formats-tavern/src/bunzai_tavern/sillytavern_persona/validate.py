"""The rules of a persona backup (and of settings.json's persona block), with JSON paths."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from bunzai.sdk import Issue
from bunzai.sdk.fields import type_name

from .._common.stsettings import is_settings

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput


def check(input: AdapterInput, entities: Sequence[Any], format_id: str) -> list[Issue]:
    return validate_personas(input.json)


def validate_personas(data: Any) -> list[Issue]:
    if not isinstance(data, Mapping):
        return [Issue("$", f"{type_name(data)} is not a persona backup", "error")]
    if is_settings(data):
        block = data.get("power_user")
        if not isinstance(block, Mapping):
            return []
        return _backup(block, "$.power_user", settings=True)
    return _backup(data, "$", settings=False)


def _backup(obj: Mapping[str, Any], base: str, *, settings: bool) -> list[Issue]:
    out: list[Issue] = []
    names, descs = obj.get("personas"), obj.get("persona_descriptions")
    if not isinstance(names, Mapping):
        if names is not None or not settings:
            out.append(Issue(f"{base}.personas", f"is {type_name(names)}; SillyTavern needs an "
                                                 "object of avatar file -> name", "error"))
        names = {}
    if not isinstance(descs, Mapping):
        if descs is not None or not settings:
            out.append(Issue(f"{base}.persona_descriptions",
                             f"is {type_name(descs)}; SillyTavern needs an object", "error"))
        descs = {}
    for avatar, name in names.items():
        if not isinstance(name, str):
            out.append(Issue(f"{base}.personas[{avatar!r}]", f"name is {type_name(name)}, "
                                                             "must be a string"))
    for avatar, d in descs.items():
        path = f"{base}.persona_descriptions[{avatar!r}]"
        if avatar not in names:
            out.append(Issue(path, "no persona of this avatar; SillyTavern skips it on "
                                   "restore"))
        if isinstance(d, str):
            out.append(Issue(path, "a bare string: the descriptor format of very old "
                                   "SillyTavern versions"))
            continue
        if not isinstance(d, Mapping):
            out.append(Issue(path, f"is {type_name(d)}, not a descriptor object", "error"))
            continue
        pos = d.get("position")
        if isinstance(pos, int) and not isinstance(pos, bool) and pos not in (0, 1, 2, 3, 4, 9):
            out.append(Issue(f"{path}.position", f"{pos} is not a persona position "
                                                 "(0, 1, 2, 3, 4 or 9)"))
        role = d.get("role")
        if isinstance(role, int) and not isinstance(role, bool) and role not in (0, 1, 2):
            out.append(Issue(f"{path}.role", f"{role} is not 0, 1 or 2"))
    default = obj.get("default_persona")
    if default is not None and not (isinstance(default, str) and default in names):
        out.append(Issue(f"{base}.default_persona", f"{default!r} is not one of the personas"))
    return out

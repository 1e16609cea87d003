"""Reading a persona backup, or the personas of a settings.json, as one Persona per persona.

The persona map (``personas``: avatar file -> name) decides which personas exist and their
order, as SillyTavern's restore does.  What belongs to the file rather than to one persona
(unknown root keys, a ``default_persona`` naming nobody, descriptions without a persona, key
order) is recorded on the first persona under ``passthrough[<format id>]["file"]``.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from bunzai.errors import MalformedInput
from bunzai.types import Issue, ReadResult

from .._fieldmap import STR, Bad, same, type_name
from .._options import sniff_layout
from .._stsettings import is_settings
from .fields import DESCRIPTOR

if TYPE_CHECKING:
    from bunzai.input import AdapterInput
    from bunzai.model import Persona

ROOT_KEYS = ("personas", "persona_descriptions", "default_persona")
_ACTIVE_KEYS = {
    "persona_description_position": "position",
    "persona_description_depth": "depth",
    "persona_description_role": "role",
    "persona_description_lorebook": "lorebook",
}
"""settings.json's description of the active user (``power_user.persona_description*``)."""


def read_personas(input: AdapterInput, *, format_id: str) -> ReadResult:
    obj: Any = input.json_mutable()
    if not isinstance(obj, dict):
        raise MalformedInput(f"a persona backup is a JSON object, not {type_name(obj)}")
    warnings: list[Issue] = []
    if is_settings(obj):
        personas = _from_settings(obj, format_id, warnings)
    else:
        personas = _from_backup(obj, format_id, warnings, "$", keep_root=True)
        layout = sniff_layout(input.data, default_indent=2)
        if personas and layout:
            personas[0].passthrough[format_id].setdefault("file", {})["layout"] = layout
    if not personas:
        raise MalformedInput("no personas in this file")
    return ReadResult(list(personas), warnings)


def _from_settings(obj: dict[str, Any], format_id: str,
                   warnings: list[Issue]) -> list[Persona]:
    pu = obj.get("power_user")
    block = pu if isinstance(pu, dict) else {}
    personas = _from_backup(block, format_id, warnings, "$.power_user", keep_root=False)
    avatar, name = obj.get("user_avatar"), obj.get("username")
    raw_known = block.get("personas")
    known: dict[str, Any] = raw_known if isinstance(raw_known, dict) else {}
    if isinstance(avatar, str) and avatar and avatar not in known:
        # SillyTavern binds an active user that has no persona yet to one on load
        # (migrateNonPersonaUser); it is the user's persona, so it is read as one.
        personas.append(_active_user(obj, block, avatar, name, format_id))
        warnings.append(Issue("$.user_avatar", f"the active user {avatar!r} has no persona "
                              "entry; read as a persona, as SillyTavern does on load"))
    for p in personas:
        p.passthrough[format_id]["file"] = {**p.passthrough[format_id].get("file", {}),
                                            "source": "settings"}
    return personas


def _active_user(obj: dict[str, Any], block: dict[str, Any], avatar: str, name: Any,
                 format_id: str) -> Persona:
    from bunzai.model import Persona

    desc = block.get("persona_description")
    values: dict[str, Any] = {
        "name": name if isinstance(name, str) else "",
        "description": desc if isinstance(desc, str) else "",
        "avatar_id": avatar,
        "is_default": block.get("default_persona") == avatar,
    }
    for key, attr in _ACTIVE_KEYS.items():
        v = block.get(key)
        if attr == "lorebook":
            if isinstance(v, str) and v:
                values[attr] = v
        elif isinstance(v, int) and not isinstance(v, bool):
            values[attr] = v
    return Persona(**values, passthrough={format_id: {"active_user": True}})


def _from_backup(obj: Mapping[str, Any], format_id: str, warnings: list[Issue], base: str,
                 *, keep_root: bool) -> list[Persona]:
    from bunzai.model import Persona

    names = obj.get("personas")
    descs = obj.get("persona_descriptions")
    file_rec: dict[str, Any] = {}
    if names is None and descs is None and not keep_root:
        return []
    if not isinstance(names, dict):
        if keep_root or names is not None:
            raise MalformedInput(f"{base}.personas is {type_name(names)}; expected an object "
                                 "of avatar file -> name")
        names = {}
    if not isinstance(descs, dict):
        if "persona_descriptions" in obj:
            warnings.append(Issue(f"{base}.persona_descriptions",
                                  f"is {type_name(descs)}, not an object; kept as it was"))
            file_rec["descs_raw"] = copy.deepcopy(descs)
        else:
            file_rec["descs_absent"] = True
        descs = {}
    default = obj.get("default_persona", _ABSENT)
    out: list[Persona] = []
    for avatar, raw_name in names.items():
        path = f"{base}.personas[{avatar!r}]"
        rec: dict[str, Any] = {}
        try:
            name = STR.canon(raw_name)
        except Bad as exc:
            name = ""
            warnings.append(Issue(path, f"{exc}; kept as it was"))
        if not same(name, raw_name):
            rec["name_raw"] = copy.deepcopy(raw_name)
        values: dict[str, Any] = {"name": name, "avatar_id": avatar,
                                  "is_default": default == avatar}
        if avatar in descs:
            d = descs[avatar]
            dpath = f"{base}.persona_descriptions[{avatar!r}]"
            if isinstance(d, dict):
                dvals, drec = DESCRIPTOR.read(d, dpath, warnings)
                values.update(dvals)
                if drec:
                    rec["descriptor"] = drec
            elif isinstance(d, str):
                values["description"] = d  # very old ST stored the text alone
                rec["legacy"] = True
            else:
                warnings.append(Issue(dpath, f"is {type_name(d)}, not a descriptor; kept as "
                                             "it was"))
                rec["descriptor_raw"] = copy.deepcopy(d)
        else:
            rec["no_descriptor"] = True
        out.append(Persona(**values, passthrough={format_id: rec}))
    # file-level facts
    orphans = [[i, k, copy.deepcopy(v)] for i, (k, v) in enumerate(descs.items())
               if k not in names]
    if orphans:
        file_rec["orphans"] = orphans
        warnings.append(Issue(f"{base}.persona_descriptions",
                              f"{len(orphans)} description(s) without a persona (SillyTavern "
                              "skips them on restore); kept as they were"))
    desc_order = [k for k in descs if k in names]
    if desc_order != [k for k in names if k in descs]:
        file_rec["desc_order"] = list(descs)
    if default is _ABSENT:
        file_rec["default_absent"] = True
    elif not (isinstance(default, str) and default in names) and default is not None:
        file_rec["default_raw"] = copy.deepcopy(default)
        warnings.append(Issue(f"{base}.default_persona",
                              f"{default!r} is not one of the personas; kept as it was"))
    if keep_root:
        extra = {k: copy.deepcopy(v) for k, v in obj.items() if k not in ROOT_KEYS}
        if extra:
            file_rec["extra"] = extra
        natural = [k for k in ROOT_KEYS if k in obj] + list(extra)
        if list(obj) != natural:
            file_rec["order"] = list(obj)
    if out:
        out[0].passthrough[format_id]["file"] = file_rec
    return out


class _Absent:
    def __repr__(self) -> str:
        return "<absent>"


_ABSENT: Any = _Absent()

"""Reading a persona backup, or the personas of a settings.json, as one Persona per persona.

The persona map (``personas``: avatar file -> name) decides which personas exist and their
order, as SillyTavern's restore does.  A persona's descriptor keys the model does not name are
its app data; so is, for the personas of a settings.json, which one is the active user
(``active_user``).  What belongs to the file rather than to one persona is recorded on the
first persona: its unknown root keys as app data (``backup.<key>``), its layout (descriptions
without a persona, which SillyTavern skips on restore, a ``default_persona`` naming nobody, key
order, indent) under ``passthrough[<format id>]["file"]``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from bunzai.sdk import Issue, MalformedInput, ReadResult, sniff_layout
from bunzai.sdk.fields import STR, Bad, same, type_name

from .._common.jsonfile import json_object
from .._common.stsettings import is_settings
from .fields import DESCRIPTOR

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput, Persona

ROOT_KEYS = ("personas", "persona_descriptions", "default_persona")
ROOT_DATA = "backup."
"""Prefix of the app data holding a backup's unknown root keys (on its first persona)."""
ACTIVE = "active_user"
"""App data key marking the persona a settings.json has selected."""

_ACTIVE_KEYS = {
    "persona_description_position": "position",
    "persona_description_depth": "depth",
    "persona_description_role": "role",
    "persona_description_lorebook": "lorebook",
}
"""settings.json's description of the active user (``power_user.persona_description*``)."""


def read_personas(input: AdapterInput, options: Mapping[str, Any],
                  format_id: str) -> ReadResult:
    obj = json_object(input, "a persona backup")
    warnings: list[Issue] = []
    if is_settings(obj):
        personas = _from_settings(obj, format_id, warnings)
    else:
        personas = _from_backup(obj, format_id, warnings, "$", keep_root=True)
        layout = sniff_layout(input.data, 2)
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
        personas.append(_active_user(block, avatar, name))
        warnings.append(Issue("$.user_avatar", f"the active user {avatar!r} has no persona "
                              "entry; read as a persona, as SillyTavern does on load"))
    for p in personas:
        if isinstance(avatar, str) and p.avatar_id == avatar:
            p.app_data.setdefault(format_id, {})[ACTIVE] = True
    return personas


def _active_user(block: dict[str, Any], avatar: str, name: Any) -> Persona:
    from bunzai.sdk import Persona

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
    return Persona(**values)


def _from_backup(obj: Mapping[str, Any], format_id: str, warnings: list[Issue], base: str,
                 *, keep_root: bool) -> list[Persona]:
    from bunzai.sdk import Persona

    names = obj.get("personas")
    descs = obj.get("persona_descriptions")
    file_layout: dict[str, Any] = {}
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
            file_layout["descs_raw"] = descs  # SillyTavern refuses the file: nothing to read
        else:
            file_layout["descs_absent"] = True
        descs = {}
    default = obj.get("default_persona", _ABSENT)
    out: list[Persona] = []
    for avatar, raw_name in names.items():
        path = f"{base}.personas[{avatar!r}]"
        layout: dict[str, Any] = {}
        data: dict[str, Any] = {}
        try:
            name = STR.canon(raw_name)
        except Bad as exc:
            name = ""
            warnings.append(Issue(path, f"{exc}; kept as it was"))
            data["personas"] = raw_name  # keyed by where it was: personas[<avatar>]
        else:
            if not same(name, raw_name):
                layout["name_raw"] = raw_name
        values: dict[str, Any] = {"name": name, "avatar_id": avatar,
                                  "is_default": default == avatar}
        if avatar in descs:
            d = descs[avatar]
            dpath = f"{base}.persona_descriptions[{avatar!r}]"
            if isinstance(d, dict):
                dvals, dlayout, ddata = DESCRIPTOR.read(d, dpath, warnings, owned=True)
                values.update(dvals)
                if dlayout:
                    layout["descriptor"] = dlayout
                data.update(ddata)
            elif isinstance(d, str):
                values["description"] = d  # very old ST stored the text alone
                layout["legacy"] = True
            else:
                warnings.append(Issue(dpath, f"is {type_name(d)}, not a descriptor; kept as "
                                             "it was"))
                data["persona_descriptions"] = d
        else:
            layout["no_descriptor"] = True
        out.append(Persona(**values, passthrough={format_id: layout},
                           app_data={format_id: data} if data else {}))
    # file-level facts
    orphans = [[i, k, v] for i, (k, v) in enumerate(descs.items()) if k not in names]
    if orphans:
        file_layout["orphans"] = orphans  # SillyTavern's restore skips them
        warnings.append(Issue(f"{base}.persona_descriptions",
                              f"{len(orphans)} description(s) without a persona (SillyTavern "
                              "skips them on restore); kept as they were"))
    desc_order = [k for k in descs if k in names]
    if desc_order != [k for k in names if k in descs]:
        file_layout["desc_order"] = list(descs)
    if default is _ABSENT:
        file_layout["default_absent"] = True
    elif not (isinstance(default, str) and default in names) and default is not None:
        file_layout["default_raw"] = default  # SillyTavern's restore skips it
        warnings.append(Issue(f"{base}.default_persona",
                              f"{default!r} is not one of the personas; kept as it was"))
    root_data: dict[str, Any] = {}
    if keep_root:
        root_data = {ROOT_DATA + k: v for k, v in obj.items() if k not in ROOT_KEYS}
        natural = [k for k in ROOT_KEYS if k in obj] + [k for k in obj if k not in ROOT_KEYS]
        if list(obj) != natural:
            file_layout["order"] = list(obj)
    if out:
        out[0].passthrough[format_id]["file"] = file_layout
        if root_data:
            out[0].app_data.setdefault(format_id, {}).update(root_data)
    return out


class _Absent:
    def __repr__(self) -> str:
        return "<absent>"


_ABSENT: Any = _Absent()

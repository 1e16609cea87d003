"""Writing personas: every persona given goes into one backup file, as SillyTavern's Backup does.

A backup holds names, descriptors and the default persona: core reports what a persona holds
beyond that (the adapter's ``carries``).  This writer reports what it writes differently (a
second default persona) and the app data a backup has no place for (which persona a
settings.json had selected).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from bunzai.sdk import LossReport, OutputFile, WriteResult, dumps_layout
from bunzai.sdk.fields import STR, Bad, jcopy, same

from .fields import DESCRIPTOR, DESCRIPTOR_ATTRS
from .read import ACTIVE, ROOT_DATA

if TYPE_CHECKING:
    from bunzai.sdk import Persona


def avatar_for(name: str, used: set[str]) -> str:
    """An avatar file name for a persona that has none: ST's ``<name>.png`` convention, made
    unique (ST itself prefixes a timestamp, which would make output differ run to run)."""
    stem = re.sub(r"[^A-Za-z0-9]", "", name) or "persona"
    candidate, n = f"{stem}.png", 2
    while candidate in used:
        candidate, n = f"{stem}-{n}.png", n + 1
    return candidate


def _name_value(p: Persona, layout: Mapping[str, Any], data: Mapping[str, Any]) -> Any:
    """The persona's name as the file had it (another type, an unreadable value) while the
    canonical name still reads the same."""
    for raw in (layout.get("name_raw", _NONE), data.get("personas", _NONE)):
        if raw is _NONE:
            continue
        try:
            back = STR.canon(raw)
        except Bad:
            back = ""
        if same(back, p.name):
            return jcopy(raw)
    return p.name


def _descriptor(p: Persona, layout: Mapping[str, Any], data: Mapping[str, Any],
                loss: LossReport, path: str) -> Any:
    bare = all(getattr(p, a) is None for a in DESCRIPTOR_ATTRS)
    if "persona_descriptions" in data and p.description == "" and bare:
        return jcopy(data["persona_descriptions"])  # not a descriptor: written as it was
    if layout.get("legacy") and bare:
        return p.description
    descriptor_data = {k: v for k, v in data.items()
                       if k not in ("personas", "persona_descriptions", ACTIVE)
                       and not k.startswith(ROOT_DATA)}
    return DESCRIPTOR.write(lambda a: getattr(p, a), layout.get("descriptor"), descriptor_data,
                            loss, path)


def write_backup(entities: Sequence[Persona], options: Mapping[str, Any],
                 format_id: str) -> WriteResult:
    personas = list(entities)
    loss = LossReport()
    many = len(personas) > 1
    layouts = [_own(p.passthrough, format_id) for p in personas]
    datas = [_own(p.app_data, format_id) for p in personas]
    file_layout: dict[str, Any] = next(
        (lay["file"] for lay in layouts if isinstance(lay.get("file"), dict)), {})
    root_data: dict[str, Any] = {}
    used = {p.avatar_id for p in personas if p.avatar_id}
    names: dict[str, Any] = {}
    descs: dict[str, Any] = {}
    default: Any = None
    for i, (p, layout, data) in enumerate(zip(personas, layouts, datas, strict=True)):
        prefix = f"[{i}]." if many else ""
        key = p.avatar_id
        if not key or key in names:
            key = avatar_for(p.name, used | set(names))  # ids are not user data: no report
        names[key] = _name_value(p, layout, data)
        if not layout.get("no_descriptor") or p.description or not all(
                getattr(p, a) is None for a in DESCRIPTOR_ATTRS):
            descs[key] = _descriptor(p, layout, data, loss, prefix.rstrip("."))
        if p.is_default:
            if default is None:
                default = key
            else:
                loss.approximated(f"{prefix}is_default", f"only one default persona; "
                                                         f"{default!r} is kept")
        if data.get(ACTIVE):
            loss.dropped(f"{prefix}app_data.{format_id}.{ACTIVE}",
                         "a persona backup does not say which persona is selected "
                         "(SillyTavern keeps that in settings.json)")
        for k, v in data.items():
            if k.startswith(ROOT_DATA):
                root_data.setdefault(k[len(ROOT_DATA):], v)
    descs = _restore_descs(descs, names, file_layout)
    doc: dict[str, Any] = {"personas": names}
    if "descs_raw" in file_layout and not descs:
        doc["persona_descriptions"] = jcopy(file_layout["descs_raw"])
    elif not (file_layout.get("descs_absent") and not descs):
        doc["persona_descriptions"] = descs
    if default is None and "default_raw" in file_layout:
        default = jcopy(file_layout["default_raw"])
    if not (file_layout.get("default_absent") and default is None):
        doc["default_persona"] = default
    for k, v in root_data.items():
        doc.setdefault(k, jcopy(v))
    order = file_layout.get("order")
    if isinstance(order, list):
        doc = {**{k: doc[k] for k in order if k in doc},
               **{k: v for k, v in doc.items() if k not in order}}
    text = dumps_layout(doc, file_layout.get("layout"), 2, options)
    return WriteResult([OutputFile(text, ".json", "personas")], loss)


def _own(holder: Mapping[str, Any], format_id: str) -> dict[str, Any]:
    got = holder.get(format_id)
    return got if isinstance(got, dict) else {}


def _restore_descs(descs: dict[str, Any], names: Mapping[str, Any],
                   file_layout: Mapping[str, Any]) -> dict[str, Any]:
    """Put back descriptions without a persona and the source's description order."""
    orphans = [o for o in file_layout.get("orphans") or () if isinstance(o, list) and len(o) == 3]
    if not orphans and not file_layout.get("desc_order"):
        return descs
    items = list(descs.items())
    for pos, key, value in orphans:
        if key not in names and key not in dict(items):
            items.insert(min(int(pos), len(items)), (key, jcopy(value)))
    out = dict(items)
    order = file_layout.get("desc_order")
    if isinstance(order, list):
        out = {**{k: out[k] for k in order if k in out},
               **{k: v for k, v in out.items() if k not in order}}
    return out


_NONE: Any = object()
__all__ = ["avatar_for", "write_backup"]

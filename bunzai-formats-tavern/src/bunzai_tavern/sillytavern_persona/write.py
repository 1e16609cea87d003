"""Writing personas: every persona given goes into one backup file, as SillyTavern's Backup does."""

from __future__ import annotations

import copy
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from bunzai.errors import UsageError
from bunzai.jsonio import dumps
from bunzai.loss import LossReport
from bunzai.types import OutputFile, WriteResult

from .._fieldmap import STR, Bad, same
from .._options import layout_of
from .fields import DESCRIPTOR
from .read import ROOT_KEYS

if TYPE_CHECKING:
    from bunzai.model import Entity, Persona


def avatar_for(name: str, used: set[str]) -> str:
    """An avatar file name for a persona that has none: ST's ``<name>.png`` convention, made
    unique (ST itself prefixes a timestamp, which would make output differ run to run)."""
    stem = re.sub(r"[^A-Za-z0-9]", "", name) or "persona"
    candidate, n = f"{stem}.png", 2
    while candidate in used:
        candidate, n = f"{stem}-{n}.png", n + 1
    return candidate


def _name_value(p: Persona, rec: Mapping[str, Any]) -> Any:
    raw = rec.get("name_raw", _NONE)
    if raw is not _NONE:
        try:
            back = STR.canon(raw)
        except Bad:
            back = ""
        if same(back, p.name):
            return copy.deepcopy(raw)
    return p.name


def _descriptor(p: Persona, rec: Mapping[str, Any], loss: LossReport, path: str) -> Any:
    if "descriptor_raw" in rec and p.description == "" and all(
            getattr(p, a) is None for a in ("position", "depth", "role", "lorebook", "title",
                                            "connections")):
        return copy.deepcopy(rec["descriptor_raw"])
    if rec.get("legacy") and all(getattr(p, a) is None for a in (
            "position", "depth", "role", "lorebook", "title", "connections")):
        return p.description
    return DESCRIPTOR.write(lambda a: getattr(p, a), rec.get("descriptor"), loss, path)


def write_backup(entities: Sequence[Entity], options: Mapping[str, Any], *,
                 format_id: str) -> WriteResult:
    for e in entities:
        if e.kind != "persona":
            raise UsageError(f"{format_id} writes personas, not a {e.kind}")
    personas: list[Persona] = list(entities)  # type: ignore[arg-type]
    loss = LossReport()
    many = len(personas) > 1
    recs: list[dict[str, Any]] = [_own(p, format_id) for p in personas]
    file_rec: dict[str, Any] = next((r["file"] for r in recs if isinstance(r.get("file"), dict)),
                                    {})
    used = {p.avatar_id for p in personas if p.avatar_id}
    names: dict[str, Any] = {}
    descs: dict[str, Any] = {}
    default: Any = None
    for i, (p, rec) in enumerate(zip(personas, recs, strict=True)):
        path = f"[{i}]" if many else ""

        def at(attr: str, path: str = path) -> str:
            return f"{path}.{attr}" if path else attr

        key = p.avatar_id
        if not key or key in names:
            key = avatar_for(p.name, used | set(names))
            why = ("no avatar file name" if not p.avatar_id
                   else f"avatar {p.avatar_id!r} is used by another persona")
            loss.approximated(at("avatar_id"), f"{why}; SillyTavern keys personas by avatar "
                                               f"file: written as {key!r}")
        names[key] = _name_value(p, rec)
        if not rec.get("no_descriptor") or _has_descriptor_data(p):
            descs[key] = _descriptor(p, rec, loss, path)
        if p.is_default:
            if default is None:
                default = key
            else:
                loss.approximated(at("is_default"), f"only one default persona; {default!r} "
                                                    "is kept")
        if p.avatar is not None:
            loss.dropped(at("avatar"), "a persona backup holds avatar file names, not images")
        if p.note is not None:
            loss.dropped(at("note"), "SillyTavern personas have no note")
        if p.extensions:
            loss.dropped(at("extensions"), "SillyTavern personas have no extensions")
    descs = _restore_descs(descs, names, file_rec)
    doc: dict[str, Any] = {"personas": names}
    if "descs_raw" in file_rec and not descs:
        doc["persona_descriptions"] = copy.deepcopy(file_rec["descs_raw"])
    elif not (file_rec.get("descs_absent") and not descs):
        doc["persona_descriptions"] = descs
    if default is None and "default_raw" in file_rec:
        default = copy.deepcopy(file_rec["default_raw"])
    if not (file_rec.get("default_absent") and default is None):
        doc["default_persona"] = default
    if file_rec.get("source") != "settings":
        for k, v in (file_rec.get("extra") or {}).items():
            doc.setdefault(k, copy.deepcopy(v))
        order = file_rec.get("order")
        if isinstance(order, list):
            doc = {**{k: doc[k] for k in order if k in doc},
                   **{k: v for k, v in doc.items() if k not in order}}
    indent, newline = layout_of(options, file_rec.get("layout"), default=2)
    data = dumps(doc, indent=indent) + (b"\n" if newline else b"")
    return WriteResult([OutputFile(data, ".json", "personas")], loss)


def _own(p: Persona, format_id: str) -> dict[str, Any]:
    rec = p.passthrough.get(format_id)
    return rec if isinstance(rec, dict) else {}


def _has_descriptor_data(p: Persona) -> bool:
    return bool(p.description) or any(getattr(p, a) is not None for a in (
        "position", "depth", "role", "lorebook", "title", "connections"))


def _restore_descs(descs: dict[str, Any], names: Mapping[str, Any],
                   file_rec: Mapping[str, Any]) -> dict[str, Any]:
    """Put back descriptions without a persona and the source's description order."""
    orphans = [o for o in file_rec.get("orphans") or () if isinstance(o, list) and len(o) == 3]
    if not orphans and not file_rec.get("desc_order"):
        return descs
    items = list(descs.items())
    for pos, key, value in orphans:
        if key not in names and key not in dict(items):
            items.insert(min(int(pos), len(items)), (key, copy.deepcopy(value)))
    out = dict(items)
    order = file_rec.get("desc_order")
    if isinstance(order, list):
        out = {**{k: out[k] for k in order if k in out},
               **{k: v for k, v in out.items() if k not in order}}
    return out


_NONE: Any = object()
__all__ = ["ROOT_KEYS", "avatar_for", "write_backup"]

"""RisuAI module objects (``RisuModule``) <-> canonical :class:`Module`.

Canonical fields take what they can name (name, description, id, namespace, lorebook, regex
scripts, triggers, assets, ``lowLevelAccess``); every other RisuAI module key (``hideIcon``,
``backgroundEmbedding``, ``customModuleToggle``, ``mcp``, ``cjs``, and keys newer RisuAI versions
add) is kept verbatim in ``extensions.risuai`` and written back at the top level, so nothing a
module carries is lost between RisuAI formats.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from bunzai.loss import LossReport
from bunzai.model import Asset, Lorebook, Module

from . import lore, regex
from .assets import ext_for, make_asset
from .diff import report
from .shape import capture, restore
from .values import Notes

CANONICAL_KEYS = ("name", "description", "id", "namespace", "lorebook", "regex", "trigger",
                  "lowLevelAccess", "assets")
_ID_NS = uuid.UUID("0e6f3c1a-8d52-4b7e-a1c9-3f2d5e7b9a10")
_REASONS = {
    "id": "RisuAI needs a module id; one was generated",
    "name": "RisuAI needs a module name",
    "origin": "the bytes now come from the module's own asset records",
    "uri": "RisuAI keeps asset paths out of .risum files",
    "media_type": "an empty asset record has no bytes to sniff",
    "data": "RisuAI writes a missing asset as an empty record",
    "type": "module assets are RisuAI additional assets",
    "orphan": "every asset record belongs to the module",
    "extensions": "RisuAI modules keep only RisuAI's own extension data",
}


_APPROXIMATED = frozenset({"id", "name", "origin", "uri", "type", "orphan"})


def read_triggers(raw: Any, path: str, notes: Notes) -> list[dict[str, Any]] | None:
    """Trigger scripts, kept opaque (they may hold Lua; bunzai never runs them)."""
    if raw is None:
        return None
    if not isinstance(raw, list):
        notes.warn(path, f"expected a list of triggers, got {type(raw).__name__}; ignored")
        return None
    out = []
    for i, t in enumerate(raw):
        if isinstance(t, dict):
            out.append(t)
        else:
            notes.warn(f"{path}[{i}]", f"expected a trigger object, got {type(t).__name__}; "
                                       "skipped")
    return out


def _assets(raw: Any, records: Sequence[bytes] | None, path: str, notes: Notes) -> list[Asset]:
    out: list[Asset] = []
    tuples = raw if isinstance(raw, list) else []
    if raw is not None and not isinstance(raw, list):
        notes.warn(path, f"expected a list of assets, got {type(raw).__name__}; ignored")
    for i, item in enumerate(tuples):
        if not (isinstance(item, list) and item and all(isinstance(x, str) for x in item)):
            notes.warn(f"{path}[{i}]", "expected [name, path, ext]; kept as an unnamed asset")
            item = [str(item[0]) if isinstance(item, list) and item else f"asset_{i}"]
        name = item[0]
        where = item[1] if len(item) > 1 and item[1] else None
        ext = item[2] if len(item) > 2 else None
        data = None
        if records is not None and i < len(records):
            data = records[i] or None
            if not records[i]:
                notes.warn(f"{path}[{i}]", f"asset {name!r} has an empty record (no bytes)")
        out.append(make_asset(type="x-risu-asset", name=name, uri=where, ext=ext, data=data,
                              origin=f"risum:{i}" if data is not None else None))
    if records is not None and len(records) != len(tuples):
        notes.warn(path, f"the module lists {len(tuples)} asset(s) but holds {len(records)} "
                         "asset record(s)")
        for i in range(len(tuples), len(records)):
            out.append(make_asset(type="x-risu-asset", name=f"asset_{i}", data=records[i] or None,
                                  origin=f"risum:{i}", orphan=True))
    return out


def _canonical(raw: Mapping[str, Any], records: Sequence[bytes] | None, path: str,
               notes: Notes, fid: str) -> Module:
    lorebook = None
    if raw.get("lorebook") is not None:
        lorebook = Lorebook(entries=lore.read_entries(raw["lorebook"], f"{path}.lorebook",
                                                      notes, fid))
    risuai = {k: v for k, v in raw.items() if k not in CANONICAL_KEYS}
    ident = raw.get("id")
    return Module(
        id=ident if isinstance(ident, str) else (str(ident) if ident is not None else None),
        name=notes.text(raw, "name", path),
        description=notes.text(raw, "description", path),
        namespace=notes.opt_text(raw, "namespace", path),
        lorebook=lorebook,
        regex_scripts=regex.read_scripts(raw.get("regex"), f"{path}.regex", notes, fid),
        triggers=read_triggers(raw.get("trigger"), f"{path}.trigger", notes),
        assets=_assets(raw.get("assets"), records, f"{path}.assets", notes),
        low_level_access=notes.flag(raw, "lowLevelAccess", path),
        extensions={"risuai": risuai} if risuai else {},
    )


def _build(module: Module, fid: str, loss: LossReport | None) -> dict[str, Any]:
    out: dict[str, Any] = {"name": module.name or "Untitled module",
                           "description": module.description}
    if module.lorebook is not None:
        out["lorebook"] = lore.write_entries(module.lorebook.entries, fid, loss,
                                             "lorebook.entries")
    out["regex"] = regex.write_scripts(module.regex_scripts, fid, loss, "regex_scripts")
    if module.triggers is not None:
        out["trigger"] = module.triggers
    out["id"] = module.id or str(uuid.uuid5(_ID_NS, module.name))
    if module.low_level_access is not None:
        out["lowLevelAccess"] = module.low_level_access
    risuai = module.extensions.get("risuai")
    if isinstance(risuai, Mapping):
        for k, v in risuai.items():
            if k not in CANONICAL_KEYS:
                out[k] = v
    if module.namespace is not None:
        out["namespace"] = module.namespace
    out["assets"] = [[a.name, a.uri or "", ext_for(a)] for a in module.assets]
    return out


def read_module(raw: Mapping[str, Any], records: Sequence[bytes] | None, notes: Notes, fid: str,
                path: str = "$.module") -> Module:
    """A canonical module; ``records`` are the .risum asset records (None for JSON modules)."""
    module = _canonical(raw, records, path, notes, fid)
    shape = capture(raw, _build(module, fid, None))
    if shape:
        module.passthrough.setdefault(fid, {})["shape"] = shape
    return module


def write_module(module: Module, fid: str, loss: LossReport | None = None
                 ) -> tuple[dict[str, Any], list[bytes]]:
    """(the module object, its asset records) for ``module``."""
    pt = module.passthrough.get(fid)
    out = restore(_build(module, fid, loss), pt.get("shape") if isinstance(pt, Mapping) else None)
    records = [a.data or b"" for a in module.assets]
    if loss is not None:
        report(loss, module, _canonical(out, records, "$", Notes(), "\x00loss"),
               reasons=_REASONS, approximated=_APPROXIMATED,
               default="RisuAI modules have no such field",
               skip=("lorebook.entries", "regex_scripts"))
    return out, records

"""RisuAI module objects (``RisuModule``) <-> canonical :class:`Module`.

Canonical fields take what they can name (name, description, id, namespace, lorebook, regex
scripts, triggers, assets, ``lowLevelAccess``); every other RisuAI module key (``hideIcon``,
``backgroundEmbedding``, ``customModuleToggle``, ``mcp``, ``cjs``, and keys newer RisuAI versions
add) is a RisuAI setting no canonical field holds: it is the module's app data
(``app_data[format_id]``), written back at its place.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from bunzai.sdk import Asset, Issue, Lorebook, LossReport, Module
from bunzai.sdk.fields import BOOL, Table, field, jcopy, kept, slot, type_name

from . import lore, regex
from .assets import ext_for, make_asset
from .loss import read_objects

_ID_NS = uuid.UUID("0e6f3c1a-8d52-4b7e-a1c9-3f2d5e7b9a10")
_PARTS = ("lorebook", "regex", "trigger", "assets")
ASSET_TYPE = "x-risu-asset"

MODULE = Table((
    field("name", absent=""),
    field("description", absent=""),
    slot("lorebook"),
    slot("regex"),
    slot("trigger"),
    field("id"),
    field("low_level_access", "lowLevelAccess", conv=BOOL),
    slot("hideIcon"),
    field("namespace"),
    slot("customModuleToggle"),
    slot("backgroundEmbedding"),
    slot("mcp"),
    slot("cjs"),
    slot("assets"),
))
"""A module's keys in the order RisuAI writes them; the lists are read by hand."""


def read_triggers(raw: Any, path: str, warnings: list[Issue]) -> list[dict[str, Any]] | None:
    """Trigger scripts, kept opaque (they may hold Lua; bunzai never runs them)."""
    if raw is None:
        return None
    if not isinstance(raw, list):
        warnings.append(Issue(path, f"expected a list of triggers, got {type_name(raw)}; "
                                    "ignored"))
        return None
    return read_objects(raw, path, warnings, ("triggers", "a trigger"),
                        lambda trigger, _at: dict(trigger))


def _is_tuple(item: Any) -> bool:
    return isinstance(item, list) and bool(item) and all(isinstance(x, str) for x in item)


def _tuple_reads(item: Any, i: int) -> tuple[str, str | None, str | None]:
    """(name, uri, ext) RisuAI and bunzai take from one ``[name, path, ext]`` asset tuple."""
    if not _is_tuple(item):
        return (str(item[0]) if isinstance(item, list) and item else f"asset_{i}"), None, None
    return item[0], (item[1] or None) if len(item) > 1 else None, \
        item[2] if len(item) > 2 else None


def _assets(raw: list[Any], records: Sequence[bytes] | None, path: str,
            warnings: list[Issue], layout: dict[str, Any]) -> list[Asset]:
    out: list[Asset] = []
    saved: dict[str, Any] = {}
    for i, item in enumerate(raw):
        name, where, ext = _tuple_reads(item, i)
        if not _is_tuple(item):
            warnings.append(Issue(f"{path}[{i}]", "expected [name, path, ext]; kept as an "
                                                  "unnamed asset"))
        data = None
        if records is not None and i < len(records):
            data = records[i] or None
            if not records[i]:
                warnings.append(Issue(f"{path}[{i}]", f"asset {name!r} has an empty record "
                                                      "(no bytes)"))
        asset = make_asset(type=ASSET_TYPE, name=name, uri=where, ext=ext, data=data,
                           origin=f"risum:{i}" if data is not None else None)
        if item != _tuple(asset):
            saved[str(i)] = jcopy(item)
        out.append(asset)
    if saved:
        layout["assets"] = saved
    if records is not None and len(records) != len(raw):
        warnings.append(Issue(path, f"the module lists {len(raw)} asset(s) but holds "
                                    f"{len(records)} asset record(s)"))
        for i in range(len(raw), len(records)):
            out.append(make_asset(type=ASSET_TYPE, name=f"asset_{i}", data=records[i] or None,
                                  origin=f"risum:{i}", orphan=True))
    return out


def _tuple(asset: Asset) -> list[str]:
    return [asset.name, asset.uri or "", ext_for(asset)]


def read_module(raw: Mapping[str, Any], records: Sequence[bytes] | None,
                warnings: list[Issue], format_id: str, path: str = "$.module", *,
                owned: bool = False) -> Module:
    """A canonical module; ``records`` are the .risum asset records (None for JSON modules)."""
    values, layout, data = MODULE.read(raw, path, warnings, owned=owned)
    absent = [k for k in _PARTS if k not in raw]
    if absent:
        layout["parts_absent"] = absent
    if "id" not in raw:
        layout["id_absent"] = True
    book = data.get("lorebook")
    if isinstance(book, list):
        del data["lorebook"]
        values["lorebook"] = Lorebook(entries=lore.read_entries(
            book, f"{path}.lorebook", warnings, format_id, owned=True))
    scripts = data.get("regex")
    if isinstance(scripts, list):
        del data["regex"]
        values["regex_scripts"] = regex.read_scripts(scripts, f"{path}.regex", warnings,
                                                     format_id, owned=True)
    triggers = data.get("trigger")
    if isinstance(triggers, list):
        del data["trigger"]
        values["triggers"] = read_triggers(triggers, f"{path}.trigger", warnings)
    items = data.get("assets")
    if isinstance(items, list):
        del data["assets"]
        values["assets"] = _assets(items, records, f"{path}.assets", warnings, layout)
    elif records:
        values["assets"] = _assets([], records, f"{path}.assets", warnings, layout)
    for part in _PARTS:
        if part in data:
            warnings.append(Issue(f"{path}.{part}", f"expected a list, got "
                                                    f"{type_name(data[part])}; kept as it was"))
    module = Module(**values)
    if data:
        module.app_data[format_id] = data
    if layout:
        module.passthrough[format_id] = layout
    return module


def write_module(module: Module, format_id: str, loss: LossReport | None = None, *,
                 records: bool = True) -> tuple[dict[str, Any], list[bytes]]:
    """(the module object, its asset records) for ``module``; ``records`` False: a module
    JSON, which has no records (the assets' bytes are reported dropped)."""
    layout, own = kept(module, format_id)
    rec: Mapping[str, Any] = layout or {}
    data: dict[str, Any] = dict(own or {})
    absent = set(rec.get("parts_absent") or ())
    book = module.lorebook
    if book is not None:
        data["lorebook"] = lore.write_entries(book.entries, format_id, loss,
                                              "lorebook.entries")
    if module.regex_scripts or "regex" not in absent:
        data["regex"] = regex.write_scripts(module.regex_scripts, format_id, loss,
                                            "regex_scripts")
    if module.triggers is not None:
        data["trigger"] = jcopy(module.triggers)
    listed = [(i, a) for i, a in enumerate(module.assets) if not a.orphan]
    extra = [(i, a) for i, a in enumerate(module.assets) if a.orphan and a.data]
    if listed or "assets" not in absent:
        saved = rec.get("assets") if isinstance(rec.get("assets"), Mapping) else {}
        tuples = []
        for j, (i, a) in enumerate(listed):
            item = saved.get(str(i)) if i == j else None
            tuples.append(jcopy(item) if item is not None and _tuple_reads(item, j) == (
                a.name, a.uri, a.ext) else _tuple(a))
        data["assets"] = tuples
    written = listed + (extra if records else [])
    blobs = [a.data or b"" for _, a in written]
    if loss is not None:
        _report(module, listed, records, loss)
    name = module.name or "Untitled module"
    ident = module.id if module.id is not None or rec.get("id_absent") else str(
        uuid.uuid5(_ID_NS, module.name))

    def get(attr: str) -> Any:
        if attr == "name":
            return name
        if attr == "id":
            return ident
        return getattr(module, attr)

    return MODULE.write(get, layout, data), blobs


def _report(module: Module, listed: list[tuple[int, Asset]], records: bool,
            loss: LossReport) -> None:
    if not module.name:
        loss.approximated("name", "RisuAI needs a module name: written as 'Untitled module'")
    for i, a in listed:
        if a.type != ASSET_TYPE:
            loss.approximated(f"assets[{i}].type", "a module's files are RisuAI additional "
                                                   "assets")
        if a.data and not records:
            loss.dropped(f"assets[{i}].data", _NO_FILES)
    position = len(listed)
    for i, a in enumerate(module.assets):
        if not a.orphan:
            continue
        if not a.data:
            loss.dropped(f"assets[{i}]", "an asset no tuple names and without bytes has "
                                         "nothing to write")
        elif not records:
            loss.dropped(f"assets[{i}]", _NO_FILES)
        else:
            if a.type != ASSET_TYPE:
                loss.approximated(f"assets[{i}].type", "a module's files are RisuAI "
                                                       "additional assets")
            if a.name != f"asset_{position}":
                loss.approximated(f"assets[{i}].name", "an asset record no tuple names is "
                                                       "called by its position")
            position += 1


_NO_FILES = "RisuAI's module JSON has no room for files: write a .risum to keep them"

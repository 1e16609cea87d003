"""RisuAI lorebook entries (``loreBook``) <-> canonical :class:`LorebookEntry`.

The internal entry is what ``.risum`` modules, lorebook exports and RisuAI's own storage hold:
``key``/``secondkey`` as comma-joined strings, ``insertorder``, ``alwaysActive``, ``mode`` and
folders.  A folder is an entry with ``mode: "folder"`` whose key is U+F000 + ``folder:`` + an id;
children name that key in ``folder``.  Canonically a folder is an entry with ``is_folder`` set and
``id`` = the part after ``folder:``, and a child's ``folder`` is that same id, so other formats
see a plain tree reference instead of a private-use marker.

Keys are split on commas and trimmed, as RisuAI matches them; a regex key (``useRegex``) is kept
whole because a pattern may contain commas.  ``extentions`` (sic) becomes the entry's
``extensions`` (minus ``risu_case_sensitive``, which is ``case_sensitive``), with
``activationPercent``, ``loreCache`` and any non-folder ``mode`` under the ``risu_`` names
RisuAI's own card export uses.
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from bunzai.loss import LossReport
from bunzai.model import LorebookEntry

from . import decorators
from .diff import report
from .shape import capture, restore
from .values import Notes

FOLDER_PREFIX = "\uf000folder:"
_MISSING: Any = object()
_EXT_FROM_RAW = (("activationPercent", "risu_activationPercent"), ("loreCache", "risu_loreCache"))
_NO_MODE = ("normal", "folder")
_FOLDER_NS = uuid.UUID("5f0c7d1e-9a43-4c36-8f8e-6b0d2a1c9e57")

_APPROXIMATED = frozenset({
    "keys", "secondary_keys", "insertion_order", "probability", "use_probability", "selective",
    "selective_logic", "role", "position", "depth", "constant", "case_sensitive", "use_regex",
    "comment", "folder",
})
_REASONS = {
    **decorators.REASONS,
    "keys": "RisuAI stores keys as one comma-separated string",
    "insertion_order": "RisuAI needs an insertion order (100 written)",
    "name": "RisuAI entries have one title (comment)",
    "comment": "RisuAI entries have one title (comment)",
    "id": "RisuAI entry ids are strings used by child entries",
    "position": "RisuAI places entries by @@depth or @@position, not by SillyTavern slots",
    "role": "RisuAI sets a role only for entries injected at a depth",
    "priority": "RisuAI has no budget priority on entries",
}


def folder_id(key: str) -> str:
    """The canonical folder id of a RisuAI folder key (the marker prefix removed)."""
    return key[len(FOLDER_PREFIX):] if key.startswith(FOLDER_PREFIX) else key


def folder_key(fid: str) -> str:
    return FOLDER_PREFIX + fid


def split_keys(text: str) -> list[str]:
    """RisuAI's key list: comma-separated, trimmed, empty pieces ignored."""
    return [k.strip() for k in text.split(",") if k.strip()]


def apply_risu_fields(entry: LorebookEntry, raw: Mapping[str, Any], path: str, notes: Notes,
                      fid: str) -> None:
    """RisuAI's additions to an entry read from a CCv3 ``character_book`` (in place).

    RisuAI's card export adds ``mode`` and ``folder`` next to the standard keys and keeps its
    semantics in decorators; this turns them into the canonical folder and entry fields.
    """
    mode = notes.text(raw, "mode", path) or None
    if mode == "folder":
        entry.is_folder = True
        first = entry.keys[0] if entry.keys else ""
        entry.id = folder_id(first) if entry.id is None else entry.id
        entry.keys = []
    elif mode and mode not in _NO_MODE:
        entry.extensions["risu_mode"] = mode
    parent = notes.text(raw, "folder", path)
    if parent:
        entry.folder = folder_id(parent)
    decorators.extract(entry, fid)


def _canonical(raw: Mapping[str, Any], path: str, notes: Notes, fid: str) -> LorebookEntry:
    mode = notes.text(raw, "mode", path) or None
    key = notes.text(raw, "key", path)
    use_regex = notes.flag(raw, "useRegex", path)
    is_folder = mode == "folder"
    if is_folder:
        keys: list[str] = []
    elif use_regex:
        keys = [key] if key else []
    else:
        keys = split_keys(key)
    ext_raw = raw.get("extentions")
    ext: dict[str, Any] = {}
    if isinstance(ext_raw, Mapping):
        ext = {k: v for k, v in ext_raw.items()}
    elif ext_raw is not None:
        notes.warn(f"{path}.extentions", f"expected an object, got {type(ext_raw).__name__}")
    case = ext.pop("risu_case_sensitive", None)
    if case is not None and not isinstance(case, bool):
        notes.warn(f"{path}.extentions.risu_case_sensitive", "expected true/false; ignored")
        case = None
    for src, dst in _EXT_FROM_RAW:
        if src in raw:
            ext[dst] = raw[src]
    if mode and mode not in _NO_MODE:
        ext["risu_mode"] = mode
    raw_id = raw.get("id")
    entry_id: int | str | None = raw_id if isinstance(raw_id, str | int) and not isinstance(
        raw_id, bool) else None
    if is_folder:
        entry_id = folder_id(key)
    parent = notes.text(raw, "folder", path)
    order = notes.number(raw, "insertorder", path)
    entry = LorebookEntry(
        id=entry_id,
        keys=keys,
        secondary_keys=split_keys(notes.text(raw, "secondkey", path)),
        content=notes.text(raw, "content", path),
        comment=notes.opt_text(raw, "comment", path),
        constant=notes.flag(raw, "alwaysActive", path),
        selective=notes.flag(raw, "selective", path),
        insertion_order=order,
        case_sensitive=case,
        use_regex=use_regex,
        folder=folder_id(parent) if parent else None,
        is_folder=is_folder,
        extensions=ext,
    )
    decorators.extract(entry, fid)
    return entry


def _new_folder_id(entry: LorebookEntry, index: int) -> str:
    return str(uuid.uuid5(_FOLDER_NS, f"{index}:{entry.comment or entry.name or ''}"))


def build(entry: LorebookEntry, fid: str, index: int = 0) -> dict[str, Any]:
    """The internal RisuAI entry the canonical fields describe (no shape applied)."""
    view = decorators.risu_view(entry, fid)
    ext = dict(view.extensions)
    mode = ext.pop("risu_mode", None)
    extra = {src: ext.pop(dst, _MISSING) for src, dst in _EXT_FROM_RAW}
    if view.is_folder:
        ident = str(view.id) if view.id is not None else _new_folder_id(view, index)
        key = folder_key(ident)
        mode = "folder"
    else:
        key = view.keys[0] if view.use_regex and len(view.keys) == 1 else ", ".join(view.keys)
    comment = view.comment if view.comment is not None else (view.name or "")
    out: dict[str, Any] = {
        "key": key,
        "comment": comment,
        "content": view.content,
        "mode": mode if isinstance(mode, str) else "normal",
        "insertorder": view.insertion_order if view.insertion_order is not None else 100,
        "alwaysActive": bool(view.constant),
        "secondkey": ", ".join(view.secondary_keys),
        "selective": bool(view.selective),
    }
    if view.folder is not None:
        out["folder"] = folder_key(str(view.folder))
    if view.case_sensitive is not None:
        ext["risu_case_sensitive"] = view.case_sensitive
    if ext:
        out["extentions"] = ext
    for src, value in extra.items():
        if value is not _MISSING:
            out[src] = value
    if view.use_regex is not None:
        out["useRegex"] = view.use_regex
    if isinstance(view.id, str) and not view.is_folder:
        out["id"] = view.id
    return out


def read_entry(raw: Any, path: str, notes: Notes, fid: str) -> LorebookEntry | None:
    if not isinstance(raw, Mapping):
        notes.warn(path, f"expected an entry object, got {type(raw).__name__}; skipped")
        return None
    entry = _canonical(raw, path, notes, fid)
    shape = capture(raw, build(entry, fid))
    if shape:
        entry.passthrough.setdefault(fid, {})["shape"] = shape
    return entry


def read_entries(raw: Any, path: str, notes: Notes, fid: str) -> list[LorebookEntry]:
    if not isinstance(raw, list | tuple):
        notes.warn(path, f"expected a list of entries, got {type(raw).__name__}; ignored")
        return []
    out = []
    for i, item in enumerate(raw):
        e = read_entry(item, f"{path}[{i}]", notes, fid)
        if e is not None:
            out.append(e)
    return out


def write_entry(entry: LorebookEntry, fid: str, index: int = 0) -> dict[str, Any]:
    pt = entry.passthrough.get(fid)
    return restore(build(entry, fid, index), pt.get("shape") if isinstance(pt, Mapping) else None)


def report_entry_loss(entry: LorebookEntry, written: Mapping[str, Any], loss: LossReport,
                      path: str) -> None:
    """Report what reading ``written`` back would change in ``entry``."""
    report(loss, entry, _canonical(written, "$", Notes(), "\x00loss"), prefix=path,
           reasons=_REASONS, approximated=_APPROXIMATED,
           default="RisuAI lorebook entries have no such setting")


def write_entries(entries: Sequence[LorebookEntry], fid: str, loss: LossReport | None,
                  path: str) -> list[dict[str, Any]]:
    out = []
    for i, e in enumerate(entries):
        written = write_entry(e, fid, i)
        if loss is not None:
            report_entry_loss(e, written, loss, f"{path}[{i}].")
        out.append(written)
    return out


def project_entry(internal: Mapping[str, Any], enabled: bool = True) -> dict[str, Any]:
    """The CCv3 ``character_book`` entry RisuAI's card export makes of an internal entry.

    RisuAI writes ``enabled: true`` whatever the entry (it disables with ``@@dont_activate``);
    ``enabled`` False writes ``false`` so readers that go by the field see it disabled too.
    """
    key = internal.get("key")
    key = key if isinstance(key, str) else ""
    ext_raw = internal.get("extentions")
    ext = dict(ext_raw) if isinstance(ext_raw, Mapping) else {}
    for src, dst in _EXT_FROM_RAW:
        if src in internal:
            ext[dst] = internal[src]
    out: dict[str, Any] = {"keys": [k.strip() for k in key.split(",")]}
    if internal.get("selective"):
        second = internal.get("secondkey")
        out["secondary_keys"] = [k.strip() for k in (second if isinstance(second, str)
                                                     else "").split(",")]
    comment = internal.get("comment", "")
    out.update({
        "content": internal.get("content", ""),
        "extensions": ext,
        "enabled": enabled,
        "insertion_order": internal.get("insertorder", 100),
        "constant": internal.get("alwaysActive", False),
        "selective": internal.get("selective", False),
        "name": comment,
        "comment": comment,
        "case_sensitive": ext.get("risu_case_sensitive", False),
        "use_regex": internal.get("useRegex", False),
        "mode": internal.get("mode", "normal"),
    })
    if internal.get("folder") is not None:
        out["folder"] = internal["folder"]
    return out

"""The environment's entry points for bunzai's groups, remembered between runs.

Finding plugins means reading the metadata of every installed distribution through
:mod:`importlib.metadata`: importing it (with its email parser), then reading a file or two per
distribution.  That is 12-17 M instructions of every start, and 70 M more for a command that
would not otherwise import :mod:`importlib.metadata`.  The answer changes only when something is
installed, removed or edited, so it is kept in the user's cache folder with a *stamp* of the
environment: every ``sys.path`` entry with its modification time, and every
``*.dist-info``/``*.egg-info`` in it with the modification time and size of its
``entry_points.txt`` and metadata.  ``pip install`` and ``pip uninstall`` add or remove such
folders, so a changed environment never matches an old stamp.  A stamp holding anything
modified in the last two seconds is not stored (file times are coarser than that on some file
systems), and an interpreter with its own distribution finders (anything but the standard path
finder) is always scanned.

``BUNZAI_PLUGIN_CACHE=0`` turns the cache off; any other non-empty value is the folder to keep it
in (default: ``$XDG_CACHE_HOME/bunzai``, ``~/Library/Caches/bunzai``, ``%LOCALAPPDATA%\\bunzai``).
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import stat
import sys
import time
import zlib
from collections.abc import Mapping, Sequence
from importlib import import_module
from pathlib import Path
from typing import Any

Row = tuple[str, str | None, str, str, str]
"""(distribution, version, group, entry-point name, object reference), in ``sys.path`` order."""

CACHE_FORMAT = 1
SETTLE_NS = 2_000_000_000
"""A stamp newer than this (two seconds) is not trusted: file times can be that coarse."""

_REFERENCE = re.compile(r"(?P<module>[\w.]+)\s*(:\s*(?P<attr>[\w.]+)\s*)?(\[.*\]\s*)?$")


def find(groups: Sequence[str], environ: Mapping[str, str] | None = None) -> list[Row]:
    """Every entry point in ``groups``, from the cache when the environment is unchanged."""
    env = os.environ if environ is None else environ
    target = cache_file(env)
    if target is None or _other_finders():
        return scan(groups)
    stamp, settled = environment_stamp()
    key = {"format": CACHE_FORMAT, "groups": list(groups), "stamp": stamp}
    stored = _read(target)
    if stored is not None and all(stored.get(k) == v for k, v in key.items()):
        rows = stored.get("rows")
        if isinstance(rows, list) and all(_is_row(r) for r in rows):
            return [(r[0], r[1], r[2], r[3], r[4]) for r in rows]
    rows = scan(groups)
    if settled:
        _write(target, {**key, "rows": [list(r) for r in rows]})
    return rows


def scan(groups: Sequence[str]) -> list[Row]:
    """Read the entry points from every distribution's metadata (no cache)."""
    from importlib.metadata import distributions

    rows: list[Row] = []
    for dist in distributions():
        eps = [ep for ep in dist.entry_points if ep.group in groups]
        if eps:
            meta = dist.metadata  # parsed once: ``dist.version`` would parse it again
            name, version = meta["Name"] or "unknown", meta["Version"]
            rows.extend((name, version, ep.group, ep.name, ep.value) for ep in eps)
    return rows


def load(reference: str) -> Any:
    """The object an entry point names (``module``, ``module:attr`` or ``module:a.b``)."""
    match = _REFERENCE.match(reference.strip())
    if match is None:
        raise ValueError(f"malformed entry point {reference!r} (expected module:attribute)")
    obj: Any = import_module(match["module"])
    for part in filter(None, (match["attr"] or "").split(".")):
        obj = getattr(obj, part)
    return obj


def cache_file(environ: Mapping[str, str]) -> Path | None:
    """Where this interpreter's entry points are cached, or None when caching is off."""
    setting = environ.get("BUNZAI_PLUGIN_CACHE", "")
    if setting.lower() in ("0", "false", "no", "off"):
        return None
    try:
        if setting:
            folder = Path(setting)
        elif sys.platform == "win32":
            local = environ.get("LOCALAPPDATA")
            folder = (Path(local) if local else Path.home() / "AppData" / "Local") / "bunzai"
        elif sys.platform == "darwin":
            folder = Path.home() / "Library" / "Caches" / "bunzai"
        else:
            xdg = environ.get("XDG_CACHE_HOME")
            folder = (Path(xdg) if xdg else Path.home() / ".cache") / "bunzai"
    except RuntimeError:  # no home directory to find
        return None
    # One file per interpreter prefix, so two virtual environments do not overwrite each other.
    tag = zlib.crc32(os.fsencode(sys.prefix)) & 0xFFFFFFFF
    return folder / f"entry-points-{tag:08x}.json"


def environment_stamp() -> tuple[list[Any], bool]:
    """What the entry points depend on, and whether all of it is older than two seconds."""
    stamp: list[Any] = []
    newest = 0
    for entry in sys.path:
        where = os.path.abspath(entry)
        try:
            st = os.stat(where)
        except OSError:
            stamp.append([where])
            continue
        stamp.append([where, st.st_mtime_ns, st.st_size])
        newest = max(newest, st.st_mtime_ns)
        if not stat.S_ISDIR(st.st_mode):
            continue  # a zip on sys.path: its time and size cover what is inside
        try:
            with os.scandir(where) as it:
                infos = sorted((e.name, e.is_dir()) for e in it if _is_info(e.name))
        except OSError:
            continue
        for name, is_dir in infos:
            # A folder's entry points and metadata; a single-file egg-info is its metadata.
            files = ([os.path.join(where, name, "entry_points.txt"),
                      os.path.join(where, name, "METADATA" if name.lower().endswith(
                          ".dist-info") else "PKG-INFO")]
                     if is_dir else [os.path.join(where, name)])
            row: list[Any] = [name]
            for path in files:
                try:
                    st = os.stat(path)
                except OSError:
                    row.append(None)
                    continue
                row.append([st.st_mtime_ns, st.st_size])
                newest = max(newest, st.st_mtime_ns)
            stamp.append(row)
    return stamp, newest < time.time_ns() - SETTLE_NS


def _is_row(row: Any) -> bool:
    return (isinstance(row, list) and len(row) == 5 and isinstance(row[1], str | None)
            and all(isinstance(row[i], str) for i in (0, 2, 3, 4)))


def _is_info(name: str) -> bool:
    low = name.lower()
    return low.endswith((".dist-info", ".egg-info")) or low == "egg-info"


def _other_finders() -> bool:
    """True when something besides the standard path finder can report distributions."""
    from importlib.machinery import PathFinder

    return any(f is not PathFinder and hasattr(f, "find_distributions") for f in sys.meta_path)


def _read(path: Path) -> dict[str, Any] | None:
    try:
        data = json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None
    return data if isinstance(data, dict) else None


def _write(path: Path, data: dict[str, Any]) -> None:
    """Best effort and atomic: a failed write (read-only home, full disk) only costs a scan."""
    tmp = path.with_name(f"{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_text(json.dumps(data, separators=(",", ":")), encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink()

"""Finding bunzai's entry points: the one loader, for loading plugins and for ``--help``.

It reads the ``entry_points.txt`` of each installed distribution's metadata folder
(``*.dist-info``, and a setuptools ``*.egg-info``) on ``sys.path``, as ``importlib.metadata``
does, without importing it: that module and the email parser behind it cost ``bunzai --help``
more than the rest of its start.  The kill switches are honoured here, so nothing that finds
plugins can forget them.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from importlib import import_module
from typing import Any

FORMATS_GROUP = "bunzai.formats"
PLUGINS_GROUP = "bunzai.plugins"
GROUPS = (FORMATS_GROUP, PLUGINS_GROUP)


def norm(name: str) -> str:
    """A distribution name as packaging compares them (``Bunzai_Formats.Risu`` is
    ``bunzai-formats-risu``)."""
    return re.sub(r"[-_.]+", "-", name).lower()


@dataclass(frozen=True, slots=True)
class EntryPoint:
    """One entry point of a bunzai group, and the distribution that declares it."""

    name: str
    value: str
    """``module:attribute``."""
    group: str
    distribution: str
    version: str | None

    def load(self) -> Any:
        """The object the entry point names; a class is instantiated (a plugin is an object)."""
        module, _, attr = self.value.partition(":")
        obj: Any = import_module(module.strip())
        for part in filter(None, attr.strip().split(".")):
            obj = getattr(obj, part)
        return obj() if isinstance(obj, type) else obj


def allowed(environ: Mapping[str, str] | None = None, *, autoload: bool | None = None,
            allow: Iterable[str] | None = None) -> set[str] | None:
    """The distributions whose entry points load (normalized names; empty: none), or None for
    every one.  ``BUNZAI_DISABLE_PLUGIN_AUTOLOAD`` loads none unless ``autoload`` says
    otherwise; ``BUNZAI_LOAD_PLUGINS=a,b`` (empty: none) or ``allow`` names the only ones."""
    env = os.environ if environ is None else environ
    if autoload is None:
        autoload = env.get("BUNZAI_DISABLE_PLUGIN_AUTOLOAD", "") in ("", "0", "false")
    if not autoload:
        return set()
    if allow is not None:
        return {norm(n) for n in allow}
    if "BUNZAI_LOAD_PLUGINS" not in env:
        return None
    return {norm(n) for n in env["BUNZAI_LOAD_PLUGINS"].split(",") if n.strip()}


def entry_points(groups: tuple[str, ...] = GROUPS, allow: set[str] | None = None
                 ) -> list[EntryPoint]:
    """Every entry point of ``groups``, sorted by distribution, group and name so the outcome
    never depends on the order of ``sys.path``; a distribution visible twice (an editable
    install beside a site one) counts once, the first as Python would import it.  ``allow``:
    only these distributions (normalized names)."""
    found: list[EntryPoint] = []
    for dist, version, text in _distributions(groups):
        if allow is not None and norm(dist) not in allow:
            continue
        found.extend(EntryPoint(name, value, group, dist, version)
                     for group, name, value in _entries(text) if group in groups)
    return sorted(found, key=lambda e: (norm(e.distribution), e.group, e.name))


def installed() -> list[str]:
    """Every installed distribution that declares a bunzai entry point (for messages)."""
    return sorted({norm(e.distribution) for e in entry_points()})


def _distributions(groups: tuple[str, ...] = GROUPS) -> Iterator[tuple[str, str | None, str]]:
    """(name, version, entry_points.txt) of each distribution on ``sys.path`` that declares
    entry points of ``groups``; only those have their metadata headers read (a tool's
    environment holds dozens of others)."""
    seen: set[str] = set()
    marks = tuple(f"[{g}]" for g in groups)
    for entry in sys.path:
        try:
            names = sorted(os.listdir(entry or "."))
        except OSError:
            continue
        for folder in names:
            if not folder.endswith((".dist-info", ".egg-info")):
                continue
            key = norm(_folder_parts(folder)[0])
            if key in seen:
                continue
            where = os.path.join(entry or ".", folder)
            try:
                with open(os.path.join(where, "entry_points.txt"), encoding="utf-8") as fh:
                    text = fh.read()
            except OSError:
                continue
            seen.add(key)
            if any(mark in text for mark in marks):
                name, version = _name_and_version(where, folder)
                yield name, version, text


def _folder_parts(folder: str) -> tuple[str, str]:
    """The distribution's name and version as its metadata folder spells them
    (``bunzai_core-0.1.0.dist-info``; the version empty when the folder gives none)."""
    name, _, version = folder.rsplit(".", 1)[0].partition("-")
    return name, version


def _name_and_version(where: str, folder: str) -> tuple[str, str | None]:
    """The ``Name`` and ``Version`` headers of the distribution's metadata; the folder's name
    when they cannot be read."""
    name, version = _folder_parts(folder)
    found: dict[str, str] = {}
    for meta in ("METADATA", "PKG-INFO"):
        try:
            with open(os.path.join(where, meta), encoding="utf-8") as fh:
                for line in fh:
                    if not line.strip():
                        break  # the headers end at the first blank line
                    key, sep, value = line.partition(":")
                    if sep and key in ("Name", "Version"):
                        found.setdefault(key, value.strip())
        except OSError:
            continue
        break
    return found.get("Name", name), found.get("Version", version.split("-")[0] or None)


def _entries(text: str) -> Iterator[tuple[str, str, str]]:
    """(group, name, value) of each ``name = value`` line of an ``entry_points.txt``."""
    group = ""
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            group = line.strip("[]").strip()
        elif "=" in line:
            name, _, value = line.partition("=")
            yield group, name.strip(), value.strip()

"""Plugin entry points read cheaply, for ``bunzai --help``.

The help lists plugin commands, and everything that loads plugins properly
(:mod:`bunzai.plugins`) costs more than the rest of the help's start: ``importlib.metadata``
with the email parser behind it, pluggy, core's data types.  This module imports none of them.
"""

from __future__ import annotations

import os
import re
import sys
from collections.abc import Mapping
from importlib import import_module
from typing import Any


def norm(name: str) -> str:
    """A distribution name as packaging compares them."""
    return re.sub(r"[-_.]+", "-", name).lower()


def command_plugins(environ: Mapping[str, str] | None = None) -> list[tuple[str, str, str]]:
    """``(name, object path, distribution)`` of each ``bunzai.plugins`` entry point, found
    without importing ``importlib.metadata``.

    ``bunzai --help`` lists plugin commands, and importing ``importlib.metadata`` (the email
    parser and zip support behind it) would cost it more than the rest of its start.  This reads
    the ``entry_points.txt`` of each ``*.dist-info`` folder on ``sys.path`` instead, honouring the
    kill switches; a distribution seen twice counts once (the first on ``sys.path``, as Python
    imports it).  It serves only that listing: loading plugins goes through
    :class:`bunzai.plugins.PluginHost`.
    """
    env = os.environ if environ is None else environ
    if env.get("BUNZAI_DISABLE_PLUGIN_AUTOLOAD", "") not in ("", "0", "false"):
        return []
    allow = ({norm(a) for a in env["BUNZAI_LOAD_PLUGINS"].split(",") if a.strip()}
             if "BUNZAI_LOAD_PLUGINS" in env else None)
    found: list[tuple[str, str, str]] = []
    seen: set[str] = set()
    for entry in sys.path:
        try:
            names = os.listdir(entry or ".")
        except OSError:
            continue
        for folder in sorted(n for n in names if n.endswith(".dist-info")):
            dist = norm(folder[: -len(".dist-info")].rsplit("-", 1)[0])
            if dist in seen:
                continue
            seen.add(dist)
            if allow is not None and dist not in allow:
                continue
            try:
                with open(os.path.join(entry or ".", folder, "entry_points.txt"),
                          encoding="utf-8") as fh:
                    text = fh.read()
            except OSError:
                continue
            found.extend((name, value, dist) for name, value in
                         _section(text, "bunzai.plugins"))
    return sorted(found, key=lambda f: (f[2], f[0]))


def _section(text: str, group: str) -> list[tuple[str, str]]:
    """``name = value`` lines of one ``[group]`` of an ``entry_points.txt``."""
    out: list[tuple[str, str]] = []
    inside = False
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            inside = line == f"[{group}]"
        elif inside and "=" in line:
            name, _, value = line.partition("=")
            out.append((name.strip(), value.strip()))
    return out


def load(path: str) -> Any:
    """The object an entry point names (``module:attr``); a class is instantiated."""
    module, _, attr = path.partition(":")
    obj: Any = import_module(module)
    for part in filter(None, attr.split(".")):
        obj = getattr(obj, part)
    return obj() if isinstance(obj, type) else obj

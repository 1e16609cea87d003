"""Lazy exports: a package names what it offers and where it lives, and imports it on first use.

``bunzai`` and ``bunzai.sdk`` are façades over modules deep in the tree.  Importing all of them
up front would make ``import bunzai`` (and every ``bunzai`` command, and detection, which
imports every adapter module) pay for pydantic models and parsers it may never touch, so a
façade declares ``name -> module`` and the module is imported when the name is first asked for.
"""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterable, Mapping
from importlib import import_module
from typing import Any


def lazy_exports(package: str, exports: Mapping[str, Iterable[str]], *,
                 own: Iterable[str] = (), also: Iterable[str] = ()
                 ) -> tuple[Callable[[str], Any], Callable[[], list[str]]]:
    """``(__getattr__, __dir__)`` for ``package``: ``exports`` maps each module (absolute, or
    relative to ``package`` with a leading dot) to the names it gives.  A name is imported once,
    then kept in the package's namespace; ``dir()`` lists every export and ``also`` (the
    package's submodules, say) though none is imported yet.

    ``__all__`` is set here to every export and the names the package holds itself (``own``),
    so nobody keeps a third list by hand: type checkers, which cannot read a computed
    ``__all__``, take the package's ``from module import name as name`` re-exports instead."""
    where = {name: module for module, names in exports.items() for name in names}
    also = tuple(also)
    sys.modules[package].__all__ = sorted([*where, *own])  # type: ignore[attr-defined]

    def __getattr__(name: str) -> Any:
        module = where.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(import_module(module, sys.modules[package].__package__), name)
        setattr(sys.modules[package], name, value)
        return value

    def __dir__() -> list[str]:
        return sorted({*vars(sys.modules[package]), *where, *also})

    return __getattr__, __dir__

"""Whole libraries, as the public API: ``bunzai.library.inspect_library(dir)`` and
``bunzai.library.convert_library(dir, to=..., out_dir=...)`` (also ``bunzai.inspect_library``
and ``bunzai.convert_library``).  The code is :mod:`bunzai.engine.library`."""

from __future__ import annotations

from .engine.library import (
    TARGETS,
    Item,
    Library,
    LibraryConversion,
    LibraryInspection,
    Problem,
    convert_library,
    inspect_library,
)

__all__ = ["TARGETS", "Item", "Library", "LibraryConversion", "LibraryInspection", "Problem",
           "convert_library", "inspect_library"]

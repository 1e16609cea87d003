"""The Python API for people who script; the CLI is a thin layer over these functions."""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from .input import AdapterInput

if TYPE_CHECKING:
    from .model import Entity
    from .registry import DetectionReport, Registry
    from .types import ReadResult, WriteResult

Source = str | os.PathLike[str] | bytes | bytearray | memoryview | AdapterInput

_registry: Registry | None = None


def get_registry() -> Registry:
    """The process-wide registry, loaded from entry points on first use."""
    global _registry
    if _registry is None:
        from .registry import Registry
        _registry = Registry.load()
    return _registry


def set_registry(registry: Registry | None) -> None:
    """Replace (or with ``None``, reset) the process-wide registry; tests and embedders use it."""
    global _registry
    _registry = registry


def as_input(source: Source, filename: str | None = None) -> AdapterInput:
    """Wrap a path, bytes or an existing input as an :class:`AdapterInput`."""
    if isinstance(source, AdapterInput):
        return source
    if isinstance(source, bytes | bytearray | memoryview):
        return AdapterInput(bytes(source), filename)
    return AdapterInput.from_path(source)


def parse_options(pairs: Iterable[str] | None) -> dict[str, str]:
    """Reader/writer options from ``KEY=VALUE`` strings; the registry checks and converts them
    against what the format declares."""
    from .options import parse_pairs
    return parse_pairs(pairs)


def detect(data: Source, filename: str | None = None, *,
           registry: Registry | None = None) -> DetectionReport:
    """The registry pass: the winner (if any), its confidence and every candidate's score."""
    return (registry or get_registry()).detect(as_input(data, filename))


def read_all(source: Source, *, filename: str | None = None, format: str | None = None,
             registry: Registry | None = None, **options: Any) -> ReadResult:
    """Every entity in a file (persona backups and regex arrays hold several)."""
    reg = registry or get_registry()
    _, result, _ = reg.read(as_input(source, filename), format=format, options=options)
    return result


def read(source: Source, *, filename: str | None = None, format: str | None = None,
         registry: Registry | None = None, **options: Any) -> Entity:
    """The (first) canonical entity in a file; detection runs unless ``format`` is given."""
    return read_all(source, filename=filename, format=format, registry=registry,
                    **options).entities[0]


def write(entity: Entity | Iterable[Entity], format: str, *,
          registry: Registry | None = None, verify: bool = False, **options: Any
          ) -> WriteResult:
    """Write one entity (or several of one kind): files, suffixes and the loss report.

    ``verify`` reads the output back and adds whatever reading finds to the report (the report
    is complete without it; this is the check the test suite runs on every format)."""
    from pydantic import BaseModel
    entities = [entity] if isinstance(entity, BaseModel) else list(entity)
    return (registry or get_registry()).write(entities, format, options, verify=verify)


def convert(source: Source, to: str, *, filename: str | None = None,
            from_format: str | None = None, registry: Registry | None = None,
            verify: bool = False, strip_active: bool = False, **options: Any) -> WriteResult:
    """Read ``source`` and write it as ``to``; cross-kind conversions are refused.

    ``result.save(folder_or_path)`` writes the output as ``bunzai convert`` would;
    ``strip_active`` leaves out what :func:`bunzai.audit` finds, each removal in the loss
    report."""
    reg = registry or get_registry()
    inp = as_input(source, filename)
    _, result, _ = reg.read(inp, format=from_format)
    name = inp.filename
    del inp  # the entities hold what they need: free the input (a whole CharX) before the write
    try:
        written = reg.write(result.entities, to, options, verify=verify,
                            strip_active=strip_active)
    except Exception as exc:
        from .errors import BunzaiError
        if isinstance(exc, BunzaiError):
            raise exc.with_path(name) from None
        raise
    written.source = (os.fspath(source) if isinstance(source, str | os.PathLike)
                      else filename or name)
    return written

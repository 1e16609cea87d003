"""The Python API for people who script; the CLI is a thin layer over these functions."""

from __future__ import annotations

import os
from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from .host.registry import get_registry
from .io.input import Source, as_input

if TYPE_CHECKING:
    from .host.registry import DetectionReport, Registry
    from .host.types import ReadResult, WriteResult
    from .loss.report import LossReport
    from .model import Entity

def parse_options(pairs: Iterable[str] | None) -> dict[str, str]:
    """Reader/writer options from ``KEY=VALUE`` strings; the registry checks and converts them
    against what the format declares."""
    from .host.options import parse_pairs
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
            verify: bool = False, **options: Any) -> WriteResult:
    """Read ``source`` and write it as ``to``; cross-kind conversions are refused.

    ``result.save(folder_or_path)`` writes the output as ``bunzai convert`` would."""
    reg = registry or get_registry()
    inp = as_input(source, filename)
    _, result, _ = reg.read(inp, format=from_format)
    name = inp.filename
    del inp  # the entities hold what they need: free the input (a whole CharX) before the write
    try:
        written = reg.write(result.entities, to, options, verify=verify)
    except Exception as exc:
        from .errors import BunzaiError
        if isinstance(exc, BunzaiError):
            raise exc.with_path(name) from None
        raise
    written.source = (os.fspath(source) if isinstance(source, str | os.PathLike)
                      else filename or name)
    return written


def lorebook_of(entity: Entity) -> Entity:
    """A card's (or module's) embedded lorebook, as a standalone lorebook."""
    from .engine.lorebooks import extract
    return extract(entity)


def chats_of(entity: Entity, *, registry: Registry | None = None) -> list[Entity]:
    """The chats an entity carries (a Backyard archive's scenario logs), as canonical chats."""
    from .engine.chats import extract
    return extract(registry or get_registry(), entity)


def with_chat(entity: Entity, chat: Entity, *, registry: Registry | None = None
              ) -> tuple[Entity, LossReport]:
    """A copy of ``entity`` carrying ``chat`` as one more of its chats, and what the entity's
    format cannot hold of the chat."""
    from .engine.chats import embed
    return embed(registry or get_registry(), entity, chat)  # type: ignore[arg-type]

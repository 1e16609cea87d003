"""The engine's API: what the CLI, the studio and scripts do with files, typed.

Two families.  The one-shot functions raise on a bad file, for scripts (``read``, ``convert``…).
The file operations return a result with the file's error inside it (``inspect_file``,
``convert_file``, ``convert_batch``…), for front ends that go on past a bad file; the CLI and
the studio use these and nothing below them.  Everything here is a thin layer over
:mod:`bunzai.engine`: one path reads a file (detection, then the hint for a missing plugin,
then the reader), one writes it.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from ._lazy import lazy_exports
from .host.registry import get_registry, set_registry
from .io.input import Source, as_input

if TYPE_CHECKING:
    from .engine.assets import Extraction, extract_assets
    from .engine.audit import FileAudit, audit, audit_many
    from .engine.batch import BatchConversion, BatchFile, convert_batch, makes_batch
    from .engine.converting import (
        Conversion,
        convert_file,
        embed_chat,
        embed_lorebook,
        extract_chats,
        extract_lorebook,
        merge_lorebooks,
    )
    from .engine.diff import Difference, diff_files, diff_folders
    from .engine.inspecting import (
        Inspection,
        Labelling,
        Validation,
        inspect_file,
        label_file,
        validate_file,
    )
    from .engine.library import (
        LibraryConversion,
        LibraryInspection,
        convert_library,
        inspect_library,
    )
    from .engine.reading import Outcome, Reading, default_format, read_file
    from .host.detection import DetectionReport
    from .host.registry import Registry
    from .host.types import FormatInfo, ReadResult, WriteResult
    from .io.containers.media import sniff_media
    from .io.frozen import thaw
    from .io.jsonio import dumps
    from .io.limits import Limits, get_limits, set_limits
    from .io.outputs import file_names, output_names, safe_name, source_stem
    from .kinds import ANY_KIND, KINDS
    from .loss.report import LossReport
    from .model import Entity

__getattr__, __dir__ = lazy_exports(__name__, {
    ".engine.assets": ("Extraction", "extract_assets"),
    ".engine.audit": ("FileAudit", "audit", "audit_many"),
    ".engine.batch": ("BatchConversion", "BatchFile", "convert_batch", "makes_batch"),
    ".engine.converting": ("Conversion", "convert_file", "embed_chat", "embed_lorebook",
                           "extract_chats", "extract_lorebook", "merge_lorebooks"),
    ".engine.diff": ("Difference", "diff_files", "diff_folders"),
    ".engine.inspecting": ("Inspection", "Labelling", "Validation", "inspect_file",
                           "label_file", "validate_file"),
    ".engine.library": ("LibraryConversion", "LibraryInspection", "convert_library",
                        "inspect_library"),
    ".engine.reading": ("Outcome", "Reading", "default_format", "read_file"),
    ".io.outputs": ("file_names", "output_names", "safe_name", "source_stem"),
    ".io.containers.media": ("sniff_media",),
    ".io.frozen": ("thaw",),
    ".io.jsonio": ("dumps",),
    ".io.limits": ("Limits", "get_limits", "set_limits"),
    ".kinds": ("ANY_KIND", "KINDS"),
    ".host.registry": ("Registry",),
})


def parse_options(pairs: Iterable[str] | None) -> dict[str, str]:
    """Reader/writer options from ``KEY=VALUE`` strings; the registry checks and converts them
    against what the format declares."""
    from .host.options import parse_pairs
    return parse_pairs(pairs)


def formats(kind: str | None = None, *, registry: Registry | None = None) -> list[FormatInfo]:
    """Every installed format (of ``kind``), as its adapter declares it."""
    return (registry or get_registry()).formats(kind)


def format_rows(*, registry: Registry | None = None) -> list[dict[str, Any]]:
    """Every installed format as ``bunzai formats --json`` shows it."""
    from .engine.roster import roster_json
    return roster_json(registry or get_registry())


def detect(data: Source, filename: str | None = None, *,
           registry: Registry | None = None) -> DetectionReport:
    """The registry pass: the winner (if any), its confidence and every candidate's score."""
    return (registry or get_registry()).detect(as_input(data, filename))


def read_all(source: Source, *, filename: str | None = None, format: str | None = None,
             registry: Registry | None = None, **options: Any) -> ReadResult:
    """Every entity in a file (persona backups and regex arrays hold several)."""
    reg = registry or get_registry()
    return reg.read(as_input(source, filename), format=format, options=options)[1]


def read(source: Source, *, filename: str | None = None, format: str | None = None,
         registry: Registry | None = None, **options: Any) -> Entity:
    """The (first) canonical entity in a file; detection runs unless ``format`` is given."""
    return read_all(source, filename=filename, format=format, registry=registry,
                    **options).entities[0]


def write(entity: Entity | Iterable[Entity], format: str, *,
          registry: Registry | None = None, verify: bool = False, strip_active: bool = False,
          **options: Any) -> WriteResult:
    """Write one entity (or several of one kind): files, suffixes and the loss report.

    ``verify`` reads the output back and adds whatever reading finds to the report (the report
    is complete without it; this is the check the test suite runs on every format);
    ``strip_active`` leaves out what :func:`audit` finds, each removal in the report."""
    from pydantic import BaseModel

    from .engine.converting import write_entities
    entities = [entity] if isinstance(entity, BaseModel) else list(entity)
    return write_entities(entities, format, options, registry=registry, verify=verify,
                          strip_active=strip_active)


def convert(source: Source, to: str, *, filename: str | None = None,
            from_format: str | None = None, registry: Registry | None = None,
            verify: bool = False, strip_active: bool = False, **options: Any) -> WriteResult:
    """Read ``source`` and write it as ``to``; cross-kind conversions are refused.

    ``result.save(folder_or_path)`` writes the output as ``bunzai convert`` would;
    ``strip_active`` leaves out what :func:`audit` finds, each removal in the loss report."""
    from .engine.converting import convert_file

    found = convert_file(source, to, filename=filename, from_format=from_format,
                         options=options, registry=registry, verify=verify,
                         strip_active=strip_active)
    if found.error is not None:
        raise found.error
    assert found.written is not None  # no error: it has written
    return found.written


def lorebook_of(entity: Entity) -> Entity:
    """A card's (or module's) embedded lorebook, as a standalone lorebook."""
    from .engine.lorebooks import extract
    return extract(entity)


def chats_of(entity: Entity, *, registry: Registry | None = None) -> list[Entity]:
    """The chats an entity carries (a Backyard archive's scenario logs), as canonical chats."""
    from .engine.chats import extract
    return extract(registry or get_registry(), entity)  # type: ignore[return-value]


def with_chat(entity: Entity, chat: Entity, *, registry: Registry | None = None
              ) -> tuple[Entity, LossReport]:
    """A copy of ``entity`` carrying ``chat`` as one more of its chats, and what the entity's
    format cannot hold of the chat."""
    from .engine.chats import embed
    return embed(registry or get_registry(), entity, chat)  # type: ignore[arg-type]


__all__ = [
    "ANY_KIND",
    "KINDS",
    "BatchConversion",
    "BatchFile",
    "Conversion",
    "Difference",
    "Extraction",
    "FileAudit",
    "Inspection",
    "Labelling",
    "LibraryConversion",
    "LibraryInspection",
    "Limits",
    "Outcome",
    "Reading",
    "Registry",
    "Source",
    "Validation",
    "as_input",
    "audit",
    "audit_many",
    "chats_of",
    "convert",
    "convert_batch",
    "convert_file",
    "convert_library",
    "default_format",
    "detect",
    "diff_files",
    "diff_folders",
    "dumps",
    "embed_chat",
    "embed_lorebook",
    "extract_assets",
    "extract_chats",
    "extract_lorebook",
    "file_names",
    "format_rows",
    "formats",
    "get_limits",
    "get_registry",
    "inspect_file",
    "inspect_library",
    "label_file",
    "lorebook_of",
    "makes_batch",
    "merge_lorebooks",
    "output_names",
    "parse_options",
    "read",
    "read_all",
    "read_file",
    "safe_name",
    "set_limits",
    "set_registry",
    "sniff_media",
    "source_stem",
    "thaw",
    "validate_file",
    "with_chat",
    "write",
]

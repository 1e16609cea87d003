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
from .host.registry import get_registry as get_registry
from .host.registry import set_registry as set_registry
from .io.input import Source as Source
from .io.input import as_input as as_input

# What this module gives but does not define is named twice: imported here (``X as X``
# re-exports it to type checkers) and in the table below, which imports it on first use; the
# table and ``own`` make ``__all__``.
if TYPE_CHECKING:
    from .engine.assets import Extraction as Extraction
    from .engine.assets import extract_assets as extract_assets
    from .engine.audit import FileAudit as FileAudit
    from .engine.audit import audit as audit
    from .engine.audit import audit_many as audit_many
    from .engine.batch import BatchConversion as BatchConversion
    from .engine.batch import BatchFile as BatchFile
    from .engine.batch import convert_batch as convert_batch
    from .engine.batch import makes_batch as makes_batch
    from .engine.converting import Conversion as Conversion
    from .engine.converting import convert_file as convert_file
    from .engine.converting import embed_chat as embed_chat
    from .engine.converting import embed_lorebook as embed_lorebook
    from .engine.converting import extract_chats as extract_chats
    from .engine.converting import extract_lorebook as extract_lorebook
    from .engine.converting import merge_lorebooks as merge_lorebooks
    from .engine.diff import Difference as Difference
    from .engine.diff import diff_files as diff_files
    from .engine.diff import diff_folders as diff_folders
    from .engine.inspecting import Inspection as Inspection
    from .engine.inspecting import Labelling as Labelling
    from .engine.inspecting import Validation as Validation
    from .engine.inspecting import inspect_file as inspect_file
    from .engine.inspecting import label_file as label_file
    from .engine.inspecting import validate_file as validate_file
    from .engine.library import LibraryConversion as LibraryConversion
    from .engine.library import LibraryInspection as LibraryInspection
    from .engine.library import convert_library as convert_library
    from .engine.library import inspect_library as inspect_library
    from .engine.reading import Outcome as Outcome
    from .engine.reading import Reading as Reading
    from .engine.reading import default_format as default_format
    from .engine.reading import read_file as read_file
    from .host.detection import DetectionReport
    from .host.registry import Registry as Registry
    from .host.types import FormatInfo, ReadResult, WriteResult
    from .io.containers.media import sniff_media as sniff_media
    from .io.frozen import thaw as thaw
    from .io.jsonio import dumps as dumps
    from .io.limits import Limits as Limits
    from .io.limits import get_limits as get_limits
    from .io.limits import set_limits as set_limits
    from .io.outputs import file_names as file_names
    from .io.outputs import output_names as output_names
    from .io.outputs import safe_name as safe_name
    from .io.outputs import source_stem as source_stem
    from .kinds import ANY_KIND as ANY_KIND
    from .kinds import KINDS as KINDS
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
}, own=("Source", "as_input", "chats_of", "convert", "detect", "format_rows", "formats",
        "get_registry", "lorebook_of", "parse_options", "read", "read_all", "set_registry",
        "with_chat", "write"))


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

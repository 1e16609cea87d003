"""bunzai: read, check and convert the files of AI role-play front-ends.

The public API is small and typed::

    import bunzai
    report = bunzai.detect(open("card.png", "rb").read())
    card = bunzai.read("card.png")
    out = bunzai.convert("card.png", to="risu-charx")
    out.save("converted/")                    # atomic, never over an existing file
    checked = bunzai.validate_file("book.json")  # and inspect_file, label_file, diff_files...
    found = bunzai.audit("card.png")          # what it will run: scripts, triggers, HTML...

Everything here is imported lazily, so ``import bunzai`` (and ``bunzai --help``) stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._lazy import lazy_exports
from ._version import __version__ as __version__

# Each export is named twice: here, for type checkers (``X as X`` re-exports it), and in the
# table below, which imports it on first use and makes ``__all__``.
if TYPE_CHECKING:
    from .api import BatchConversion as BatchConversion
    from .api import BatchFile as BatchFile
    from .api import Conversion as Conversion
    from .api import Difference as Difference
    from .api import Extraction as Extraction
    from .api import FileAudit as FileAudit
    from .api import Inspection as Inspection
    from .api import Labelling as Labelling
    from .api import LibraryConversion as LibraryConversion
    from .api import LibraryInspection as LibraryInspection
    from .api import Outcome as Outcome
    from .api import Reading as Reading
    from .api import Source as Source
    from .api import Validation as Validation
    from .api import as_input as as_input
    from .api import audit as audit
    from .api import audit_many as audit_many
    from .api import chats_of as chats_of
    from .api import convert as convert
    from .api import convert_batch as convert_batch
    from .api import convert_file as convert_file
    from .api import convert_library as convert_library
    from .api import default_format as default_format
    from .api import detect as detect
    from .api import diff_files as diff_files
    from .api import diff_folders as diff_folders
    from .api import embed_chat as embed_chat
    from .api import embed_lorebook as embed_lorebook
    from .api import extract_assets as extract_assets
    from .api import extract_chats as extract_chats
    from .api import extract_lorebook as extract_lorebook
    from .api import formats as formats
    from .api import get_registry as get_registry
    from .api import inspect_file as inspect_file
    from .api import inspect_library as inspect_library
    from .api import label_file as label_file
    from .api import lorebook_of as lorebook_of
    from .api import makes_batch as makes_batch
    from .api import merge_lorebooks as merge_lorebooks
    from .api import output_names as output_names
    from .api import parse_options as parse_options
    from .api import read as read
    from .api import read_all as read_all
    from .api import read_file as read_file
    from .api import safe_name as safe_name
    from .api import set_registry as set_registry
    from .api import source_stem as source_stem
    from .api import validate_file as validate_file
    from .api import with_chat as with_chat
    from .api import write as write
    from .errors import AmbiguousInput as AmbiguousInput
    from .errors import BunzaiError as BunzaiError
    from .errors import ConversionRefused as ConversionRefused
    from .errors import Issue as Issue
    from .errors import LimitExceeded as LimitExceeded
    from .errors import MalformedInput as MalformedInput
    from .errors import MissingFile as MissingFile
    from .errors import OutputError as OutputError
    from .errors import UnrecognizedInput as UnrecognizedInput
    from .errors import UnsupportedInput as UnsupportedInput
    from .errors import UsageError as UsageError
    from .host.adapter import FormatAdapter as FormatAdapter
    from .host.hookspecs import hookimpl as hookimpl
    from .host.types import API_VERSION as API_VERSION
    from .host.types import Detection as Detection
    from .host.types import FormatInfo as FormatInfo
    from .host.types import LabelRule as LabelRule
    from .host.types import Option as Option
    from .host.types import ReadResult as ReadResult
    from .host.types import WriteResult as WriteResult
    from .io.input import AdapterInput as AdapterInput
    from .io.outputs import OutputFile as OutputFile
    from .loss.report import LossEntry as LossEntry
    from .loss.report import LossReport as LossReport

__getattr__, __dir__ = lazy_exports(__name__, {
    ".api": ("BatchConversion", "BatchFile", "Conversion", "Difference", "Extraction",
             "FileAudit", "Inspection", "Labelling", "LibraryConversion", "LibraryInspection",
             "Outcome", "Reading", "Source", "Validation", "as_input", "audit", "audit_many",
             "chats_of", "convert", "convert_batch", "convert_file", "convert_library",
             "default_format", "detect", "diff_files", "diff_folders", "embed_chat",
             "embed_lorebook", "extract_assets", "extract_chats", "extract_lorebook", "formats",
             "get_registry", "inspect_file", "inspect_library", "label_file", "lorebook_of",
             "makes_batch", "merge_lorebooks", "output_names", "parse_options", "read",
             "read_all", "read_file", "safe_name", "set_registry", "source_stem",
             "validate_file", "with_chat", "write"),
    ".errors": ("AmbiguousInput", "BunzaiError", "ConversionRefused", "Issue", "LimitExceeded",
                "MalformedInput", "MissingFile", "OutputError", "UnrecognizedInput",
                "UnsupportedInput", "UsageError"),
    ".host.types": ("API_VERSION", "Detection", "FormatInfo", "LabelRule", "Option",
                    "ReadResult", "WriteResult"),
    ".host.adapter": ("FormatAdapter",),
    ".host.hookspecs": ("hookimpl",),
    ".io.input": ("AdapterInput",),
    ".io.outputs": ("OutputFile",),
    ".loss.report": ("LossEntry", "LossReport"),
}, own=("__version__",))

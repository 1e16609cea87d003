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
from ._version import __version__

if TYPE_CHECKING:
    from .api import (
        BatchConversion,
        BatchFile,
        Conversion,
        Difference,
        Extraction,
        FileAudit,
        Inspection,
        Labelling,
        LibraryConversion,
        LibraryInspection,
        Outcome,
        Reading,
        Source,
        Validation,
        as_input,
        audit,
        audit_many,
        chats_of,
        convert,
        convert_batch,
        convert_file,
        convert_library,
        default_format,
        detect,
        diff_files,
        diff_folders,
        embed_chat,
        embed_lorebook,
        extract_assets,
        extract_chats,
        extract_lorebook,
        formats,
        get_registry,
        inspect_file,
        inspect_library,
        label_file,
        lorebook_of,
        makes_batch,
        merge_lorebooks,
        output_names,
        parse_options,
        read,
        read_all,
        read_file,
        safe_name,
        set_registry,
        source_stem,
        validate_file,
        with_chat,
        write,
    )
    from .errors import (
        AmbiguousInput,
        BunzaiError,
        ConversionRefused,
        Issue,
        LimitExceeded,
        MalformedInput,
        MissingFile,
        OutputError,
        UnrecognizedInput,
        UnsupportedInput,
        UsageError,
    )
    from .host.adapter import FormatAdapter
    from .host.hookspecs import hookimpl
    from .host.types import (
        API_VERSION,
        Detection,
        FormatInfo,
        LabelRule,
        Option,
        ReadResult,
        WriteResult,
    )
    from .io.input import AdapterInput
    from .io.outputs import OutputFile
    from .loss.report import LossEntry, LossReport

_API = ("BatchConversion", "BatchFile", "Conversion", "Difference", "Extraction", "FileAudit",
        "Inspection",
        "Labelling", "LibraryConversion", "LibraryInspection", "Outcome", "Reading", "Source",
        "Validation", "as_input", "audit",
        "audit_many", "chats_of",
        "convert", "convert_batch", "convert_file", "convert_library", "default_format",
        "detect", "diff_files",
        "diff_folders", "embed_chat", "embed_lorebook", "extract_assets", "extract_chats",
        "extract_lorebook", "formats", "get_registry", "inspect_file", "inspect_library",
        "label_file",
        "lorebook_of", "makes_batch", "merge_lorebooks", "output_names", "parse_options",
        "read", "read_all", "read_file", "safe_name", "set_registry", "source_stem",
        "validate_file", "with_chat", "write")
_ERRORS = ("AmbiguousInput", "BunzaiError", "ConversionRefused", "Issue", "LimitExceeded",
           "MalformedInput", "MissingFile", "OutputError", "UnrecognizedInput", "UnsupportedInput",
           "UsageError")
_PLUGIN_API = ("API_VERSION", "Detection", "FormatInfo", "LabelRule", "Option", "ReadResult",
               "WriteResult")

__getattr__, __dir__ = lazy_exports(__name__, {
    ".api": _API,
    ".errors": _ERRORS,
    ".host.types": _PLUGIN_API,
    ".host.adapter": ("FormatAdapter",),
    ".host.hookspecs": ("hookimpl",),
    ".io.input": ("AdapterInput",),
    ".io.outputs": ("OutputFile",),
    ".loss.report": ("LossEntry", "LossReport"),
})

__all__ = [
    "API_VERSION",
    "AdapterInput",
    "AmbiguousInput",
    "BatchConversion",
    "BatchFile",
    "BunzaiError",
    "Conversion",
    "ConversionRefused",
    "Detection",
    "Difference",
    "Extraction",
    "FileAudit",
    "FormatAdapter",
    "FormatInfo",
    "Inspection",
    "Issue",
    "LabelRule",
    "Labelling",
    "LibraryConversion",
    "LibraryInspection",
    "LimitExceeded",
    "LossEntry",
    "LossReport",
    "MalformedInput",
    "MissingFile",
    "Option",
    "Outcome",
    "OutputError",
    "OutputFile",
    "ReadResult",
    "Reading",
    "Source",
    "UnrecognizedInput",
    "UnsupportedInput",
    "UsageError",
    "Validation",
    "WriteResult",
    "__version__",
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
    "embed_chat",
    "embed_lorebook",
    "extract_assets",
    "extract_chats",
    "extract_lorebook",
    "formats",
    "get_registry",
    "hookimpl",
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
    "set_registry",
    "source_stem",
    "validate_file",
    "with_chat",
    "write",
]

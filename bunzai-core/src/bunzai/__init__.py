"""bunzai: read, check and convert the files of AI role-play front-ends.

The public API is small and typed::

    import bunzai
    report = bunzai.detect(open("card.png", "rb").read())
    card = bunzai.read("card.png")
    out = bunzai.convert("card.png", to="risu-charx")
    out.save("converted/")                    # atomic, never over an existing file
    checked = bunzai.validate_file("book.json")  # and inspect_file, label_file, diff_files...

Everything here is imported lazily, so ``import bunzai`` (and ``bunzai --help``) stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ._lazy import lazy_exports

__version__ = "0.1.0"

if TYPE_CHECKING:
    from .api import chats_of, convert, detect, lorebook_of, read, read_all, with_chat, write
    from .engine.service import (
        diff_files,
        extract_assets,
        inspect_file,
        label_file,
        validate_file,
    )
    from .errors import (
        AmbiguousInput,
        BunzaiError,
        ConversionRefused,
        Issue,
        LimitExceeded,
        MalformedInput,
        UnrecognizedInput,
        UnsupportedInput,
        UsageError,
    )
    from .host.adapter import FormatAdapter
    from .host.hookspecs import hookimpl
    from .host.registry import get_registry
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

_EXPORTS = {
    ".api": ("convert", "detect", "read", "read_all", "write", "lorebook_of", "chats_of",
             "with_chat"),
    ".host.registry": ("get_registry",),
    ".host.adapter": ("FormatAdapter",),
    ".host.hookspecs": ("hookimpl",),
    ".io.input": ("AdapterInput",),
    ".loss.report": ("LossEntry", "LossReport"),
    ".host.types": ("API_VERSION", "Detection", "FormatInfo", "LabelRule", "Option",
        "ReadResult", "WriteResult"),
    ".io.outputs": ("OutputFile",),
    ".errors": ("Issue", "AmbiguousInput", "BunzaiError", "ConversionRefused", "LimitExceeded",
        "MalformedInput", "UnrecognizedInput", "UnsupportedInput", "UsageError"),
    ".engine.service": ("inspect_file", "validate_file", "label_file", "diff_files",
        "extract_assets"),
}


__all__ = [
    "API_VERSION",
    "AdapterInput",
    "AmbiguousInput",
    "BunzaiError",
    "ConversionRefused",
    "Detection",
    "FormatAdapter",
    "FormatInfo",
    "Issue",
    "LabelRule",
    "LimitExceeded",
    "LossEntry",
    "LossReport",
    "MalformedInput",
    "Option",
    "OutputFile",
    "ReadResult",
    "UnrecognizedInput",
    "UnsupportedInput",
    "UsageError",
    "WriteResult",
    "__version__",
    "chats_of",
    "convert",
    "detect",
    "diff_files",
    "extract_assets",
    "get_registry",
    "hookimpl",
    "inspect_file",
    "label_file",
    "lorebook_of",
    "read",
    "read_all",
    "validate_file",
    "with_chat",
    "write",
]


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS)

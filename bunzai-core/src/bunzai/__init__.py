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

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from .adapter import FormatAdapter
    from .api import convert, detect, get_registry, read, read_all, write
    from .engine.audit import audit
    from .errors import (
        AmbiguousInput,
        BunzaiError,
        ConversionRefused,
        LimitExceeded,
        MalformedInput,
        UnrecognizedInput,
        UnsupportedInput,
        UsageError,
    )
    from .hookspecs import hookimpl
    from .input import AdapterInput
    from .loss import LossEntry, LossReport
    from .service import (
        diff_files,
        extract_assets,
        inspect_file,
        label_file,
        validate_file,
    )
    from .types import (
        API_VERSION,
        Detection,
        FormatInfo,
        Issue,
        LabelRule,
        Option,
        OutputFile,
        ReadResult,
        WriteResult,
    )

_LAZY = {
    "convert": "api", "detect": "api", "read": "api", "read_all": "api", "write": "api",
    "get_registry": "api",
    "FormatAdapter": "adapter", "hookimpl": "hookspecs", "AdapterInput": "input",
    "LossEntry": "loss", "LossReport": "loss",
    "API_VERSION": "types", "Detection": "types", "FormatInfo": "types", "Issue": "types",
    "LabelRule": "types", "Option": "types", "OutputFile": "types", "ReadResult": "types",
    "WriteResult": "types",
    "AmbiguousInput": "errors", "BunzaiError": "errors", "ConversionRefused": "errors",
    "LimitExceeded": "errors", "MalformedInput": "errors", "UnrecognizedInput": "errors",
    "UnsupportedInput": "errors", "UsageError": "errors",
    "inspect_file": "service", "validate_file": "service", "label_file": "service",
    "diff_files": "service", "extract_assets": "service",
    "audit": "engine.audit",
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
    "audit",
    "convert",
    "detect",
    "diff_files",
    "extract_assets",
    "get_registry",
    "hookimpl",
    "inspect_file",
    "label_file",
    "read",
    "read_all",
    "validate_file",
    "write",
]


def __dir__() -> list[str]:
    """What ``dir(bunzai)`` shows: the public API, though it is imported only when used."""
    return sorted({*globals(), *__all__})


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'bunzai' has no attribute {name!r}")
    from importlib import import_module
    value = getattr(import_module(f"bunzai.{module}"), name)
    globals()[name] = value
    return value

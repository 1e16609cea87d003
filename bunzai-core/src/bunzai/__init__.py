"""bunzai: read, check and convert the files of AI role-play front-ends.

The public API is small and typed::

    import bunzai
    report = bunzai.detect(open("card.png", "rb").read())
    card = bunzai.read("card.png")
    out = bunzai.convert("card.png", to="risu-charx")

Everything here is imported lazily, so ``import bunzai`` (and ``bunzai --help``) stays cheap.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__version__ = "0.1.0"

if TYPE_CHECKING:
    from .adapter import FormatAdapter
    from .api import convert, detect, get_registry, read, read_all, write
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
    from .types import (
        API_VERSION,
        Detection,
        FormatInfo,
        Issue,
        LabelRule,
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
    "LabelRule": "types", "OutputFile": "types", "ReadResult": "types", "WriteResult": "types",
    "AmbiguousInput": "errors", "BunzaiError": "errors", "ConversionRefused": "errors",
    "LimitExceeded": "errors", "MalformedInput": "errors", "UnrecognizedInput": "errors",
    "UnsupportedInput": "errors", "UsageError": "errors",
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
    "OutputFile",
    "ReadResult",
    "UnrecognizedInput",
    "UnsupportedInput",
    "UsageError",
    "WriteResult",
    "__version__",
    "convert",
    "detect",
    "get_registry",
    "hookimpl",
    "read",
    "read_all",
    "write",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'bunzai' has no attribute {name!r}")
    from importlib import import_module
    value = getattr(import_module(f"bunzai.{module}"), name)
    globals()[name] = value
    return value

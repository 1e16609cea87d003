"""What can be wrong: bunzai's exception types, and the issues validation finds.

Every failure a user can cause (a bad file, an unknown format, a refused conversion) is raised as
a :class:`BunzaiError` subclass carrying the exit code the CLI reports.  Nothing else is allowed to
escape the public API: a ``KeyError`` or ``struct.error`` from a parser is a bug.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal


class BunzaiError(Exception):
    """Base class of every error bunzai raises on purpose."""

    exit_code: int = 4

    def __init__(self, message: str, *, path: str | None = None) -> None:
        super().__init__(message)
        self.message = message
        self.path = path

    def with_path(self, path: str | None) -> BunzaiError:
        """Attach the file the error is about, unless one is already set."""
        if self.path is None and path is not None:
            self.path = path
        return self

    def __str__(self) -> str:
        if self.path:
            return f"{self.path}: {self.message}"
        return self.message


class UsageError(BunzaiError):
    """The caller asked for something impossible (unknown format id, bad option)."""

    exit_code = 2


class UnrecognizedInput(BunzaiError):
    """No adapter's score cleared the detection threshold."""

    exit_code = 3


class AmbiguousInput(BunzaiError):
    """Two or more adapters tied for the highest score."""

    exit_code = 3

    def __init__(self, message: str, *, formats: Sequence[str], path: str | None = None) -> None:
        super().__init__(message, path=path)
        self.formats = list(formats)


class MalformedInput(BunzaiError):
    """The file is recognised (or claimed) but cannot be read: truncated, corrupt, wrong types."""

    exit_code = 4


class LimitExceeded(MalformedInput):
    """A configured safety limit was hit before allocating; the message names the setting."""

    def __init__(self, what: str, value: int, limit: int, setting: str, *,
                 unit: str = "bytes", message: str | None = None,
                 path: str | None = None) -> None:
        super().__init__(
            message or f"{what} is {value:,} {unit}, over the limit of {limit:,} "
                       f"(raise it with {setting})",
            path=path,
        )
        self.what = what
        self.value = value
        self.limit = limit
        self.setting = setting


class UnsupportedInput(MalformedInput):
    """The file is understood but uses a feature bunzai deliberately does not handle."""


class ConversionRefused(BunzaiError):
    """A conversion that must not happen: cross-kind, or an output that exists without --force."""

    exit_code = 5


class OutputError(ConversionRefused):
    """The output could not be written (disk full, permission denied, read-only folder).

    Nothing was left behind: no partial file, and an existing file at that path is unchanged.
    It shares exit code 5 with a refused conversion: in both cases no output was produced.
    """


class PluginError(BunzaiError):
    """A plugin could not be loaded or misbehaved; the host keeps running without it."""

    exit_code = 4


@dataclass(frozen=True, slots=True)
class Issue:
    """One validation finding, located by a JSON path into the source (``$.data.name``)."""

    path: str
    message: str
    severity: Literal["error", "warning"] = "warning"

    def to_dict(self) -> dict[str, str]:
        return {"path": self.path, "message": self.message, "severity": self.severity}

"""What can be wrong: bunzai's exception types, and the issues validation finds.

Every failure a user can cause (a bad file, an unknown format, a refused conversion) is raised as
a :class:`BunzaiError` subclass carrying the exit code the CLI reports.  Nothing else is allowed to
escape the public API: a ``KeyError`` or ``struct.error`` from a parser is a bug.
"""

from __future__ import annotations

import errno
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Literal

API_WORDS: Mapping[str, str] = {
    "force": "force=True",
    "replace": "replace=True",
    "merge": "merge=True",
    "to": "to='FORMAT'",
    "max_size": "bunzai.set_limits(bunzai.get_limits().replace(max_size=BYTES))",
}
"""The settings a remedy may name, as the Python API spells them.  A front end that calls them
something else (the CLI's ``--force``) speaks through :func:`speaking` with a word for each."""

_words: Mapping[str, str] = API_WORDS


def words() -> Mapping[str, str]:
    """How the current front end spells each setting (:data:`API_WORDS` unless it says)."""
    return _words


@contextmanager
def speaking(words: Mapping[str, str]) -> Iterator[None]:
    """Inside this block, every error says what to do in ``words`` (a front end's spelling of
    each name in :data:`API_WORDS`).  Process-wide, so what a command's forked workers say is
    worded like the command."""
    global _words
    before, _words = _words, words
    try:
        yield
    finally:
        _words = before


class BunzaiError(Exception):
    """Base class of every error bunzai raises on purpose.

    ``message`` is the problem and, when the error has one, its ``remedy``: what the caller can
    do, a template naming settings by their API name (``"pass {force} to overwrite"``), read
    in the words of whoever called (``force=True`` from Python, ``--force`` from the CLI)."""

    exit_code: int = 4

    def __init__(self, message: str, *, path: str | None = None,
                 remedy: str | None = None) -> None:
        super().__init__(message)
        if remedy is not None:
            from string import Formatter  # only a remedy that names settings is parsed

            unknown = {f for _, f, _, _ in Formatter().parse(remedy) if f} - set(API_WORDS)
            if unknown:
                raise ValueError(f"a remedy names settings with no words: {sorted(unknown)}")
        self.problem = message
        self.remedy = remedy
        self.path = path

    @property
    def message(self) -> str:
        """The problem, then what to do about it in the current front end's words."""
        if self.remedy is None:
            return self.problem
        return f"{self.problem}; {self.remedy.format_map(_words)}"

    @message.setter
    def message(self, text: str) -> None:
        """Replace the whole text (remedy included)."""
        self.problem, self.remedy = text, None

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


class MissingFile(BunzaiError, FileNotFoundError):
    """The file to read is not there: a :class:`FileNotFoundError` as Python's own ``open``
    raises, and a bunzai error (exit code 4, unreadable) to the CLI."""

    exit_code = 4

    def __init__(self, message: str = "no such file", *, path: str | None = None) -> None:
        super().__init__(message, path=path)
        self.errno, self.strerror, self.filename = errno.ENOENT, message, path

    def __str__(self) -> str:
        return BunzaiError.__str__(self)


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
    """A conversion that must not happen: cross-kind, or an output that exists (unless forced)."""

    exit_code = 5


class NoTargetForKind(ConversionRefused):
    """The target format holds another kind than the file, or the name given is an alias of
    formats of other kinds only (``--to json`` on a preset): a batch skips such a file."""


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

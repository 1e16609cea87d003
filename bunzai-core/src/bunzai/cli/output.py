"""What the command line prints: human lines (silenced by ``--quiet``), JSON lines, one-line
errors on stderr, and the loss report as people read it, the same for every command."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, NoReturn, TextIO

import typer

from ..errors import BunzaiError

if TYPE_CHECKING:
    from ..host.types import WriteResult
    from ..loss.report import LossReport

QUIET = False
VERBOSE = False

CLI_WORDS = {"force": "--force", "replace": "--replace", "merge": "--merge",
             "to": "--to FORMAT", "max_size": "--max-size"}
"""The options an error's remedy names, as the command line spells them (the engine's errors
name settings by their Python name: see :class:`bunzai.errors.BunzaiError`)."""


def say(text: str = "") -> None:
    """Human output; silenced by --quiet."""
    if not QUIET:
        typer.echo(text)


def emit_json(obj: Any) -> None:
    import json

    typer.echo(json.dumps(obj, ensure_ascii=False, default=str))


def stream(results: Iterable[Any], as_json: bool, show: Callable[[Any], None],
           progress: Callable[[], str]) -> None:
    """Print each result of a long run as it comes (its JSON line, or ``show``), the way
    ``convert`` on many files and ``library convert`` report: a progress line on stderr
    (``progress``, asked after each result) redrawn below the results and cleared at the end,
    only on a terminal and never with ``--quiet`` or ``--json``."""
    live = sys.stderr.isatty() and not QUIET and not as_json
    for res in results:
        if live:
            sys.stderr.write("\r\x1b[K")
        if as_json:
            emit_json(res.to_dict())
        else:
            show(res)
        if live:
            sys.stderr.write(progress())
            sys.stderr.flush()
    if live:
        sys.stderr.write("\r\x1b[K")
        sys.stderr.flush()


def _use_colour() -> bool:
    return sys.stderr.isatty() and not os.environ.get("NO_COLOR") and \
        os.environ.get("TERM") != "dumb"


def error(exc: BunzaiError | str) -> None:
    """One line on stderr naming the file and the problem (never silenced)."""
    prefix = typer.style("bunzai: error:", fg="red", bold=True) if _use_colour() \
        else "bunzai: error:"
    typer.echo(f"{prefix} {exc}", err=True, color=_use_colour())


def warning(text: str) -> None:
    if not QUIET:
        typer.echo(f"bunzai: warning: {text}", err=True)


def fail(exc: BunzaiError, as_json: bool = False) -> NoReturn:
    """End the command on an error; with ``--json`` it is also a JSON object on stdout, so a
    script reading JSON always gets an answer."""
    if as_json:
        emit_json({"path": exc.path, "error": exc.message, "exit_code": exc.exit_code})
    error(exc)
    raise typer.Exit(exc.exit_code)


def done(code: int) -> None:
    if code:
        raise typer.Exit(code)


def show_loss(loss: LossReport | None, indent: str = "  ", *, summary: bool = True) -> None:
    """The loss report for people: its summary (unless the caller printed it), then one line
    per group (every entry with ``--verbose``); ``nothing lost`` when it is empty.  Every
    command that writes prints its report through here."""
    if loss is None:
        return
    lines = loss.lines(verbose=VERBOSE)
    if summary:
        say(f"{indent}nothing lost" if not loss else f"{indent}loss: {lines[0]}")
    for line in lines[1:]:
        say(f"{indent}  {line}")


def show_verified(written: WriteResult | None, indent: str = "  ") -> None:
    """That the output was read back, and what that found (``--verify``)."""
    if written is not None and written.verified is not None:
        say(f"{indent}{written.verified.summary()}")


class ClosedPipeSafe:
    """stdout that goes quiet once its reader has gone (``bunzai label X | head -2``): the rest
    of the output is dropped, the command finishes and exits with its own status, and nothing
    is printed about the pipe."""

    def __init__(self, stream: TextIO) -> None:
        self._stream = stream
        self._gone = False

    def write(self, text: str) -> int:
        if not self._gone:
            try:
                return self._stream.write(text)
            except BrokenPipeError:
                self._drop()
        return len(text)

    def flush(self) -> None:
        if not self._gone:
            try:
                self._stream.flush()
            except BrokenPipeError:
                self._drop()

    def _drop(self) -> None:
        self._gone = True
        # what the stream still buffers now goes nowhere, even at interpreter exit
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), self._stream.fileno())

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)

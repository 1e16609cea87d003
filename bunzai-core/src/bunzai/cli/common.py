"""What every command does with its arguments: the registry, the size limit, ``--from``
checked and the files found before any is read, each file worked and shown in turn, and a
written result saved and shown."""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ..errors import BunzaiError, UsageError
from .output import emit_json, error, fail, say, show_loss, show_verified, warning

if TYPE_CHECKING:
    from ..engine.converting import Conversion
    from ..engine.reading import Outcome
    from ..host.registry import Registry

_NOTED: set[int] = set()


def loaded_registry() -> Registry:
    """The process-wide registry; its configuration warnings are shown once."""
    from ..host.registry import get_registry
    reg = get_registry()
    if id(reg) not in _NOTED:
        _NOTED.add(id(reg))
        for note in reg.host.notes:
            warning(note)
    return reg


def apply_limits(max_size: int | None) -> None:
    if max_size is not None:
        from ..io.limits import get_limits, set_limits
        set_limits(get_limits().replace(max_size=max_size))


def files_of(paths: Sequence[Path]) -> list[Path]:
    """The files behind the arguments: folders walked, globs matched, each file once."""
    from ..io.sources import expand_sources
    found = expand_sources(os.fspath(p) for p in paths)
    if not found:
        raise UsageError("is a folder with no files to read", path=str(paths[0]))
    return found


def start(paths: Sequence[Path], from_: str | None, max_size: int | None, as_json: bool
          ) -> tuple[Registry, list[Path]]:
    """What every reading command does first: the limit, the registry, ``--from`` checked,
    and the files found; a problem with any of them ends the command before a file is read."""
    from ..engine.reading import check_source_format

    try:
        apply_limits(max_size)
        reg = loaded_registry()
        check_source_format(from_, reg)
        return reg, files_of(paths)
    except BunzaiError as exc:
        fail(exc, as_json)


def many(paths: Sequence[Path], files: Sequence[Path]) -> bool:
    return len(files) > 1 or any(p.is_dir() for p in paths)


def each(files: Sequence[Path], work: Callable[[Path], Any],
         show: Callable[[Any], None], as_json: bool,
         as_dict: Callable[[Any], dict[str, Any]] | None = None) -> list[Any]:
    """Run ``work`` on every file: its JSON line or human block, its error on stderr."""
    results = []
    for path in files:
        res = work(path)
        if as_json:
            emit_json(as_dict(res) if as_dict else res.to_dict())
        else:
            show(res)
        if res.error is not None:
            error(res.error)
        results.append(res)
    return results


def worst(results: Sequence[Outcome]) -> int:
    return max((r.exit_code for r in results), default=0)


FilesArg = Annotated[list[Path], typer.Argument(
    metavar="FILE…", help="Files, folders (every file inside) or globs.", show_default=False)]
JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object per file.")]
FromOpt = Annotated[str | None, typer.Option("--from", "-f", metavar="FORMAT",
                                             help="Skip detection: read as this format.")]
MaxSizeOpt = Annotated[
    int | None,
    typer.Option("--max-size", metavar="BYTES", show_default=False,
                 help="Largest input accepted, in bytes (default 256 MiB)."),
]
ForceOpt = Annotated[bool, typer.Option("--force", help="Overwrite an existing output.")]
StripOpt = Annotated[bool, typer.Option(
    "--strip-active", help="Leave out what 'bunzai audit' finds (scripts, triggers, HTML, remote "
                           "files), each removal in the loss report.")]
OutOpt = Annotated[Path, typer.Option("--out", "-o", metavar="FILE", help="File to write.")]


STDIN = STDOUT = "-"
"""The file name that stands for standard input (a source) or output (``-o -``)."""
STDIN_NAME = "<stdin>"
"""What a file read from standard input is called in messages."""


def read_stdin() -> bytes:
    """Standard input's bytes as they are (binary-safe), no more than the size limit and one
    byte (so the reader reports a file over the limit, as it does for a named file)."""
    from ..io.limits import get_limits

    stream = getattr(sys.stdin, "buffer", None)
    if stream is None:
        raise UsageError("standard input cannot be read as bytes")
    try:
        return bytes(stream.read(get_limits().max_size + 1))
    except OSError as exc:
        raise UsageError(f"cannot read standard input: {exc.strerror or exc}") from None


def present(conv: Conversion, where: str | os.PathLike[str], force: bool, as_json: bool,
            after: Callable[[], None] | None = None) -> None:
    """Save a written result to ``where`` (``-``: standard output, the report then going to
    stderr) and show it: the files, the warnings, the loss report (and what ``after`` adds),
    or its JSON; its error ends the command."""
    if os.fspath(where) == STDOUT:
        if conv.ok:
            _to_stdout(conv)
        with contextlib.redirect_stdout(sys.stderr):
            _show(conv, as_json, after)
        return
    if conv.ok:
        conv.save(where, force=force)
    _show(conv, as_json, after)


def _to_stdout(conv: Conversion) -> None:
    """Write the one file of a conversion to standard output (refused for several files)."""
    assert conv.written is not None
    files = conv.written.files
    if len(files) > 1:
        conv.error = UsageError(
            f"-o - writes one file, and this conversion makes {len(files)} (one per "
            f"{conv.kind or 'entity'}); give -o DIR/ to write them into a folder",
            path=conv.path)
        return
    sys.stdout.flush()
    out = sys.stdout.buffer
    try:
        for part in files[0].parts:
            out.write(part)
        out.flush()
    except BrokenPipeError:  # the reader has gone (| head -c): stop quietly
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), out.fileno())
    conv.outputs = [Path(STDOUT)]


def output_lines(conv: Conversion, paths: Iterable[Path], note: str = "") -> list[str]:
    """``SOURCE (FORMAT) -> OUTPUT (TARGET)`` for each output of ``conv``, then ``note``: how
    a conversion's files are shown to a person."""
    target = conv.target.id if conv.target is not None else conv.to
    return [f"{conv.path} ({conv.format}) -> {p} ({target}){note}" for p in paths]


def _show(conv: Conversion, as_json: bool, after: Callable[[], None] | None) -> None:
    if as_json:
        emit_json(conv.to_dict())
    elif conv.ok:
        for line in output_lines(conv, conv.outputs):
            say(line)
        for w in conv.all_warnings:  # a writer's warning is about the whole file: no path
            at = "" if w["path"] == "$" else f"{w['path']}: "
            say(f"  warning: {at}{w['message']}")
        show_loss(conv.written.loss if conv.written is not None else None)
        show_verified(conv.written)
        if after is not None:
            after()
    if conv.error is not None:
        fail(conv.error)

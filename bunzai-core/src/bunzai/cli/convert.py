"""``bunzai convert``: one file, or a batch (several files, a folder, a glob) into a folder."""

from __future__ import annotations

import os
from collections.abc import Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ..errors import BunzaiError, UsageError
from . import output
from .common import (
    STDIN,
    STDIN_NAME,
    STDOUT,
    ForceOpt,
    FromOpt,
    JsonOpt,
    MaxSizeOpt,
    StripOpt,
    apply_limits,
    loaded_registry,
    output_lines,
    present,
    read_stdin,
)
from .group import command
from .output import done, emit_json, error, fail, say, show_loss, stream

if TYPE_CHECKING:
    from ..engine.batch import BatchFile
    from ..engine.converting import Conversion
    from ..host.registry import Registry


@command("convert")
def convert_command(
    srcs: Annotated[list[Path], typer.Argument(
        metavar="FILE…", show_default=False,
        help="File(s) to convert (never modified); several, a folder or a glob make a batch; "
             "- reads standard input.")],
    to: Annotated[str, typer.Option("--to", "-t", metavar="FORMAT",
                                    help="Target format id or alias (see 'bunzai formats').")],
    out: Annotated[str | None, typer.Option(
        "--out", "-o", metavar="FILE|DIR/|-",
        help="Output file, or a folder (DIR/ or one that exists) to write into, or - for "
             "standard output (default: next to the source).")] = None,
    out_dir: Annotated[Path | None, typer.Option("--out-dir", "-d", metavar="DIR",
                                                 help="Batch: folder for the outputs.")] = None,
    jobs: Annotated[int, typer.Option("--jobs", "-j", metavar="N",
                                      help="Batch: worker processes.")] = 1,
    from_: FromOpt = None,
    force: ForceOpt = False,
    option: Annotated[list[str] | None, typer.Option(
        "--option", "-O", metavar="KEY=VALUE",
        help="Writer option (see 'bunzai formats'); repeatable.")] = None,
    as_json: JsonOpt = False,
    max_size: MaxSizeOpt = None,
    verify: Annotated[bool, typer.Option(
        "--verify", help="Read each output back and add to the loss report whatever reading "
                         "finds (slower; the report is complete without it).")] = False,
    strip_active: StripOpt = False,
    skip_existing: Annotated[bool, typer.Option(
        "--skip-existing", help="Count a file whose outputs are all there already (earlier "
                                "outputs of this target) as done and write nothing for it: "
                                "reruns an interrupted batch.")] = False,
) -> None:
    """Convert files to another format of the same kind, printing what was lost.

    Several sources, a folder or a glob make a batch: give --out-dir; every skipped or failed
    file is named with the reason, and the exit code is that of the worst file.  An output
    already there (the same target's) is refused (exit 5) unless --force replaces it or
    --skip-existing counts its source as done (exit 0), which continues an interrupted batch.
    """
    from ..api import parse_options
    from ..engine.batch import FORCE_AND_SKIP, makes_batch
    from ..engine.reading import check_source_format, check_target

    try:
        if force and skip_existing:
            raise UsageError(FORCE_AND_SKIP)
        apply_limits(max_size)
        reg = loaded_registry()
        opts = parse_options(option)
        check_source_format(from_, reg)
        check_target(to, reg, opts)
    except BunzaiError as exc:
        fail(exc, as_json)
    if makes_batch(srcs, out_dir):
        if any(str(s) == STDIN for s in srcs):
            fail(UsageError("- (standard input) is one file: convert it on its own"), as_json)
        _convert_batch(reg, srcs, to, out_dir, jobs, from_, force, opts, as_json, out, verify,
                       strip_active, skip_existing)
        return
    _convert_one(reg, srcs[0], to, out, from_, force, opts, as_json, verify, strip_active,
                 skip_existing)


def _convert_one(reg: Registry, src: Path, to: str, out: str | None, from_: str | None,
                 force: bool, opts: Mapping[str, Any], as_json: bool, verify: bool,
                 strip_active: bool = False, skip_existing: bool = False) -> None:
    from ..engine.converting import convert_file

    if str(src) != STDIN:
        conv = convert_file(src, to, from_format=from_, options=opts, registry=reg,
                            verify=verify, strip_active=strip_active)
        where = out if out is not None else src.parent
        if skip_existing and _already_done(conv, where, as_json):
            return
        present(conv, where, force, as_json)
        return
    if out is None:
        fail(UsageError("reading standard input: give -o FILE, -o DIR/ or -o - (standard "
                        "output)"), as_json)
    try:
        data = read_stdin()
    except BunzaiError as exc:
        fail(exc.with_path(STDIN_NAME), as_json)
    conv = convert_file(data, to, from_format=from_, options=opts, registry=reg, verify=verify,
                        strip_active=strip_active)  # named after the entity, having no file name
    conv.path = STDIN_NAME
    if conv.error is not None:
        conv.error = conv.error.with_path(STDIN_NAME)
    if skip_existing and _already_done(conv, out, as_json):
        return
    present(conv, out, force, as_json)


def _already_done(conv: Conversion, where: str | os.PathLike[str], as_json: bool) -> bool:
    """--skip-existing on one file: when every output is there already (an earlier output of
    this target), say so and write nothing; False when the conversion goes on as usual."""
    from ..io.outputs import already_saved

    if not conv.ok or conv.written is None or os.fspath(where) == STDOUT:
        return False
    try:
        paths = already_saved(conv.written, where)
    except BunzaiError as exc:
        fail(exc.with_path(conv.path), as_json)
    if paths is None:
        return False
    conv.outputs = paths
    if as_json:
        emit_json({**conv.to_dict(), "status": "done"})
    else:
        for line in output_lines(conv, paths, ": already done"):
            say(line)
    return True


def _convert_batch(reg: Registry, srcs: list[Path], to: str, out_dir: Path | None, jobs: int,
                   from_: str | None, force: bool, opts: Mapping[str, Any], as_json: bool,
                   out: str | None, verify: bool, strip_active: bool = False,
                   skip_existing: bool = False) -> None:
    from ..engine.batch import convert_batch

    try:
        work = convert_batch(srcs, to, out_dir=out_dir, out=out, jobs=jobs, from_format=from_,
                             options=opts, force=force, verify=verify, registry=reg,
                             strip_active=strip_active, skip_existing=skip_existing)
    except BunzaiError as exc:
        fail(exc, as_json)

    def already() -> str:
        return f"{work.already_done} already done, " if skip_existing else ""

    stream(work.run(), as_json, _show_batch_file,
           lambda: f"[{work.done}/{work.size}] converted {work.converted}, {already()}skipped "
                   f"{work.skipped}, failed {work.failed}")
    if as_json and skip_existing:  # the totals as the last line, as library convert has them
        emit_json(work.to_dict())
    elif not as_json:
        say(f"{work.size} file(s): {work.converted} converted, {already()}{work.skipped} "
            f"skipped, {work.failed} failed")
    done(work.exit_code)


def _show_batch_file(found: BatchFile) -> None:
    """One batch file: converted with its loss summary (every entry with --verbose), done
    already (--skip-existing) with its outputs, or the reason it was skipped or failed (on
    stderr, like any error)."""
    if found.status == "converted":
        say(f"converted {found.path} -> {', '.join(found.outputs or ())} ({found.format} -> "
             f"{found.to}): {found.loss_summary}")
        if "verified" in found.facts:  # --verify: that it ran, and what it found
            say(f"    {found.facts['verified']['summary']}")
        if output.VERBOSE:
            from ..loss.report import LossReport

            show_loss(LossReport.from_list(found.loss), "    ", summary=False)
    elif found.status == "done":
        say(f"already done {found.path} -> {', '.join(found.outputs or ())}")
    elif found.status == "skipped":
        error(f"{found.path}: skipped: {found.reason}")
    else:
        error(f"{found.path}: {found.error}")

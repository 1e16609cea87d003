"""``bunzai library``: a whole library at once (a SillyTavern data folder, or a folder of any
apps' exports).  It presents what :mod:`bunzai.engine.library` does, and nothing more."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from ..errors import BunzaiError
from . import output
from .common import JsonOpt, loaded_registry
from .group import SETTINGS, Command, command_group
from .output import done, emit_json, error, fail, say, stream

if TYPE_CHECKING:
    from ..engine.library import LibraryConversion, LibraryInspection
    from ..engine.library.items import Item

library_app = typer.Typer(help="Inspect a whole library, or move it to another app in one go.",
                          no_args_is_help=True, **SETTINGS)
command_group("library", library_app)

DirArg = Annotated[Path, typer.Argument(
    metavar="DIR", show_default=False,
    help="A SillyTavern user-data folder (data/<user>), or a folder of exports.")]
JobsOpt = Annotated[int, typer.Option("--jobs", "-j", metavar="N", help="Worker processes.")]


@library_app.command("inspect", cls=Command)
def library_inspect(dir: DirArg, as_json: JsonOpt = False, jobs: JobsOpt = 1) -> None:
    """What a library holds and what is wrong with it (exit 1 when something is)."""
    from ..engine.library import inspect_library

    try:
        found = inspect_library(dir, jobs=jobs, registry=loaded_registry())
    except BunzaiError as exc:
        fail(exc, as_json)
    if as_json:
        emit_json(found.to_dict())
    else:
        _show_inspection(found)
    done(found.exit_code)


def _show_inspection(found: LibraryInspection) -> None:
    lib = found.library
    say(f"{lib.root}: {'SillyTavern data folder' if lib.layout == 'sillytavern' else 'exports'}")
    counts = lib.counts()
    say("  " + ", ".join(f"{n} {k.replace('_', ' ')}" for k, n in counts.items()))
    if lib.layout == "exports":
        for e in lib.exports:
            what = f"{e.kind} ({e.format})" if e.kind else f"unreadable: {e.error}"
            names = f": {', '.join(e.names)}" if e.names else ""
            say(f"  {e.file}: {what}{names}")
    else:
        say("  characters:")
        for c in lib.characters:
            links = [f"world {c.world!r}"] if c.world else []
            links += [f"extra book {b!r}" for b in c.extra_books]
            extra = f"; {', '.join(links)}" if links else ""
            say(f"    {c.name or c.file}: {len(c.chats)} chat(s){extra}")
        for g in lib.groups:
            say(f"  group {g.name}: {len(g.members)} member(s), {len(g.chats)} chat(s)")
        if lib.worlds:
            active = [w.name for w in lib.worlds if w.active]
            linked = sum(1 for w in lib.worlds if w.characters)
            say(f"  worlds: {len(lib.worlds)} ({linked} linked to characters"
                 + (f"; global: {', '.join(active)}" if active else "") + ")")
        if lib.personas:
            say("  personas: " + ", ".join(p.name + (" (default)" if p.default else "")
                                           for p in lib.personas))
        if lib.presets:
            from ..engine.library.presets import BY_KEY

            say("  presets and templates: " + ", ".join(
                f"{len(files)} {BY_KEY[k].label}" for k, files in lib.presets.items()))
        if lib.secrets:
            say("  secrets (never copied): " + ", ".join(lib.secrets))
    if lib.problems:
        say(f"  {len(lib.problems)} problem(s):")
        for p in lib.problems:
            say(f"    {p.line()}")
    else:
        say("  no problems")


@library_app.command("convert", cls=Command)
def library_convert(
    dir: DirArg,
    to: Annotated[str, typer.Option(
        "--to", "-t", metavar="APP",
        help="risu, backyard, agnai, voxta, or sillytavern (from a folder of exports).")],
    out_dir: Annotated[Path, typer.Option("--out-dir", "-d", metavar="DIR",
                                          help="Folder for the app's files and the report.")],
    jobs: JobsOpt = 1,
    force: Annotated[bool, typer.Option(
        "--force", help="Redo every item, replacing what is in the way.")] = False,
    as_json: Annotated[bool, typer.Option(
        "--json", help="Print one JSON object per item, then the summary.")] = False,
) -> None:
    """Move a whole library to another app: every item's files, its links kept, one report.

    A rerun skips what is done (same source bytes, target and options) and continues an
    interrupted move; REPORT.md, report.json and manifest.json go into the output folder.
    """
    from ..engine.library import convert_library

    try:
        move = convert_library(dir, to, out_dir=out_dir, jobs=jobs, force=force,
                               registry=loaded_registry())
    except BunzaiError as exc:
        fail(exc, as_json)
    _run(move, as_json)


def _run(move: LibraryConversion, as_json: bool) -> None:
    def progress() -> str:
        counts = move.counts()
        return f"[{move.done}/{move.size}] " + ", ".join(
            f"{counts.get(s, 0)} {s}" for s in ("written", "approximated", "dropped", "failed",
                                                "unchanged"))

    try:
        stream(move.run(), as_json, _show_item, progress)
    except BunzaiError as exc:
        fail(exc, as_json)
    if as_json:
        emit_json(move.to_dict())
    else:
        from ..engine.library.report import summary_lines

        for line in summary_lines(move.summary()):
            say(line)
        say(f"report: {move.out_dir / 'REPORT.md'}")
    done(move.exit_code)


def _show_item(item: Item) -> None:
    """One item: its status and loss summary (every loss line with --verbose); a failure on
    stderr, like any error."""
    if item.status == "failed":
        error(f"{item.name}: {item.error}")
        return
    why = item.reason or (item.loss.get("summary") if item.loss else "nothing lost")
    say(f"{item.status} {item.kind} {item.name}: {why}")
    if output.VERBOSE:
        for line in item.loss.get("lines", []) if item.loss else []:
            say(f"    {line}")
        for note in item.notes:
            say(f"    note: {note}")

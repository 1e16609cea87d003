"""The ``bunzai`` command line: it presents what the engine (:mod:`bunzai.engine`) does, and
nothing more.

Exit codes (documented in the README and relied on by scripts):
0 ok; 1 validation failed or files differ; 2 usage error; 3 unrecognized or ambiguous input;
4 unreadable or malformed input; 5 conversion refused (cross-kind, existing output) or the
output could not be written (disk full, permission denied).

Every command that reads files takes several: files, folders (every file inside) and globs.  Each
file gets its own block, or its own JSON line with ``--json``; a bad file is reported on stderr
and the rest go on; the exit status is the worst file's.  Arguments (``--from``, ``--to``,
``--option``) are checked before any file is read.

Start-up: the root group knows each command by its name and docstring and builds a command's
parameters only when it runs (click's lazy-group pattern, through typer's public ``cls`` and
``typer.main.get_command``).  ``bunzai --help`` and ``--version`` import no format plugin and no
pydantic model; the help lists plugin commands from the ``bunzai.plugins`` entry points.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable, Iterator, Mapping, MutableMapping, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn, TextIO

import typer
import typer.main
from typer.core import TyperCommand, TyperGroup

from .. import __version__
from ..errors import BunzaiError, UsageError

if TYPE_CHECKING:
    from ..engine.batch import BatchFile
    from ..engine.converting import Conversion
    from ..engine.diff import Difference
    from ..engine.inspecting import Inspection, Labelling, Validation
    from ..engine.reading import Outcome
    from ..host.registry import Registry

_SETTINGS: dict[str, Any] = {"add_completion": False, "rich_markup_mode": None,
                             "pretty_exceptions_enable": False}


# -- the command group -----------------------------------------------------------------------------


class _Command(TyperCommand):
    """A command whose help shows arguments by their metavar (``FILE…``), as people read them."""

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        pieces = [self.options_metavar] if self.options_metavar else []
        for p in self.get_params(ctx):
            if p.param_type_name == "argument":
                pieces.append(p.metavar or (p.name or "").upper())
        return pieces

    def format_options(self, ctx: Any, formatter: Any) -> None:
        params = self.get_params(ctx)
        args = [(p.metavar or (p.name or "").upper(), str(getattr(p, "help", "") or ""))
                for p in params if p.param_type_name == "argument"]
        opts = [rec for p in params if p.param_type_name == "option"
                and (rec := p.get_help_record(ctx)) is not None]
        for title, rows in (("Arguments", args), ("Options", opts)):
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)


class _Lazy:
    """A command known by name and one line of help; built when it first runs."""

    def __init__(self, build: Callable[[], Any], help: str) -> None:
        self._build = build
        self._command: Any = None
        self.help = help

    def command(self) -> Any:
        if self._command is None:
            self._command = self._build()
        return self._command


_CORE: dict[str, _Lazy] = {}
"""Core's commands, in the order the help lists them (filled by :func:`_command`)."""


def _first_line(doc: str | None) -> str:
    return (doc or "").strip().split("\n")[0].strip()


def _command(name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Register a core command: a one-command typer app, made and turned into click only when
    the command runs."""
    def register(func: Callable[..., Any]) -> Callable[..., Any]:
        def build() -> Any:
            one = typer.Typer(**_SETTINGS)
            one.command(name, cls=_Command)(func)
            return typer.main.get_command(one)

        _CORE[name] = _Lazy(build, _first_line(func.__doc__))
        return func
    return register


class _Catalog(MutableMapping[str, Any]):
    """The group's commands by name, core's and plugins', each built on first use (typer's
    group reads ``commands`` for its "did you mean" suggestions)."""

    def __init__(self) -> None:
        self.plugins: dict[str, _Lazy] = {}

    def _lazy(self, name: str) -> _Lazy | None:
        return _CORE.get(name) or self.plugins.get(name)

    def __getitem__(self, name: str) -> Any:
        lazy = self._lazy(name)
        if lazy is None:
            raise KeyError(name)
        return lazy.command()

    def __setitem__(self, name: str, command: Any) -> None:
        self.plugins[name] = _Lazy(_constant(command), command.get_short_help_str())

    def __delitem__(self, name: str) -> None:
        del self.plugins[name]

    def __iter__(self) -> Iterator[str]:
        yield from _CORE
        yield from (n for n in self.plugins if n not in _CORE)

    def __len__(self) -> int:
        return len(set(_CORE) | set(self.plugins))


class _Commands(TyperGroup):
    """The root group: core commands built on demand, plugin commands added when needed."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.catalog = _Catalog()
        self.commands = self.catalog
        self._plugins_loaded = False

    def list_commands(self, ctx: Any) -> list[str]:
        self._load_plugins()
        return list(self.catalog)

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if cmd_name in _CORE:
            return _CORE[cmd_name].command()
        self._load_plugins()
        if cmd_name in self.catalog.plugins:
            return self.catalog[cmd_name]
        from ..host.hints import command_hint
        hint = command_hint(cmd_name, _registry().distributions())
        if hint and not ctx.resilient_parsing:
            ctx.fail(f"No such command {cmd_name!r}; {hint}")
        return None

    def _load_plugins(self) -> None:
        """Every plugin's commands (the registry loads every plugin distribution)."""
        if self._plugins_loaded:
            return
        self._plugins_loaded = True
        host = typer.Typer(**_SETTINGS)
        _registry().register_commands(host)
        for name, command in _commands_of(host).items():
            if name not in _CORE:
                self.catalog[name] = command

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        with formatter.section("Commands"):
            formatter.write_dl([(n, lazy.help) for n, lazy in _CORE.items()])
        listed = _plugin_listing()
        if listed:
            with formatter.section("Plugin commands"):
                formatter.write_dl([(n, f"{text} [{dist}]")
                                    for n, (text, dist) in listed.items()])


def _constant(value: Any) -> Callable[[], Any]:
    return lambda: value


def _commands_of(host: typer.Typer) -> dict[str, Any]:
    """The click commands plugins added to ``host``, by name."""
    if not host.registered_commands and not host.registered_groups:
        return {}
    group = typer.main.get_group(host)
    ctx = typer.Context(group)
    found: dict[str, Any] = {}
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        if command is not None:
            found[name] = command
    return found


_LISTED: dict[str, tuple[str, str]] | None = None


def _plugin_listing() -> dict[str, tuple[str, str]]:
    """Plugin commands for ``bunzai --help`` as (help, distribution), from the
    ``bunzai.plugins`` entry points only: the format adapters are not imported for a help page,
    and the commands are not built.  A plugin that fails here is left out (``bunzai plugins``
    says why)."""
    global _LISTED
    if _LISTED is not None:
        return _LISTED
    from ..host.entrypoints import PLUGINS_GROUP, allowed, entry_points

    _LISTED = {}
    for ep in entry_points((PLUGINS_GROUP,), allowed()):
        try:
            plugin = ep.load()
            hook = getattr(plugin, "bunzai_register_commands", None)
            if hook is None:
                continue
            host = typer.Typer(**_SETTINGS)
            hook(app=host)
            for info in host.registered_commands:  # names and help only: nothing is built
                name = str(info.name or getattr(info.callback, "__name__", ""))
                name = name.lower().replace("_", "-")
                if name and name not in _CORE:
                    doc = info.help or getattr(info.callback, "__doc__", None)
                    _LISTED[name] = (_first_line(doc), ep.distribution)
        except Exception:  # a broken plugin is left out here; 'bunzai plugins' says why
            continue
    return _LISTED


app = typer.Typer(
    name="bunzai",
    cls=_Commands,
    help="Read, check and convert AI role-play files: character cards, lorebooks, personas, "
         "regex scripts, chats.",
    no_args_is_help=True,
    add_completion=True,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
    epilog="Commands that read files take files, folders and globs. Exit codes: 0 ok, "
           "1 invalid or different, 2 usage, 3 unrecognized/ambiguous, 4 malformed, "
           "5 conversion refused or output not written.",
)


# -- output ----------------------------------------------------------------------------------------


QUIET = False
VERBOSE = False


def _version(value: bool) -> None:
    if value:
        typer.echo(f"bunzai {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                          help="Show the version and exit.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print only errors (and "
                                        "--json output).")] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Print more detail: every "
                                          "loss report entry, full text diffs.")] = False,
) -> None:
    """bunzai: what is this file, where is it from, is it valid, and give it to me as X."""
    global QUIET, VERBOSE
    QUIET, VERBOSE = quiet, verbose


def _say(text: str = "") -> None:
    """Human output; silenced by --quiet."""
    if not QUIET:
        typer.echo(text)


def _emit_json(obj: Any) -> None:
    import json
    typer.echo(json.dumps(obj, ensure_ascii=False, default=str))


def _use_colour() -> bool:
    return sys.stderr.isatty() and not os.environ.get("NO_COLOR") and \
        os.environ.get("TERM") != "dumb"


def _error(exc: BunzaiError | str) -> None:
    """One line on stderr naming the file and the problem (never silenced)."""
    prefix = typer.style("bunzai: error:", fg="red", bold=True) if _use_colour() \
        else "bunzai: error:"
    typer.echo(f"{prefix} {exc}", err=True, color=_use_colour())


def _warning(text: str) -> None:
    if not QUIET:
        typer.echo(f"bunzai: warning: {text}", err=True)


def _fail(exc: BunzaiError, as_json: bool = False) -> NoReturn:
    """End the command on an error; with ``--json`` it is also a JSON object on stdout, so a
    script reading JSON always gets an answer."""
    if as_json:
        _emit_json({"path": exc.path, "error": exc.message, "exit_code": exc.exit_code})
    _error(exc)
    raise typer.Exit(exc.exit_code)


def _done(code: int) -> None:
    if code:
        raise typer.Exit(code)


# -- shared plumbing -------------------------------------------------------------------------------


_NOTED: set[int] = set()


def _registry() -> Registry:
    """The process-wide registry; its configuration warnings are shown once."""
    from ..host.registry import get_registry
    reg = get_registry()
    if id(reg) not in _NOTED:
        _NOTED.add(id(reg))
        for note in reg.host.notes:
            _warning(note)
    return reg


def _apply_limits(max_size: int | None) -> None:
    if max_size is not None:
        from ..io.limits import get_limits, set_limits
        set_limits(get_limits().replace(max_size=max_size))


def _files(paths: Sequence[Path]) -> list[Path]:
    """The files behind the arguments: folders walked, globs matched, each file once."""
    from ..io.sources import expand_sources
    found = expand_sources(os.fspath(p) for p in paths)
    if not found:
        raise UsageError("is a folder with no files to read", path=str(paths[0]))
    return found


def _start(paths: Sequence[Path], from_: str | None, max_size: int | None, as_json: bool
           ) -> tuple[Registry, list[Path]]:
    """What every reading command does first: the limit, the registry, ``--from`` checked,
    and the files found; a problem with any of them ends the command before a file is read."""
    from ..engine.reading import check_source_format

    try:
        _apply_limits(max_size)
        reg = _registry()
        check_source_format(from_, reg)
        return reg, _files(paths)
    except BunzaiError as exc:
        _fail(exc, as_json)


def _many(paths: Sequence[Path], files: Sequence[Path]) -> bool:
    return len(files) > 1 or any(p.is_dir() for p in paths)


def _each(files: Sequence[Path], work: Callable[[Path], Any],
          show: Callable[[Any], None], as_json: bool,
          as_dict: Callable[[Any], dict[str, Any]] | None = None) -> list[Any]:
    """Run ``work`` on every file: its JSON line or human block, its error on stderr."""
    results = []
    for path in files:
        res = work(path)
        if as_json:
            _emit_json(as_dict(res) if as_dict else res.to_dict())
        else:
            show(res)
        if res.error is not None:
            _error(res.error)
        results.append(res)
    return results


def _worst(results: Sequence[Outcome]) -> int:
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


# -- inspect ---------------------------------------------------------------------------------------


@_command("inspect")
def inspect_command(
    files: FilesArg,
    from_: FromOpt = None,
    as_json: JsonOpt = False,
    max_size: MaxSizeOpt = None,
) -> None:
    """What a file is: container, format, confidence, every candidate, and a summary."""
    from ..engine.inspecting import inspect_file

    reg, found = _start(files, from_, max_size, as_json)
    gap = len(found) > 1
    results = _each(found, lambda p: inspect_file(p, from_format=from_, registry=reg),
                    lambda r: _show_inspection(r, gap), as_json)
    _done(_worst(results))


def _show_inspection(r: Inspection, gap: bool) -> None:
    if r.container is None:
        return  # not even read: the error line says why
    _say(str(r.path))
    _say(f"  container: {r.container}")
    w = r.report.winner if r.report is not None else None
    conf = r.confidence
    _say(f"  format: {r.format or '-'}  kind: {r.kind or '-'}  "
         f"confidence: {conf if conf is not None else '-'}")
    if r.forced is not None:
        found = f"{w.format} {w.score:.2f}" if w is not None else "no format"
        _say(f"  read as {r.format or r.forced}: forced with --from (detection found {found})")
    if r.report is not None:
        for c in r.report.candidates:
            _say(f"    candidate {c.format:<24} {c.score:.2f}  {c.reason}")
        for f in r.report.faults:
            _say(f"    adapter fault {f.format}: {f.message}")
        for a in r.report.slow:
            _say(f"    slow adapter {a.format}: detect took {a.seconds:.2f} s "
                 f"(budget {r.report.budget:g} s, BUNZAI_DETECT_BUDGET)")
    if r.ok:
        for ent in r.summaries:
            _say(f"  {ent['kind']}: {ent.get('name') or '(unnamed)'}")
            for k, v in ent.items():
                if k not in ("kind", "name"):
                    _say(f"    {k}: {v}")
        if r.active is not None:
            _say(f"  active content: {r.active}")
        for warn in r.warnings:
            _say(f"  warning: {warn.path}: {warn.message}")
    if gap:
        _say()


# -- validate --------------------------------------------------------------------------------------


@_command("validate")
def validate_command(
    files: FilesArg,
    strict: Annotated[bool, typer.Option("--strict", help="Fail on warnings too.")] = False,
    from_: FromOpt = None,
    as_json: JsonOpt = False,
    max_size: MaxSizeOpt = None,
) -> None:
    """Check files against their format's rules and the canonical model (exit 1 if invalid)."""
    from ..engine.inspecting import validate_file

    reg, found = _start(files, from_, max_size, as_json)
    results: list[Validation] = _each(
        found, lambda p: validate_file(p, from_format=from_, strict=strict, registry=reg),
        _show_validation, as_json)
    if _many(files, found) and not as_json:
        counts = {s: sum(1 for r in results if (r.status if r.ok else "unreadable") == s)
                  for s in ("valid", "warnings", "invalid", "unreadable")}
        _say(f"{len(results)} file(s): {counts['valid']} valid, {counts['warnings']} with "
             f"warnings, {counts['invalid']} invalid"
             + (f", {counts['unreadable']} unreadable" if counts["unreadable"] else ""))
    _done(_worst(results))


def _show_validation(r: Validation) -> None:
    if not r.ok:
        return
    _say(f"{r.path}: {r.format} ({r.kind}): {'valid' if r.valid else 'INVALID'} - "
         f"{len(r.errors)} error(s), {len(r.issue_warnings)} warning(s)")
    if VERBOSE:
        for i in r.issues:
            _say(f"  {i.severity}: {i.path}: {i.message}")
        return
    from ..engine.validate import group_issues

    for g in group_issues(r.issues):  # one line per cause; every place with -v or --json
        where = g.paths[0] if g.count == 1 else (
            f"{g.paths[0]} and {g.count - 1} more like it")
        _say(f"  {g.severity}: {where}: {g.message}")


# -- audit -----------------------------------------------------------------------------------------


@_command("audit")
def audit_command(
    files: FilesArg,
    from_: FromOpt = None,
    as_json: JsonOpt = False,
    max_size: MaxSizeOpt = None,
) -> None:
    """What files run when opened: scripts, triggers, HTML, remote files (exit 1 if any)."""
    from ..engine.audit import audit

    reg, found = _start(files, from_, max_size, as_json)
    results = _each(found, lambda p: audit(p, from_format=from_, registry=reg), _show_audit,
                    as_json)
    if _many(files, found) and not as_json:
        from ..engine.audit import folder_lines
        for line in folder_lines(results):
            _say(line)
    _done(_worst(results))


def _show_audit(r: Any) -> None:
    if not r.ok:
        return
    _say(f"{r.path}: {r.format} ({r.kind}): {r.summary()}")
    if r.unread is not None:
        _say(f"  audited member by member: {r.unread}")
    for f in r.findings:
        _say(f"  {f.line()}")
        _say(f"      {f.excerpt}")
        if VERBOSE and f.note:
            _say(f"      note: {f.note}")


# -- label -----------------------------------------------------------------------------------------


@_command("label")
def label_command(
    files: FilesArg,
    from_: FromOpt = None,
    as_json: JsonOpt = False,
    max_size: MaxSizeOpt = None,
) -> None:
    """Guess which app made (origin) and last saved (last writer) a file, with evidence."""
    from ..engine.inspecting import label_file

    reg, found = _start(files, from_, max_size, as_json)
    gap = len(found) > 1
    results = _each(found, lambda p: label_file(p, from_format=from_, registry=reg),
                    lambda r: _show_label(r, gap), as_json)
    _done(_worst(results))


def _show_label(r: Labelling, gap: bool) -> None:
    if not r.ok or r.labels is None:
        return
    _say(f"{r.path}: {r.format}")
    if not r.labels.guesses:
        _say("  no app evidence found")
    for g in r.labels.guesses:
        _say(f"  {g.role}: {g.app} ({g.confidence:.2f})")
        for e in g.evidence:
            _say(f"    - {e}")
    if gap:
        _say()


# -- convert ---------------------------------------------------------------------------------------


def _loss_lines(conv: Conversion, indent: str = "  ") -> None:
    if conv.written is None:
        return
    loss = conv.written.loss
    lines = loss.lines(verbose=VERBOSE)
    if not loss:
        _say(f"{indent}nothing lost")
        return
    _say(f"{indent}loss: {lines[0]}")
    for line in lines[1:]:
        _say(f"{indent}  {line}")


@_command("convert")
def convert_command(
    srcs: Annotated[list[Path], typer.Argument(
        metavar="FILE…", show_default=False,
        help="File(s) to convert (never modified); several, a folder or a glob make a batch.")],
    to: Annotated[str, typer.Option("--to", "-t", metavar="FORMAT",
                                    help="Target format id or alias (see 'bunzai formats').")],
    out: Annotated[Path | None, typer.Option(
        "--out", "-o", metavar="FILE",
        help="Output file (default: next to the source, with the target's suffix).")] = None,
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
) -> None:
    """Convert files to another format of the same kind, printing what was lost.

    Several sources, a folder or a glob make a batch: give --out-dir; every skipped or failed
    file is named with the reason, and the exit code is that of the worst file.
    """
    from ..api import parse_options
    from ..engine.batch import makes_batch
    from ..engine.reading import check_source_format, check_target

    try:
        _apply_limits(max_size)
        reg = _registry()
        opts = parse_options(option)
        check_source_format(from_, reg)
        check_target(to, reg, opts)
    except BunzaiError as exc:
        _fail(exc, as_json)
    if makes_batch(srcs, out_dir):
        _convert_batch(reg, srcs, to, out_dir, jobs, from_, force, opts, as_json, out, verify,
                       strip_active)
        return
    _convert_one(reg, srcs[0], to, out, from_, force, opts, as_json, verify, strip_active)


def _convert_one(reg: Registry, src: Path, to: str, out: Path | None, from_: str | None,
                 force: bool, opts: Mapping[str, Any], as_json: bool, verify: bool,
                 strip_active: bool = False) -> None:
    from ..engine.converting import convert_file

    conv = convert_file(src, to, from_format=from_, options=opts, registry=reg, verify=verify,
                        strip_active=strip_active)
    if conv.ok:
        conv.save(out if out is not None else src.parent, force=force)
    if as_json:
        _emit_json(conv.to_dict())
    elif conv.ok:
        target = conv.target.id if conv.target is not None else to
        for p in conv.outputs:
            _say(f"{src} ({conv.format}) -> {p} ({target})")
        for w in conv.all_warnings:
            _say(f"  warning: {w['path']}: {w['message']}")
        _loss_lines(conv)
    if conv.error is not None:
        _fail(conv.error)


def _convert_batch(reg: Registry, srcs: list[Path], to: str, out_dir: Path | None, jobs: int,
                   from_: str | None, force: bool, opts: Mapping[str, Any], as_json: bool,
                   out: Path | None, verify: bool, strip_active: bool = False) -> None:
    from ..engine.batch import convert_batch

    try:
        work = convert_batch(srcs, to, out_dir=out_dir, out=out, jobs=jobs, from_format=from_,
                             options=opts, force=force, verify=verify, registry=reg,
                             strip_active=strip_active)
    except BunzaiError as exc:
        _fail(exc, as_json)
    show_progress = sys.stderr.isatty() and not QUIET and not as_json
    for found in work.run():
        if show_progress:
            sys.stderr.write("\r\x1b[K")
        if as_json:
            _emit_json(found.to_dict())
        else:
            _show_batch_file(found)
        if show_progress:
            sys.stderr.write(f"[{work.done}/{work.size}] converted {work.converted}, skipped "
                             f"{work.skipped}, failed {work.failed}")
            sys.stderr.flush()
    if show_progress:
        sys.stderr.write("\r\x1b[K")
        sys.stderr.flush()
    if not as_json:
        _say(f"{work.size} file(s): {work.converted} converted, {work.skipped} skipped, "
             f"{work.failed} failed")
    _done(work.exit_code)


def _show_batch_file(found: BatchFile) -> None:
    """One batch file: converted with its loss summary (every entry with --verbose), or the
    reason it was skipped or failed (on stderr, like any error)."""
    if found.status == "converted":
        _say(f"converted {found.path} -> {', '.join(found.outputs or ())} ({found.format} -> "
             f"{found.to}): {found.loss_summary}")
        if VERBOSE:
            for e in found.loss:
                _say(f"    {e['action']} {e['path']}: {e['reason']}")
    elif found.status == "skipped":
        _error(f"{found.path}: skipped: {found.reason}")
    else:
        _error(f"{found.path}: {found.error}")


# -- diff ------------------------------------------------------------------------------------------


@_command("diff")
def diff_command(
    a: Annotated[Path, typer.Argument(metavar="OLD", help="A file, or a folder.")],
    b: Annotated[Path, typer.Argument(metavar="NEW", help="A file of the same kind in any "
                                      "format, or a folder.")],
    as_json: JsonOpt = False,
    max_size: MaxSizeOpt = None,
) -> None:
    """Semantic diff of two files of the same kind, whatever their formats (exit 1 if different).

    Two folders are compared file by file, pairing files by name without the suffix.  Values
    are shortened on a line; --verbose adds a line diff of long text (and to --json).
    """
    from ..engine.diff import diff_files, diff_folders

    try:
        _apply_limits(max_size)
        reg = _registry()
        if a.is_dir() != b.is_dir():
            raise UsageError("diff compares two files or two folders")
    except BunzaiError as exc:
        _fail(exc, as_json)
    results = (diff_folders(a, b, registry=reg) if a.is_dir()
               else [diff_files(a, b, registry=reg)])
    for d in results:
        if as_json:
            _emit_json(d.to_dict(unified=VERBOSE))
        else:
            _show_diff(d)
        if d.error is not None:
            _error(d.error)
    _done(_worst(results))


def _show_diff(d: Difference) -> None:
    if d.only is not None:
        _say(f"only in {'OLD' if d.only == 'a' else 'NEW'}: {d.path}")
        return
    if not d.ok or d.a is None or d.b is None:
        return
    names = f"{d.path} ({d.a.format}) and {d.other} ({d.b.format})"
    if d.equal:
        _say(f"{names} are equal")
        return
    _say(f"{names}: {len(d.changes)} difference(s)")
    for c in d.changes:
        _say(f"  {c.line()}")
        if VERBOSE and c.long_text:
            for line in c.unified():
                _say(f"      {line}")


# -- extract ---------------------------------------------------------------------------------------


@_command("extract")
def extract_command(
    file: Annotated[Path, typer.Argument(metavar="FILE",
                                         help="Card or module whose assets to write.")],
    assets: Annotated[Path, typer.Option("--assets", metavar="DIR",
                                         help="Folder to write the assets into.")],
    force: Annotated[bool, typer.Option("--force", help="Overwrite existing files.")] = False,
    from_: FromOpt = None,
    as_json: JsonOpt = False,
    max_size: MaxSizeOpt = None,
) -> None:
    """Write every embedded asset with a safe name and its real extension, plus manifest.json."""
    from ..engine.assets import extract_assets

    try:
        _apply_limits(max_size)
        reg = _registry()
        res = extract_assets(file, assets, force=force, from_format=from_, registry=reg)
    except BunzaiError as exc:
        _fail(exc, as_json)
    if as_json:
        _emit_json(res.to_dict())
    elif res.ok:
        written = res.written
        _say(f"{file}: {len(written)} asset(s) written to {assets}"
             + (f", {len(res.manifest) - len(written)} not embedded"
                if len(written) < len(res.manifest) else ""))
        for m in res.manifest:
            _say(f"  {m.get('file') or '-':<32} {m.get('media_type', ''):<20} "
                 f"{m['type']}:{m['name']}")
    if res.error is not None:
        _fail(res.error)


# -- lorebook --------------------------------------------------------------------------------------


lorebook_app = typer.Typer(help="Extract, embed and merge lorebooks.", no_args_is_help=True,
                           **_SETTINGS)
_CORE["lorebook"] = _Lazy(lambda: typer.main.get_command(lorebook_app),
                          "Extract, embed and merge lorebooks.")

BookTo = Annotated[str | None, typer.Option(
    "--to", "-t", metavar="FORMAT", show_default=False,
    help="Lorebook format (default: the installed default lorebook format).")]
OutOpt = Annotated[Path, typer.Option("--out", "-o", metavar="FILE", help="File to write.")]


def _present(conv: Conversion, out: Path, force: bool, as_json: bool,
             after: Callable[[], None] | None = None) -> None:
    if conv.ok:
        conv.save(out, force=force)
    if as_json:
        _emit_json(conv.to_dict())
    elif conv.ok:
        target = conv.target.id if conv.target is not None else conv.to
        for p in conv.outputs:
            _say(f"-> {p} ({target})")
        for w in conv.all_warnings:
            _say(f"  warning: {w['path']}: {w['message']}")
        _loss_lines(conv)
        if after is not None:
            after()
    if conv.error is not None:
        _fail(conv.error)


@lorebook_app.command("extract", cls=_Command)
def lorebook_extract(
    card: Annotated[Path, typer.Argument(metavar="CARD",
                                         help="Character card holding a lorebook.")],
    out: OutOpt,
    to: BookTo = None,
    force: ForceOpt = False,
    as_json: JsonOpt = False,
    strip_active: StripOpt = False,
) -> None:
    """Write a card's embedded lorebook as a standalone lorebook file."""
    from ..engine.converting import extract_lorebook

    try:
        conv = extract_lorebook(card, to=to, registry=_registry(), strip_active=strip_active)
    except BunzaiError as exc:
        _fail(exc, as_json)
    _present(conv, out, force, as_json)


@lorebook_app.command("embed", cls=_Command)
def lorebook_embed(
    card: Annotated[Path, typer.Argument(metavar="CARD", help="Character card.")],
    book: Annotated[Path, typer.Argument(metavar="BOOK", help="Lorebook to embed.")],
    out: OutOpt,
    to: Annotated[str | None, typer.Option("--to", "-t", metavar="FORMAT", show_default=False,
                                           help="Card format (default: the card's own).")
                  ] = None,
    replace: Annotated[bool, typer.Option(
        "--replace", help="A card that has a book: replace it (its entries are reported as "
                          "dropped).")] = False,
    merge: Annotated[bool, typer.Option(
        "--merge", help="A card that has a book: merge the two as 'lorebook merge' does.")
                     ] = False,
    force: ForceOpt = False,
    as_json: JsonOpt = False,
    strip_active: StripOpt = False,
) -> None:
    """Embed a lorebook into a card, writing a new card (a card that has a book is refused
    unless told to replace or merge it)."""
    from ..engine.converting import embed_lorebook

    try:
        conv = embed_lorebook(card, book, to=to, replace=replace, merge=merge,
                              registry=_registry(), strip_active=strip_active)
    except BunzaiError as exc:
        _fail(exc, as_json)

    def report() -> None:
        replaced = conv.extra.get("replaced_entries")
        if replaced:
            _say(f"  replaced the card's own book: {len(replaced)} entries "
                 f"({', '.join(replaced)})")
        for d in conv.extra.get("duplicates", []):
            _say(f"  duplicate: {d}")
        for c in conv.extra.get("conflicts", []):
            _say(f"  conflict: {c}")

    _present(conv, out, force, as_json, report)


@lorebook_app.command("merge", cls=_Command)
def lorebook_merge(
    books: Annotated[list[Path], typer.Argument(
        metavar="BOOK…", help="Lorebooks (or cards) to merge, in order.")],
    out: OutOpt,
    to: BookTo = None,
    name: Annotated[str | None, typer.Option("--name", metavar="TEXT",
                                             help="Name of the merged book.")] = None,
    force: ForceOpt = False,
    as_json: JsonOpt = False,
    strip_active: StripOpt = False,
) -> None:
    """Merge lorebooks: identical entries collapse, conflicting ones are kept and reported."""
    from ..engine.converting import merge_lorebooks

    try:
        conv = merge_lorebooks(books, to=to, name=name, registry=_registry(),
                               strip_active=strip_active)
    except BunzaiError as exc:
        _fail(exc, as_json)

    def report() -> None:
        for d in conv.extra.get("duplicates", []):
            _say(f"  duplicate: {d}")
        for c in conv.extra.get("conflicts", []):
            _say(f"  conflict: {c}")

    _present(conv, out, force, as_json, report)


# -- chat ------------------------------------------------------------------------------------------


chat_app = typer.Typer(help="Take the chats out of a card (a Backyard archive) and put one in.",
                       no_args_is_help=True, **_SETTINGS)
_CORE["chat"] = _Lazy(lambda: typer.main.get_command(chat_app),
                      "Take the chats out of a card (a Backyard archive) and put one in.")


@chat_app.command("extract", cls=_Command)
def chat_extract(
    card: Annotated[Path, typer.Argument(metavar="CARD",
                                         help="Card holding chats (a Backyard .byaf).")],
    out: Annotated[Path | None, typer.Option(
        "--out", "-o", metavar="FILE", show_default=False,
        help="Chat file to write (several chats: NAME-<title> beside it; default: next to "
             "the card).")] = None,
    to: Annotated[str | None, typer.Option(
        "--to", "-t", metavar="FORMAT", show_default=False,
        help="Chat format (default: the installed default chat format).")] = None,
    force: ForceOpt = False,
    as_json: JsonOpt = False,
    strip_active: StripOpt = False,
) -> None:
    """Write the chats inside a card (each Backyard scenario's log) as standalone chat files."""
    from ..engine.converting import extract_chats

    try:
        conv = extract_chats(card, to=to, registry=_registry(), strip_active=strip_active)
    except BunzaiError as exc:
        _fail(exc, as_json)
    _present(conv, out or card.parent, force, as_json)


@chat_app.command("embed", cls=_Command)
def chat_embed(
    card: Annotated[Path, typer.Argument(metavar="CARD",
                                         help="Card to take the chat (a Backyard .byaf).")],
    chat: Annotated[Path, typer.Argument(metavar="CHAT", help="Chat file, any chat format.")],
    out: OutOpt,
    to: Annotated[str | None, typer.Option("--to", "-t", metavar="FORMAT", show_default=False,
                                           help="Card format (default: the card's own).")
                  ] = None,
    force: ForceOpt = False,
    as_json: JsonOpt = False,
    strip_active: StripOpt = False,
) -> None:
    """Attach a chat to a card as one more of its chats, reporting what the card cannot hold."""
    from ..engine.converting import embed_chat

    try:
        conv = embed_chat(card, chat, to=to, registry=_registry(), strip_active=strip_active)
    except BunzaiError as exc:
        _fail(exc, as_json)

    _present(conv, out, force, as_json)


# -- formats / plugins / schema --------------------------------------------------------------------


@_command("formats")
def formats_command(
    as_json: JsonOpt = False,
    markdown: Annotated[bool, typer.Option("--markdown", help="The roster as Markdown "
                                           "(docs/FORMAT-SUPPORT.md).")] = False,
) -> None:
    """List every installed format: id, kind, read/write, aliases and options."""
    from ..engine.roster import roster_json, roster_markdown

    reg = _registry()
    if markdown:
        typer.echo(roster_markdown(reg), nl=False)
    elif as_json:
        _emit_json(roster_json(reg))
    else:
        for info in reg.formats():
            rw = ("r" if info.can_read else "-") + ("w" if info.can_write else "-")
            alias = f"  (aliases: {', '.join(info.aliases)})" if info.aliases else ""
            default = f"  (default {info.kind} format)" if info.default_for_kind else ""
            _say(f"{info.id:<24} {info.kind:<10} {rw}  {info.label}{alias}{default}")
            for opt in info.options.values():
                shown = "" if opt.default_text is None else f" (default: {opt.default_text})"
                where = "read option" if opt.reader else "option"
                _say(f"{'':<24}   {where} {opt.name}={opt.values}{shown}: {opt.help}")


@_command("plugins")
def plugins_command(as_json: JsonOpt = False) -> None:
    """List plugin distributions, their adapters, and plugins that were refused (and why)."""
    from ..engine.roster import plugins_json

    reg = _registry()
    data = plugins_json(reg)
    if as_json:
        _emit_json(data)
        return
    for dist in data["distributions"]:
        compat = "" if dist["compatible"] else "  INCOMPATIBLE"
        _say(f"{dist['name']} {dist['version'] or ''}{compat}")
        for a in dist["adapters"]:
            _say(f"  {a['format']:<24} {a['kind']:<10} api {a['api_version']}")
        for p in dist["plugins"]:
            _say(f"  plugin {p}")
    if data["broken"]:
        _say("broken plugins:")
        for b in data["broken"]:
            _say(f"  {b['name']} ({b['distribution']}): {b['reason']}")


@_command("schema")
def schema_command(
    kind: Annotated[str, typer.Argument(metavar="KIND", help="character, lorebook, persona, "
                                        "regex, module or chat.")],
) -> None:
    """Print the JSON Schema of a canonical kind."""
    from ..kinds import KINDS
    if kind not in KINDS:
        _fail(UsageError(f"unknown kind {kind!r} (kinds: {', '.join(KINDS)})"))
    import json

    from ..model import json_schema
    typer.echo(json.dumps(json_schema(kind), indent=2, ensure_ascii=False))


def invoke(*args: str, registry: Registry | None = None) -> Any:
    """Run ``bunzai`` in-process with typer's test runner (exit code, stdout, stderr): for
    tests of commands, a plugin's included; ``registry`` replaces the process-wide one."""
    from typer.testing import CliRunner

    from ..host.registry import set_registry

    if registry is not None:
        set_registry(registry)
    try:
        return CliRunner().invoke(app, list(args))
    finally:
        if registry is not None:
            set_registry(None)


# -- entry point -----------------------------------------------------------------------------------


class _ClosedPipeSafe:
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


def main(argv: list[str] | None = None) -> None:
    """Console entry point."""
    args = sys.argv[1:] if argv is None else argv
    real = sys.stdout
    sys.stdout = _ClosedPipeSafe(real)
    try:
        app(args=args, prog_name="bunzai")
    except BunzaiError as exc:  # safety net: commands handle their own errors
        typer.echo(f"bunzai: error: {exc}", err=True)
        raise SystemExit(exc.exit_code) from None
    except (SystemExit, KeyboardInterrupt):
        raise
    except Exception as exc:
        if os.environ.get("BUNZAI_DEBUG"):
            raise
        typer.echo(f"bunzai: internal error: {type(exc).__name__}: {exc} "
                   "(set BUNZAI_DEBUG=1 for a traceback; please report it)", err=True)
        raise SystemExit(4) from None
    finally:
        sys.stdout.flush()
        sys.stdout = real


if __name__ == "__main__":  # pragma: no cover
    main()

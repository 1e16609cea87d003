"""The commands that look at files: inspect, validate, audit, label, diff and extract."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from ..errors import BunzaiError, UsageError
from . import output
from .common import (
    FilesArg,
    FromOpt,
    JsonOpt,
    MaxSizeOpt,
    apply_limits,
    each,
    loaded_registry,
    many,
    start,
    worst,
)
from .group import command
from .output import done, emit_json, error, fail, say

if TYPE_CHECKING:
    from ..engine.assets import Extraction
    from ..engine.audit import FileAudit
    from ..engine.diff import Difference
    from ..engine.inspecting import Inspection, Labelling, Validation
    from ..host.registry import Registry


def _file_command(name: str, doc: str, work: Callable[[Path, str | None, Registry], Any],
                  show: Callable[[Any, bool], None],
                  folder: Callable[[list[Any]], list[str]] | None = None) -> None:
    """Register ``bunzai NAME FILE…`` for a question asked of each file on its own: inspect,
    audit and label take the same options and differ only in the question (``work``, given
    the file, ``--from`` and the registry) and how an answer reads (``show``, told whether
    several files are shown).  ``folder`` adds closing lines when a folder or several files
    were given (not with --json).  ``doc`` is the command's help."""
    def run(
        files: FilesArg,
        from_: FromOpt = None,
        as_json: JsonOpt = False,
        max_size: MaxSizeOpt = None,
    ) -> None:
        reg, found = start(files, from_, max_size, as_json)
        gap = len(found) > 1
        results = each(found, lambda p: work(p, from_, reg), lambda r: show(r, gap), as_json)
        if folder is not None and many(files, found) and not as_json:
            for line in folder(results):
                say(line)
        done(worst(results))

    run.__doc__ = doc
    command(name)(run)


def _inspect(path: Path, from_: str | None, reg: Registry) -> Inspection:
    from ..engine.inspecting import inspect_file
    return inspect_file(path, from_format=from_, registry=reg)


def _show_inspection(r: Inspection, gap: bool) -> None:
    if r.container is None:
        return  # not even read: the error line says why
    say(str(r.path))
    say(f"  container: {r.container}")
    w = r.report.winner if r.report is not None else None
    conf = r.confidence
    say(f"  format: {r.format or '-'}  kind: {r.kind or '-'}  "
         f"confidence: {conf if conf is not None else '-'}")
    if r.forced is not None:
        found = f"{w.format} {w.score:.2f}" if w is not None else "no format"
        say(f"  read as {r.format or r.forced}: forced with --from (detection found {found})")
    if r.report is not None:
        for c in r.report.candidates:
            say(f"    candidate {c.format:<24} {c.score:.2f}  {c.reason}")
        for f in r.report.faults:
            say(f"    adapter fault {f.format}: {f.message}")
        for a in r.report.slow:
            say(f"    slow adapter {a.format}: detect took {a.seconds:.2f} s "
                 f"(budget {r.report.budget:g} s, BUNZAI_DETECT_BUDGET)")
    if r.ok:
        for ent in r.summaries:
            say(f"  {ent['kind']}: {ent.get('name') or '(unnamed)'}")
            for k, v in ent.items():
                if k not in ("kind", "name"):
                    say(f"    {k}: {', '.join(map(str, v)) if isinstance(v, list) else v}")
        if r.active is not None:
            say(f"  active content: {r.active}")
        for warn in r.warnings:
            say(f"  warning: {warn.path}: {warn.message}")
    if gap:
        say()


_file_command("inspect",
              "What a file is: container, format, confidence, every candidate, and a summary.",
              _inspect, _show_inspection)


@command("validate")
def validate_command(
    files: FilesArg,
    strict: Annotated[bool, typer.Option("--strict", help="Fail on warnings too.")] = False,
    from_: FromOpt = None,
    as_json: JsonOpt = False,
    max_size: MaxSizeOpt = None,
) -> None:
    """Check files against their format's rules and the canonical model (exit 1 if invalid)."""
    from ..engine.inspecting import validate_file

    reg, found = start(files, from_, max_size, as_json)
    results: list[Validation] = each(
        found, lambda p: validate_file(p, from_format=from_, strict=strict, registry=reg),
        _show_validation, as_json)
    if many(files, found) and not as_json:
        counts = {s: sum(1 for r in results if (r.status if r.ok else "unreadable") == s)
                  for s in ("valid", "warnings", "invalid", "unreadable")}
        say(f"{len(results)} file(s): {counts['valid']} valid, {counts['warnings']} with "
             f"warnings, {counts['invalid']} invalid"
             + (f", {counts['unreadable']} unreadable" if counts["unreadable"] else ""))
    done(worst(results))


def _show_validation(r: Validation) -> None:
    if not r.ok:
        return
    say(f"{r.path}: {r.format} ({r.kind}): {'valid' if r.valid else 'INVALID'} - "
         f"{len(r.errors)} error(s), {len(r.issue_warnings)} warning(s)")
    if output.VERBOSE:
        for i in r.issues:
            say(f"  {i.severity}: {i.path}: {i.message}")
        return
    from ..engine.validate import group_issues

    for g in group_issues(r.issues):  # one line per cause; every place with -v or --json
        where = g.paths[0] if g.count == 1 else (
            f"{g.paths[0]} and {g.count - 1} more like it")
        say(f"  {g.severity}: {where}: {g.message}")


def _audit(path: Path, from_: str | None, reg: Registry) -> FileAudit:
    from ..engine.audit import audit
    return audit(path, from_format=from_, registry=reg)


def _audit_folder(results: list[FileAudit]) -> list[str]:
    from ..engine.audit import folder_lines
    return folder_lines(results)


def _show_audit(r: Any, gap: bool) -> None:
    if not r.ok:
        return
    say(f"{r.path}: {r.format} ({r.kind}): {r.summary()}")
    if r.unread is not None:
        say(f"  audited member by member: {r.unread}")
    for f in r.findings:
        say(f"  {f.line()}")
        say(f"      {f.excerpt}")
        if output.VERBOSE and f.note:
            say(f"      note: {f.note}")


_file_command("audit",
              "What files run when opened: scripts, triggers, HTML, remote files (exit 1 if any).",
              _audit, _show_audit, _audit_folder)


def _label(path: Path, from_: str | None, reg: Registry) -> Labelling:
    from ..engine.inspecting import label_file
    return label_file(path, from_format=from_, registry=reg)


def _show_label(r: Labelling, gap: bool) -> None:
    if not r.ok or r.labels is None:
        return
    say(f"{r.path}: {r.format}")
    if not r.labels.guesses:
        say("  no app evidence found")
    for g in r.labels.guesses:
        say(f"  {g.role}: {g.app}" + (f" ({g.confidence:.2f})" if g.confidence else ""))
        for e in g.evidence:
            say(f"    - {e}")
    if gap:
        say()


_file_command("label",
              "Guess which app made (origin) and last saved (last writer) a file, with evidence.",
              _label, _show_label)


@command("diff")
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
        apply_limits(max_size)
        reg = loaded_registry()
        if a.is_dir() != b.is_dir():
            raise UsageError("diff compares two files or two folders")
    except BunzaiError as exc:
        fail(exc, as_json)
    results = (diff_folders(a, b, registry=reg) if a.is_dir()
               else [diff_files(a, b, registry=reg)])
    for d in results:
        if as_json:
            emit_json(d.to_dict(unified=output.VERBOSE))
        else:
            _show_diff(d)
        if d.error is not None:
            error(d.error)
    done(worst(results))


def _show_diff(d: Difference) -> None:
    if d.only is not None:
        say(f"only in {'OLD' if d.only == 'a' else 'NEW'}: {d.path}")
        return
    if not d.ok or d.a is None or d.b is None:
        return
    names = f"{d.path} ({d.a.format}) and {d.other} ({d.b.format})"
    if d.equal:
        say(f"{names} are equal")
        return
    say(f"{names}: {len(d.changes)} difference(s)")
    for c in d.changes:
        say(f"  {c.line()}")
        if output.VERBOSE and c.long_text:
            for line in c.unified():
                say(f"      {line}")


@command("extract")
def extract_command(
    files: FilesArg,
    assets: Annotated[Path, typer.Option(
        "--assets", metavar="DIR",
        help="Folder to write the assets into (several files: one folder per file inside it, "
             "named after the file).")],
    force: Annotated[bool, typer.Option("--force", help="Overwrite existing files.")] = False,
    from_: FromOpt = None,
    as_json: JsonOpt = False,
    max_size: MaxSizeOpt = None,
) -> None:
    """Write every embedded asset with a safe name and its real extension, plus manifest.json."""
    from ..engine.assets import extract_assets
    from ..io.outputs import safe_name, source_stem

    reg, found = start(files, from_, max_size, as_json)
    several = many(files, found)
    used: set[str] = set()

    def folder_of(path: Path) -> Path:
        if not several:
            return assets
        stem = name = safe_name(source_stem(path.name))
        n = 2
        while name.casefold() in used:
            name, n = f"{stem}-{n}", n + 1
        used.add(name.casefold())
        return assets / name

    results = each(found, lambda p: extract_assets(p, folder_of(p), force=force,
                                                   from_format=from_, registry=reg),
                   _show_extraction, as_json)
    done(worst(results))


def _show_extraction(res: Extraction) -> None:
    if not res.ok or res.folder is None:
        return
    written = res.written
    say(f"{res.path}: {len(written)} asset(s) written to {res.folder}"
        + (f", {len(res.manifest) - len(written)} not embedded"
           if len(written) < len(res.manifest) else ""))
    for m in res.manifest:
        say(f"  {m.get('file') or '-':<32} {m.get('media_type', ''):<20} "
            f"{m['type']}:{m['name']}")

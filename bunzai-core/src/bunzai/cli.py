"""The ``bunzai`` command line: a thin layer over :mod:`bunzai.api`.

Exit codes (documented in the README and relied on by scripts):
0 ok; 1 validation failed; 2 usage error; 3 unrecognized or ambiguous input;
4 unreadable or malformed input; 5 conversion refused (cross-kind, existing output) or the
output could not be written (disk full, permission denied).

Plugins are loaded only by commands that need them: ``bunzai --help`` and ``--version`` import no
plugin code and build no pydantic model.
"""

from __future__ import annotations

import copy
import json
import os
import sys
from inspect import getdoc
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, NoReturn

import typer

from . import __version__
from .errors import BunzaiError, UsageError

if TYPE_CHECKING:
    from collections.abc import Callable

    from typer.models import CommandInfo

    from .input import AdapterInput
    from .registry import Registry

app = typer.Typer(
    name="bunzai",
    help="Read, check and convert AI role-play files: character cards, lorebooks, personas, "
         "regex scripts, chats.",
    no_args_is_help=True,
    add_completion=True,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
    epilog="Exit codes: 0 ok, 1 validation failed, 2 usage, 3 unrecognized/ambiguous, "
           "4 malformed, 5 conversion refused or output not written. Plugin commands: see "
           "'bunzai plugins'.",
)

JsonOpt = Annotated[bool, typer.Option("--json", help="Print one JSON object per file.")]
MaxSizeOpt = Annotated[
    int | None,
    typer.Option("--max-size", help="Largest input accepted, in bytes (default 256 MiB).",
                 show_default=False),
]


def _version(value: bool) -> None:
    if value:
        typer.echo(f"bunzai {__version__}")
        raise typer.Exit()


QUIET = False
VERBOSE = False


@app.callback()
def _root(
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                          help="Show the version and exit.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print only errors (and "
                                        "--json output).")] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Print more detail.")] = False,
) -> None:
    """bunzai: what is this file, where is it from, is it valid, and give it to me as X."""
    global QUIET, VERBOSE
    QUIET, VERBOSE = quiet, verbose


def _say(text: str) -> None:
    """Human output; silenced by --quiet."""
    if not QUIET:
        typer.echo(text)


def _use_colour() -> bool:
    return sys.stderr.isatty() and not os.environ.get("NO_COLOR") and \
        os.environ.get("TERM") != "dumb"


# -- shared plumbing ------------------------------------------------------------------------------


def _registry() -> Registry:
    from .api import get_registry
    return get_registry()


def _fail(exc: BunzaiError, *, as_json: bool = False, payload: dict[str, Any] | None = None
          ) -> NoReturn:
    if as_json:
        body = dict(payload or {})
        body.setdefault("path", exc.path)
        body["error"] = exc.message
        body["exit_code"] = exc.exit_code
        typer.echo(json.dumps(body, ensure_ascii=False))
    prefix = typer.style("bunzai: error:", fg="red", bold=True) if _use_colour() \
        else "bunzai: error:"
    typer.echo(f"{prefix} {exc}", err=True, color=_use_colour())
    raise typer.Exit(exc.exit_code)


def _apply_limits(max_size: int | None) -> None:
    if max_size is not None:
        from .limits import get_limits, set_limits
        set_limits(get_limits().replace(max_size=max_size))


def _open(path: Path, max_size: int | None) -> tuple[Registry, AdapterInput]:
    """The registry and the file's input, with ``--max-size`` applied: every command starts so."""
    _apply_limits(max_size)
    return _registry(), _load(path)


def _load(path: Path) -> AdapterInput:
    from .input import AdapterInput
    inp = AdapterInput.from_path(path)
    inp.filename = str(path)
    return inp


def _make_folder(folder: Path) -> None:
    """Create an output folder; failing (read-only, a file in the way) is a clean error."""
    from .errors import OutputError
    try:
        folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise OutputError(f"cannot create the output folder: {exc.strerror or exc}",
                          path=str(folder)) from None


def _parse_options(pairs: list[str] | None) -> dict[str, Any]:
    from .api import parse_options
    return parse_options(pairs)


def _echo_json(obj: Any) -> None:
    typer.echo(json.dumps(obj, ensure_ascii=False, default=str))


# -- convert --------------------------------------------------------------------------------------


def _default_output(src: Path, suffix: str, format_id: str) -> Path:
    name = src.name
    for known in (".vaud.json",):
        if name.lower().endswith(known):
            name = name[: -len(known)]
            break
    else:
        name = src.stem
    out = src.with_name(name + suffix)
    if out.resolve() == src.resolve():
        out = src.with_name(f"{name}.{format_id}{suffix}")
    return out


def _write_outputs(written: Any, out: Path | None, src: Path, format_id: str,
                   force: bool) -> list[Path]:
    """Write every file of a result atomically; never the source, never over a file unasked."""
    from .errors import ConversionRefused
    from .outputs import output_names, write_atomic

    first = written.files[0]
    base = out if out is not None else _default_output(src, first.suffix, format_id)
    paths: list[Path] = []
    if len(written.files) == 1:
        paths.append(base)
    else:
        stem = base.name[: -len(first.suffix)] if base.name.endswith(first.suffix) else base.stem
        paths.extend(base.with_name(n) for n in output_names(stem, written.files))
    for p in paths:
        if p.resolve() == src.resolve():
            raise ConversionRefused("output would replace the source file", path=str(p))
        if p.exists() and not force:
            raise ConversionRefused("output exists; pass --force to overwrite", path=str(p))
    for p, f in zip(paths, written.files, strict=True):
        write_atomic(p, f.parts, force=force)
    return paths


@app.command()
def convert(
    srcs: Annotated[list[Path], typer.Argument(
        metavar="SRC...", help="File(s) to convert (never modified); folders and globs make a "
                               "batch.")],
    to: Annotated[str, typer.Option("--to", "-t", help="Target format id or alias.")],
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Output file (default: next "
                                             "to SRC with the target's suffix).")] = None,
    out_dir: Annotated[Path | None, typer.Option("--out-dir", "-d", help="Batch: folder for "
                                                 "the outputs.")] = None,
    jobs: Annotated[int, typer.Option("--jobs", "-j", help="Batch: worker processes.")] = 1,
    from_: Annotated[str | None, typer.Option("--from", "-f", help="Skip detection: read "
                                              "SRC as this format.")] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing output.")] = False,
    option: Annotated[list[str] | None, typer.Option("--option", "-O", help="Writer option "
                                                     "KEY=VALUE (see 'bunzai formats').")] = None,
    as_json: JsonOpt = False,
    max_size: MaxSizeOpt = None,
) -> None:
    """Convert SRC to another format of the same kind, printing what was lost.

    Several sources, a folder or a glob make a batch: give --out-dir; bad files are reported and
    skipped, and the exit code is that of the worst failure.
    """
    batch = len(srcs) > 1 or out_dir is not None or any(
        p.is_dir() or any(ch in str(p) for ch in "*?[") for p in srcs)
    if batch:
        _convert_batch(srcs, to, out_dir, jobs, from_, force, option, as_json, max_size, out)
        return
    src = srcs[0]
    payload: dict[str, Any] = {"path": str(src)}
    try:
        reg, inp = _open(src, max_size)
        handle, result, report = reg.read(inp, format=from_)
        payload.update({"container": inp.container, "format": handle.id,
                        "kind": result.entities[0].kind})
        del inp  # free the input (a whole CharX) before the write: the entities hold their data
        if report is not None:
            payload.update({"confidence": report.winner.score if report.winner else None,
                            "candidates": [c.to_dict() for c in report.candidates]})
        written = reg.write(result.entities, to, _parse_options(option))
        target = reg.resolve_target(to, result.entities[0].kind)
        paths = _write_outputs(written, out, src, target.id, force)
    except BunzaiError as exc:
        _fail(exc.with_path(str(src)), as_json=as_json, payload=payload)
    payload.update({"to": target.id, "output": str(paths[0]),
                    "outputs": [str(p) for p in paths],
                    "loss": written.loss.to_list(), "warnings": [
                        w.to_dict() for w in result.warnings] + [
                        {"path": "$", "message": w, "severity": "warning"}
                        for w in written.warnings]})
    if as_json:
        _echo_json(payload)
        return
    for p in paths:
        typer.echo(f"{src} ({handle.id}) -> {p} ({target.id})")
    for w in payload["warnings"]:
        typer.echo(f"  warning: {w['path']}: {w['message']}")
    if written.loss:
        typer.echo(f"  loss report ({len(written.loss)}):")
        for e in written.loss:
            typer.echo(f"    {e.action}: {e.path} - {e.reason}")
    else:
        typer.echo("  nothing lost")


def _convert_batch(srcs: list[Path], to: str, out_dir: Path | None, jobs: int,
                   from_: str | None, force: bool, option: list[str] | None, as_json: bool,
                   max_size: int | None, out: Path | None) -> None:
    from . import batch

    try:
        folder = next((s for s in srcs if s.is_dir()), None)
        if out is not None:
            if folder is not None:
                raise UsageError("is a folder: converting a folder is a batch; use --out-dir "
                                 "instead of --out", path=str(folder))
            raise UsageError("--out names one file; use --out-dir for several sources")
        if out_dir is None:
            if folder is not None:
                raise UsageError("is a folder: converting a folder is a batch; give --out-dir",
                                 path=str(folder))
            raise UsageError("converting several files needs --out-dir")
        if jobs < 1:
            raise UsageError("--jobs must be at least 1")
        _apply_limits(max_size)
        sources = batch.expand_sources(str(s) for s in srcs)
        _make_folder(out_dir)
        reg = _registry()
        target = reg.get(to)
        opts = tuple(_parse_options(option).items())
    except BunzaiError as exc:
        _fail(exc, as_json=as_json)
    outs = batch.plan(sources, out_dir, target.info.suffix)
    work = [batch.Job(str(s), str(o), to, from_, force, opts, target.info.suffix)
            for s, o in zip(sources, outs, strict=True)]
    show_progress = sys.stderr.isatty() and not QUIET and not as_json
    counts = {"converted": 0, "skipped": 0, "failed": 0}
    worst = 0
    failures: list[dict[str, Any]] = []
    for i, rec in enumerate(batch.run(work, jobs), 1):
        counts[rec["status"]] += 1
        if rec["status"] == "failed":
            worst = max(worst, rec.get("exit_code", 4))
            failures.append(rec)
        if as_json:
            _echo_json(rec)
        elif VERBOSE:
            _say(f"{rec['status']:<9} {rec['path']} -> {rec.get('output') or rec.get('error')}")
        if show_progress:
            sys.stderr.write(f"\r[{i}/{len(work)}] converted {counts['converted']}, skipped "
                             f"{counts['skipped']}, failed {counts['failed']}")
            sys.stderr.flush()
    if show_progress:
        sys.stderr.write("\n")
    if not as_json:
        _say(f"{len(work)} file(s): {counts['converted']} converted, {counts['skipped']} "
             f"skipped, {counts['failed']} failed")
        for rec in failures:
            _say(f"  failed: {rec['path']}: {rec.get('error')}")
    if worst:
        raise typer.Exit(worst)


# -- inspect --------------------------------------------------------------------------------------


@app.command()
def inspect(
    file: Annotated[Path, typer.Argument(help="File to inspect.")],
    from_: Annotated[str | None, typer.Option("--from", "-f", help="Read as this format.")] = None,
    as_json: JsonOpt = False,
    max_size: MaxSizeOpt = None,
) -> None:
    """What a file is: container, format, confidence, every candidate, and a summary."""
    from .summary import summarize

    payload: dict[str, Any] = {"path": str(file)}
    try:
        reg, inp = _open(file, max_size)
        report = reg.detect(inp)
        payload.update(report.to_dict())
        if report.slow:
            payload["detect_budget"] = report.budget
        if from_ is None:
            report.raise_for_status(str(file))
        handle, result, _ = reg.read(inp, format=from_ or report.winner.format)  # type: ignore[union-attr]
        payload["format"] = handle.id
        payload["kind"] = result.entities[0].kind
        payload["entities"] = [summarize(e) for e in result.entities]
        payload["warnings"] = [w.to_dict() for w in result.warnings]
    except BunzaiError as exc:
        if not as_json:
            _print_detection(payload)
        _fail(exc.with_path(str(file)), as_json=as_json, payload=payload)
    if as_json:
        _echo_json(payload)
        return
    _print_detection(payload)
    for ent in payload["entities"]:
        typer.echo(f"  {ent['kind']}: {ent.get('name') or '(unnamed)'}")
        for k, v in ent.items():
            if k not in ("kind", "name"):
                typer.echo(f"    {k}: {v}")
    for w in payload["warnings"]:
        typer.echo(f"  warning: {w['path']}: {w['message']}")


def _print_detection(p: dict[str, Any]) -> None:
    if "container" not in p:
        return
    typer.echo(f"{p['path']}")
    typer.echo(f"  container: {p['container']}")
    conf = p.get("confidence")
    typer.echo(f"  format: {p.get('format') or '-'}  kind: {p.get('kind') or '-'}  "
               f"confidence: {conf if conf is not None else '-'}")
    for c in p.get("candidates", []):
        typer.echo(f"    candidate {c['format']:<24} {c['score']:.2f}  {c['reason']}")
    for f in p.get("faults", []):
        typer.echo(f"    adapter fault {f['format']}: {f['message']}")
    for a in p.get("slow_adapters", []):
        typer.echo(f"    slow adapter {a['format']}: detect took {a['seconds']:.2f} s "
                   f"(budget {p.get('detect_budget', 0.5):g} s, BUNZAI_DETECT_BUDGET)")


# -- validate -------------------------------------------------------------------------------------


@app.command()
def validate(
    file: Annotated[Path, typer.Argument(help="File to validate.")],
    strict: Annotated[bool, typer.Option("--strict", help="Fail on warnings too.")] = False,
    from_: Annotated[str | None, typer.Option("--from", "-f", help="Read as this format.")] = None,
    as_json: JsonOpt = False,
    max_size: MaxSizeOpt = None,
) -> None:
    """Check a file against its format's rules and the canonical model (exit 1 on failure)."""
    from .validate import file_issues

    payload: dict[str, Any] = {"path": str(file)}
    try:
        reg, inp = _open(file, max_size)
        handle, result, report = reg.read(inp, format=from_)
        payload.update({"container": inp.container, "format": handle.id,
                        "kind": result.entities[0].kind,
                        "confidence": report.winner.score if report and report.winner else None,
                        "candidates": [c.to_dict() for c in report.candidates] if report else []})
        issues = file_issues(reg, handle, inp, result)
    except BunzaiError as exc:
        _fail(exc.with_path(str(file)), as_json=as_json, payload=payload)
    errors = [i for i in issues if i.severity == "error"]
    warnings = [i for i in issues if i.severity != "error"]
    ok = not errors and not (strict and warnings)
    payload.update({"valid": ok, "errors": [i.to_dict() for i in errors],
                    "warnings": [i.to_dict() for i in warnings], "strict": strict})
    if as_json:
        _echo_json(payload)
    else:
        typer.echo(f"{file}: {handle.id} ({payload['kind']}): "
                   f"{'valid' if ok else 'INVALID'} - {len(errors)} error(s), "
                   f"{len(warnings)} warning(s)")
        for i in issues:
            typer.echo(f"  {i.severity}: {i.path}: {i.message}")
    if not ok:
        raise typer.Exit(1)


# -- label ----------------------------------------------------------------------------------------


@app.command()
def label(
    file: Annotated[Path, typer.Argument(help="File to label.")],
    as_json: JsonOpt = False,
    max_size: MaxSizeOpt = None,
) -> None:
    """Guess which app made (origin) and last saved (last writer) a file, with evidence."""
    from .label import label as run_label

    payload: dict[str, Any] = {"path": str(file)}
    try:
        reg, inp = _open(file, max_size)
        handle, result, _ = reg.read(inp)
        payload.update({"format": handle.id, "kind": result.entities[0].kind})
        labelled = run_label(reg, inp, result.entities)
    except BunzaiError as exc:
        _fail(exc.with_path(str(file)), as_json=as_json, payload=payload)
    payload.update(labelled.to_dict())
    if as_json:
        _echo_json(payload)
        return
    typer.echo(f"{file}: {handle.id}")
    if not labelled.guesses:
        typer.echo("  no app evidence found")
    for g in labelled.guesses:
        typer.echo(f"  {g.role}: {g.app} ({g.confidence:.2f})")
        for e in g.evidence:
            typer.echo(f"    - {e}")


# -- diff / extract / lorebook --------------------------------------------------------------------


def _read_one(path: Path, from_: str | None = None) -> tuple[Any, Any, AdapterInput]:
    reg = _registry()
    inp = _load(path)
    handle, result, _ = reg.read(inp, format=from_)
    return handle, result, inp


@app.command()
def diff(
    a: Annotated[Path, typer.Argument(help="First file.")],
    b: Annotated[Path, typer.Argument(help="Second file (any format of the same kind).")],
    as_json: JsonOpt = False,
    max_size: MaxSizeOpt = None,
) -> None:
    """Semantic diff of two files of the same kind, whatever their formats (exit 1 if different)."""
    from .diff import diff_entities

    payload: dict[str, Any] = {"path": str(a), "other": str(b)}
    try:
        _apply_limits(max_size)
        ha, ra, _ = _read_one(a)
        hb, rb, _ = _read_one(b)
        ka, kb = ra.entities[0].kind, rb.entities[0].kind
        payload.update({"format": ha.id, "other_format": hb.id, "kind": ka})
        if ka != kb:
            raise UsageError(f"cannot diff a {ka} against a {kb}")
        changes: list[dict[str, Any]] = []
        n = max(len(ra.entities), len(rb.entities))
        for i in range(n):
            prefix = f"[{i}]." if n > 1 else ""
            if i >= len(ra.entities):
                changes.append({"path": f"[{i}]", "change": "added", "a": None,
                                "b": rb.entities[i].name})
            elif i >= len(rb.entities):
                changes.append({"path": f"[{i}]", "change": "removed",
                                "a": ra.entities[i].name, "b": None})
            else:
                for change in diff_entities(ra.entities[i], rb.entities[i]):
                    d = change.to_dict()
                    d["path"] = prefix + d["path"]
                    changes.append(d)
    except BunzaiError as exc:
        _fail(exc, as_json=as_json, payload=payload)
    payload.update({"equal": not changes, "changes": changes})
    if as_json:
        _echo_json(payload)
    elif not changes:
        _say(f"{a} ({ha.id}) and {b} ({hb.id}) are equal")
    else:
        _say(f"{a} ({ha.id}) vs {b} ({hb.id}): {len(changes)} difference(s)")
        for c in changes:
            _say(f"  {c['change']:<8} {c['path']}")
            if VERBOSE:
                _say(f"           a: {_short(c['a'])}\n           b: {_short(c['b'])}")
    if changes:
        raise typer.Exit(1)


def _short(v: Any) -> str:
    text = json.dumps(v, ensure_ascii=False, default=str)
    return text if len(text) <= 120 else text[:117] + "..."


@app.command()
def extract(
    file: Annotated[Path, typer.Argument(help="Card or module whose assets to write.")],
    assets: Annotated[Path, typer.Option("--assets", help="Folder to write the assets into.")],
    force: Annotated[bool, typer.Option("--force", help="Overwrite existing files.")] = False,
    as_json: JsonOpt = False,
    max_size: MaxSizeOpt = None,
) -> None:
    """Write every embedded asset with a safe name and its real extension, plus manifest.json."""
    import hashlib

    from .containers.media import sniff_media
    from .jsonio import dumps
    from .outputs import safe_name, write_atomic

    payload: dict[str, Any] = {"path": str(file)}
    try:
        _apply_limits(max_size)
        handle, result, _ = _read_one(file)
        entity = result.entities[0]
        payload.update({"format": handle.id, "kind": entity.kind})
        items = list(getattr(entity, "assets", []) or [])
        if entity.kind == "persona" and entity.avatar is not None:
            items = [entity.avatar]
        _make_folder(assets)
        manifest: list[dict[str, Any]] = []
        used: set[str] = set()
        for a in items:
            row: dict[str, Any] = {"name": a.name, "type": a.type, "uri": a.uri,
                                   "origin": a.origin, "orphan": a.orphan}
            if a.data is None:
                row.update({"file": None, "note": "not embedded (remote or missing)"})
                manifest.append(row)
                continue
            media, ext = sniff_media(a.data)
            stem = safe_name(f"{a.type}-{a.name}" if a.type not in ("icon",) else a.name)
            cand, n = stem, 2
            while f"{cand}.{ext}".lower() in used:
                cand, n = f"{stem}-{n}", n + 1
            fname = f"{cand}.{ext}"
            used.add(fname.lower())
            write_atomic(assets / fname, a.data, force=force)
            row.update({"file": fname, "media_type": media, "size": len(a.data),
                        "sha256": hashlib.sha256(a.data).hexdigest()})
            manifest.append(row)
        write_atomic(assets / "manifest.json", dumps(manifest, indent=2) + b"\n", force=force)
    except BunzaiError as exc:
        _fail(exc.with_path(str(file)), as_json=as_json, payload=payload)
    payload.update({"output": str(assets), "assets": manifest})
    if as_json:
        _echo_json(payload)
        return
    written = [m for m in manifest if m.get("file")]
    _say(f"{file}: {len(written)} asset(s) written to {assets}"
         + (f", {len(manifest) - len(written)} not embedded" if len(written) < len(manifest)
            else ""))
    for m in manifest:
        _say(f"  {m.get('file') or '-':<32} {m.get('media_type', ''):<20} {m['type']}:{m['name']}")


DEFAULT_BOOK = "sillytavern-lorebook"
lorebook_app = typer.Typer(help="Extract, embed and merge lorebooks.", no_args_is_help=True)
app.add_typer(lorebook_app, name="lorebook")


def _emit(entities: list[Any], to: str, out: Path, src: Path, force: bool, as_json: bool,
          payload: dict[str, Any], extra: dict[str, Any] | None = None,
          check: Callable[[Any, str], None] | None = None) -> None:
    reg = _registry()
    written = reg.write(entities, to)
    target = reg.resolve_target(to, entities[0].kind)
    if check is not None:
        check(written, target.id)
    paths = _write_outputs(written, out, src, target.id, force)
    payload.update({"to": target.id, "output": str(paths[0]),
                    "outputs": [str(p) for p in paths], "loss": written.loss.to_list(),
                    "warnings": list(written.warnings), **(extra or {})})
    if as_json:
        _echo_json(payload)
        return
    for p in paths:
        _say(f"-> {p} ({target.id})")
    for w in written.warnings:
        _say(f"  warning: {w}")
    for e in written.loss:
        _say(f"  {e.action}: {e.path} - {e.reason}")


@lorebook_app.command("extract")
def lorebook_extract(
    card: Annotated[Path, typer.Argument(help="Character card holding a lorebook.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Lorebook file to write.")],
    to: Annotated[str, typer.Option("--to", "-t", help="Lorebook format.")] = DEFAULT_BOOK,
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing output.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Write a card's embedded lorebook as a standalone lorebook file."""
    from .lorebooks import extract as extract_book

    payload: dict[str, Any] = {"path": str(card)}
    try:
        handle, result, _ = _read_one(card)
        payload.update({"format": handle.id})
        _emit([extract_book(result.entities[0])], to, out, card, force, as_json, payload)
    except BunzaiError as exc:
        _fail(exc.with_path(str(card)), as_json=as_json, payload=payload)


@lorebook_app.command("embed")
def lorebook_embed(
    card: Annotated[Path, typer.Argument(help="Character card.")],
    book: Annotated[Path, typer.Argument(help="Lorebook to embed (replaces the card's own).")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Card file to write.")],
    to: Annotated[str | None, typer.Option("--to", "-t", help="Card format (default: the "
                                           "card's own).")] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing output.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Embed a lorebook into a card, writing a new card."""
    from .lorebooks import check_embedded
    from .lorebooks import embed as embed_book

    payload: dict[str, Any] = {"path": str(card), "book": str(book)}
    try:
        hc, rc, _ = _read_one(card)
        hb, rb, _ = _read_one(book)
        if rb.entities[0].kind != "lorebook":
            raise UsageError(f"{book} is a {rb.entities[0].kind}, not a lorebook", path=str(book))
        replaced = rc.entities[0].lorebook is not None
        new = embed_book(rc.entities[0], rb.entities[0])
        payload.update({"format": hc.id, "book_format": hb.id})
        _emit([new], to or hc.id, out, card, force, as_json, payload,
              {"replaced_existing_book": replaced}, check=check_embedded)
    except BunzaiError as exc:
        _fail(exc.with_path(str(card)), as_json=as_json, payload=payload)


@lorebook_app.command("merge")
def lorebook_merge(
    books: Annotated[list[Path], typer.Argument(help="Lorebooks (or cards) to merge, in order.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Merged lorebook to write.")],
    to: Annotated[str, typer.Option("--to", "-t", help="Lorebook format.")] = DEFAULT_BOOK,
    name: Annotated[str | None, typer.Option("--name", help="Name of the merged book.")] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing output.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Merge lorebooks: identical entries collapse, conflicting ones are kept and reported."""
    from .lorebooks import extract as extract_book
    from .lorebooks import merge as merge_books

    payload: dict[str, Any] = {"path": str(books[0]) if books else None,
                               "inputs": [str(b) for b in books]}
    try:
        if len(books) < 2:
            raise UsageError("merge needs at least two lorebooks")
        loaded = []
        for b in books:
            _, r, _ = _read_one(b)
            e = r.entities[0]
            loaded.append(e if e.kind == "lorebook" else extract_book(e))
        merged, report = merge_books(loaded, name)
        _emit([merged], to, out, books[0], force, as_json, payload,
              {"entries": len(merged.entries), **report.to_dict()})
        if not as_json:
            for d in report.duplicates:
                _say(f"  duplicate: {d}")
            for c in report.conflicts:
                _say(f"  conflict: {c}")
    except BunzaiError as exc:
        _fail(exc, as_json=as_json, payload=payload)


DEFAULT_CHAT = "sillytavern-chat"
chat_app = typer.Typer(help="Take the chats out of a card (a Backyard archive) and put one in.",
                       no_args_is_help=True)
app.add_typer(chat_app, name="chat")


@chat_app.command("extract")
def chat_extract(
    card: Annotated[Path, typer.Argument(help="Card holding chats (a Backyard .byaf).")],
    out: Annotated[Path | None, typer.Option("--out", "-o", help="Chat file to write (several "
                                             "chats: numbered next to it).")] = None,
    to: Annotated[str, typer.Option("--to", "-t", help="Chat format.")] = DEFAULT_CHAT,
    force: Annotated[bool, typer.Option("--force", help="Overwrite existing outputs.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Write the chats inside a card (each Backyard scenario's log) as standalone chat files."""
    from .chats import extract as extract_chats

    payload: dict[str, Any] = {"path": str(card)}
    try:
        handle, result, _ = _read_one(card)
        found = extract_chats(_registry(), result.entities[0])
        payload.update({"format": handle.id, "chats": len(found)})
        suffix = _registry().resolve_target(to, "chat").info.suffix
        _emit(found, to, out or card.with_name(card.stem + suffix), card, force, as_json,
              payload)
    except BunzaiError as exc:
        _fail(exc.with_path(str(card)), as_json=as_json, payload=payload)


@chat_app.command("embed")
def chat_embed(
    card: Annotated[Path, typer.Argument(help="Card to take the chat (a Backyard .byaf).")],
    chat: Annotated[Path, typer.Argument(help="Chat file, any chat format.")],
    out: Annotated[Path, typer.Option("--out", "-o", help="Card file to write.")],
    to: Annotated[str | None, typer.Option("--to", "-t", help="Card format (default: the "
                                           "card's own).")] = None,
    force: Annotated[bool, typer.Option("--force", help="Overwrite an existing output.")] = False,
    as_json: JsonOpt = False,
) -> None:
    """Attach a chat to a card as one more of its chats, reporting what the card cannot hold."""
    from .chats import embed as embed_chat

    payload: dict[str, Any] = {"path": str(card), "chat": str(chat)}
    try:
        hc, rc, _ = _read_one(card)
        hb, rb, _ = _read_one(chat)
        if rb.entities[0].kind != "chat":
            raise UsageError(f"{chat} is a {rb.entities[0].kind}, not a chat", path=str(chat))
        new, lost = embed_chat(_registry(), rc.entities[0], rb.entities[0])
        payload.update({"format": hc.id, "chat_format": hb.id,
                        "chat_loss": lost.to_list()})
        if not as_json:
            for e in lost:
                _say(f"  {e.action}: chat {e.path} - {e.reason}")
        _emit([new], to or hc.id, out, card, force, as_json, payload)
    except BunzaiError as exc:
        _fail(exc.with_path(str(card)), as_json=as_json, payload=payload)


# -- formats / plugins / schema -------------------------------------------------------------------


@app.command()
def formats(
    as_json: JsonOpt = False,
    markdown: Annotated[bool, typer.Option("--markdown", help="The roster as Markdown "
                                           "(docs/FORMAT-SUPPORT.md).")] = False,
) -> None:
    """List every installed format: id, kind, read/write, aliases and options."""
    from .roster import roster_json, roster_markdown

    reg = _registry()
    if markdown:
        typer.echo(roster_markdown(reg), nl=False)
    elif as_json:
        _echo_json(roster_json(reg))
    else:
        for info in reg.formats():
            rw = ("r" if info.can_read else "-") + ("w" if info.can_write else "-")
            alias = f"  (aliases: {', '.join(info.aliases)})" if info.aliases else ""
            typer.echo(f"{info.id:<24} {info.kind:<10} {rw}  {info.label}{alias}")
            for name, desc in info.options.items():
                typer.echo(f"{'':<24}   option {name}: {desc}")


@app.command()
def plugins(as_json: JsonOpt = False) -> None:
    """List plugin distributions, their adapters, and plugins that were refused (and why)."""
    from .roster import plugins_json

    data = plugins_json(_registry())
    if as_json:
        _echo_json(data)
        return
    for dist in data["distributions"]:
        compat = "" if dist["compatible"] else "  INCOMPATIBLE"
        typer.echo(f"{dist['name']} {dist['version'] or ''}{compat}")
        for a in dist["adapters"]:
            typer.echo(f"  {a['format']:<24} {a['kind']:<10} api {a['api_version']}")
        for p in dist["plugins"]:
            typer.echo(f"  plugin {p}")
    if data["broken"]:
        typer.echo("broken plugins:")
        for b in data["broken"]:
            typer.echo(f"  {b['name']} ({b['distribution']}): {b['reason']}")


@app.command()
def schema(
    kind: Annotated[str, typer.Argument(help="character, lorebook, persona, regex, module or "
                                             "chat.")],
) -> None:
    """Print the JSON Schema of a canonical kind."""
    from .kinds import KINDS
    if kind not in KINDS:
        _fail(UsageError(f"unknown kind {kind!r} (kinds: {', '.join(KINDS)})"))
    from .model import json_schema
    typer.echo(json.dumps(json_schema(kind), indent=2, ensure_ascii=False))


# -- entry point ----------------------------------------------------------------------------------

_CORE_COMMANDS = {"convert", "inspect", "validate", "label", "formats", "plugins", "schema",
                  "diff", "extract", "lorebook", "chat"}
_PLAIN_ROOT_OPTIONS = {"-q", "--quiet", "-v", "--verbose"}
"""Root options that may precede a command without needing the list of every command."""
_LISTING_OPTIONS = {"-h", "--help", "--version"}


def _app_for(args: list[str], first: str | None) -> typer.Typer:
    """The app a run needs: only the core command it runs, or for help only the command list.

    typer turns the signature of every command into click parameters on each start (73 M
    instructions, 6 % of ``bunzai inspect``, a sixth of ``bunzai --help``).  A core command needs
    only its own (12 M); help and ``--version`` before any command need the names and docstrings.
    Anything else (a plugin command, a typo and its suggestion, shell completion) gets the whole
    app.
    """
    if "_BUNZAI_COMPLETE" in os.environ:
        return app
    before = args if first is None else args[:args.index(first)]
    if not args or any(a in _LISTING_OPTIONS for a in before):
        return _listing(app)
    if first not in _CORE_COMMANDS or any(a not in _PLAIN_ROOT_OPTIONS for a in before):
        return app
    one = copy.copy(app)
    one.registered_commands = [c for c in app.registered_commands if _name(c) == first]
    one.registered_groups = [g for g in app.registered_groups if g.name == first]
    return one


def _listing(full: typer.Typer) -> typer.Typer:
    """``full`` with every command reduced to its name and help: what the command list shows."""
    lite = copy.copy(full)
    lite.registered_commands = []
    for command in full.registered_commands:
        shown = copy.copy(command)
        shown.name = _name(command)
        shown.help = command.help if command.help is not None else getdoc(command.callback)
        shown.callback = _listed_only
        lite.registered_commands.append(shown)
    lite.registered_groups = []
    for group in full.registered_groups:
        sub = group.typer_instance
        if isinstance(sub, typer.Typer):
            group = copy.copy(group)
            group.typer_instance = _listing(sub)
        lite.registered_groups.append(group)
    return lite


def _listed_only() -> None:
    """Stands in for a command in the help listing; help and --version exit before it runs."""
    raise RuntimeError("a command of the help listing was run")


def _name(command: CommandInfo) -> str:
    """The command's name as typer derives it."""
    return str(command.name or getattr(command.callback, "__name__", "")).lower().replace("_", "-")


def main(argv: list[str] | None = None) -> None:
    """Console entry point; loads plugin commands only for a command core does not know."""
    args = sys.argv[1:] if argv is None else argv
    first = next((a for a in args if not a.startswith("-")), None)
    if first is not None and first not in _CORE_COMMANDS:
        try:
            _registry().register_commands(app)
        except BunzaiError as exc:  # pragma: no cover - registry loading never raises today
            typer.echo(f"bunzai: error: {exc}", err=True)
            raise SystemExit(exc.exit_code) from None
    try:
        _app_for(args, first)(args=args, prog_name="bunzai")
    except BunzaiError as exc:  # safety net: commands handle their own errors
        typer.echo(f"bunzai: error: {exc}", err=True)
        raise SystemExit(exc.exit_code) from None
    except Exception as exc:
        if os.environ.get("BUNZAI_DEBUG"):
            raise
        typer.echo(f"bunzai: internal error: {type(exc).__name__}: {exc} "
                   "(set BUNZAI_DEBUG=1 for a traceback; please report it)", err=True)
        raise SystemExit(4) from None


if __name__ == "__main__":  # pragma: no cover
    main()

"""What bunzai does with a file, as typed results that the CLI and the studio only present.

Each function does one job on one source (a path, or bytes with a file name) and returns a
result with ``to_dict()`` (the JSON both front ends print).  A problem with the file itself
(unreadable, unrecognized, an output in the way) is kept in the result's ``error``, so that a
command over many files reports it and goes on; a problem with the request (an unknown format
name) raises :class:`~bunzai.errors.UsageError` before any file is read.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal, TypeVar

from .errors import BunzaiError, UnrecognizedInput, UsageError

if TYPE_CHECKING:
    from .diff import Change
    from .input import AdapterInput
    from .label import LabelResult
    from .registry import AdapterHandle, DetectionReport, Registry
    from .types import Issue, WriteResult

Source = str | os.PathLike[str] | bytes | bytearray | memoryview
R = TypeVar("R", bound="Reading")


def _registry(registry: Registry | None) -> Registry:
    if registry is not None:
        return registry
    from .api import get_registry
    return get_registry()


# -- the request: format names checked before any file is read -----------------------------------


def check_source_format(name: str | None, registry: Registry | None = None) -> None:
    """A ``--from`` name is a readable format (or none was given)."""
    if name is not None:
        handle = _registry(registry).get(name)
        if not handle.info.can_read:
            raise UsageError(f"{handle.id} cannot be read")


def check_target(name: str, registry: Registry | None = None,
                 options: Mapping[str, Any] | None = None) -> None:
    """A ``--to`` name is a writable format id or alias, and ``options`` fit at least one of
    the formats it may stand for (an alias such as ``json`` is resolved per input's kind)."""
    reg = _registry(registry)
    targets = _targets(reg, name)
    if not targets:
        reg.get(name)  # raises the unknown-format error, with its hints
    writable = [h for h in targets if h.info.can_write]
    if options and writable:  # an unwritable or other-kind target is refused per file
        from .options import check
        problems: list[UsageError] = []
        for h in writable:
            try:
                check(h.info, {**h.info.alias_options.get(name.lower(), {}), **options})
                return
            except UsageError as exc:
                problems.append(exc)
        raise problems[0]


def _targets(reg: Registry, name: str) -> list[AdapterHandle]:
    if name in reg.adapters:
        return [reg.adapters[name]]
    return [h for h in reg.adapters.values() if name.lower() in h.info.aliases]


def default_format(kind: str, registry: Registry | None = None) -> str:
    """The format a command writes when given no ``--to`` for ``kind``: the one adapter that
    declares itself the default for its kind (core names none)."""
    reg = _registry(registry)
    claims = sorted(h.id for h in reg.adapters.values()
                    if h.info.default_for_kind and h.kind == kind and h.info.can_write)
    if len(claims) == 1:
        return claims[0]
    takers = ", ".join(i.id for i in reg.formats(kind) if i.can_write) or "none installed"
    if claims:
        raise UsageError(f"several formats claim to be the default {kind} format "
                         f"({', '.join(claims)}); name one with --to")
    raise UsageError(f"no installed format is the default for a {kind}; name one with --to "
                     f"({takers})")


# -- one file, read ------------------------------------------------------------------------------


@dataclass(eq=False, repr=False)
class Outcome:
    """A per-file result: the file, and the error that stopped the work on it (if any).

    Results are compared by identity and generate nothing but ``__init__`` (a command imports
    this module on every run: each generated method is start-up time)."""

    path: str | None
    error: BunzaiError | None = None

    @property
    def ok(self) -> bool:
        return self.error is None

    @property
    def exit_code(self) -> int:
        """What ``bunzai`` exits with for this file alone (0 ok, see the README's table)."""
        return self.error.exit_code if self.error is not None else 0

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self.path!r}{' error' if self.error else ''}>"

    def _error(self) -> dict[str, Any]:
        if self.error is None:
            return {}
        return {"error": self.error.message, "exit_code": self.error.exit_code}


@dataclass(eq=False, repr=False)
class Reading(Outcome):
    """A file as bunzai read it: its container, detection, the adapter and the entities."""

    container: str | None = None
    report: DetectionReport | None = None
    """Detection, when it ran (always for ``inspect``; otherwise only without ``--from``)."""
    forced: str | None = None
    """The format the caller chose (``--from``), skipping detection's verdict."""
    handle: AdapterHandle | None = None
    entities: list[Any] = field(default_factory=list)
    warnings: list[Issue] = field(default_factory=list)
    input: AdapterInput | None = field(default=None, repr=False)

    @classmethod
    def of(cls: type[R], reading: Reading, **facts: Any) -> R:
        """``reading`` as a result of this kind, with the facts only that kind has.

        The kinds add their facts as class attributes with defaults, not as dataclass fields:
        only :class:`Reading` generates an ``__init__``, which every command pays for at start.
        """
        found = cls.__new__(cls)
        found.__dict__.update(reading.__dict__)
        found.__dict__.update(facts)
        return found

    @property
    def format(self) -> str | None:
        if self.handle is not None:
            return self.handle.id
        w = self.report.winner if self.report is not None else None
        return w.format if w is not None else None

    @property
    def kind(self) -> str | None:
        if self.entities:
            return str(self.entities[0].kind)
        w = self.report.winner if self.report is not None else None
        return w.kind if w is not None else None

    @property
    def confidence(self) -> float | None:
        """Detection's score for the format the file was read as (with ``--from``, that
        format's own score, 0 when it did not claim the file); None without detection."""
        if self.report is None:
            return None
        if self.forced is None:
            w = self.report.winner
            return w.score if w is not None else None
        own = self.handle.id if self.handle is not None else self.forced
        return next((c.score for c in self.report.candidates if c.format == own), 0.0)

    @property
    def detected(self) -> str | None:
        """Detection's winner, whatever ``--from`` said."""
        w = self.report.winner if self.report is not None else None
        return w.format if w is not None else None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"path": self.path}
        if self.report is not None:
            out.update(self.report.to_dict())
            if self.report.slow:
                out["detect_budget"] = self.report.budget
        elif self.container is not None:
            out["container"] = self.container
        if self.handle is not None:
            out["format"] = self.handle.id
        if self.entities:
            out["kind"] = self.kind
        if self.forced is not None:
            out["forced"] = True
            out["detected"] = self.detected
            if self.report is not None:
                out["confidence"] = self.confidence
        out.update(self._error())
        return out


def read_file(source: Source, *, filename: str | None = None, from_format: str | None = None,
              detect: bool = False, registry: Registry | None = None) -> Reading:
    """Read one file: detection (always with ``detect``, else only without ``from_format``),
    then the chosen adapter's reader."""
    reg = _registry(registry)
    path = _name_of(source, filename)
    reading = Reading(path, forced=from_format)
    try:
        inp = _input(source, path)
        reading.input = inp
        reading.container = inp.container
        if detect or from_format is None:
            reading.report = reg.detect(inp)
        if from_format is None:
            assert reading.report is not None
            try:
                chosen = reading.report.raise_for_status(path).format
            except UnrecognizedInput as exc:
                raise reg.with_hint(exc, inp) from None
        else:
            chosen = from_format
        handle, result, _ = reg.read(inp, format=chosen)
        reading.handle = handle
        reading.entities = list(result.entities)
        reading.warnings = list(result.warnings)
    except BunzaiError as exc:
        reading.error = exc.with_path(path)
    return reading


def _name_of(source: Source, filename: str | None) -> str | None:
    if isinstance(source, str | os.PathLike):
        return os.fspath(source)
    return filename


def _input(source: Source, path: str | None) -> AdapterInput:
    from .input import AdapterInput
    if isinstance(source, str | os.PathLike):
        inp = AdapterInput.from_path(source)
        inp.filename = path
        return inp
    return AdapterInput(bytes(source), path)


# -- inspect / validate / label --------------------------------------------------------------------


class Inspection(Reading):
    """``bunzai inspect``: detection, a summary of each entity and the reader's warnings; with
    ``checks``, validation issues and the origin label too (what the studio shows)."""

    issues: list[Issue] | None = None
    labels: LabelResult | None = None
    active: str | None = None
    """What the file will run, counted on one line (``bunzai audit`` lists it)."""
    findings: list[Any] | None = None
    """Every active element (:class:`bunzai.engine.audit.Finding`), for the studio."""

    @property
    def summaries(self) -> list[dict[str, Any]]:
        from .summary import summarize
        return [summarize(e) for e in self.entities]

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        if self.entities:
            out["entities"] = self.summaries
            out["warnings"] = [w.to_dict() for w in self.warnings]
        if self.issues is not None:
            out["issues"] = [i.to_dict() for i in self.issues]
            out["valid"] = not any(i.severity == "error" for i in self.issues)
        if self.labels is not None:
            out["label"] = self.labels.to_dict()
        if self.active is not None:
            out["active_content"] = self.active
        return out


def inspect_file(source: Source, *, filename: str | None = None,
                 from_format: str | None = None, checks: bool = False,
                 registry: Registry | None = None) -> Inspection:
    """What a file is: container, every candidate's score, the format and a summary."""
    reg = _registry(registry)
    check_source_format(from_format, reg)
    found = Inspection.of(read_file(source, filename=filename, from_format=from_format,
                                    detect=True, registry=reg))
    if found.ok:
        from .engine.audit import audit_entities, summary
        found.findings = audit_entities(found.entities, format=found.format, registry=reg)
        found.active = summary(found.findings) or "none"
    if checks and found.ok:
        found.issues = _issues(reg, found)
        found.labels = _labels(reg, found)
    return found


def _issues(reg: Registry, reading: Reading) -> list[Issue]:
    from .types import ReadResult
    from .validate import file_issues
    assert reading.handle is not None and reading.input is not None
    return file_issues(reg, reading.handle, reading.input,
                       ReadResult(reading.entities, reading.warnings))


def _labels(reg: Registry, reading: Reading) -> LabelResult:
    from .label import label
    assert reading.input is not None
    return label(reg, reading.input, reading.entities)


class Validation(Reading):
    """``bunzai validate``: the format's rules and the canonical model's, as issues."""

    issues: Sequence[Issue] = ()
    strict: bool = False

    @property
    def errors(self) -> list[Issue]:
        return [i for i in self.issues if i.severity == "error"]

    @property
    def issue_warnings(self) -> list[Issue]:
        return [i for i in self.issues if i.severity != "error"]

    @property
    def valid(self) -> bool:
        return self.ok and not self.errors and not (self.strict and self.issue_warnings)

    @property
    def status(self) -> Literal["valid", "warnings", "invalid", "unreadable"]:
        """For a folder's summary: valid, valid with warnings, invalid, or not read at all."""
        if not self.ok:
            return "unreadable"
        if not self.valid:
            return "invalid"
        return "warnings" if self.issue_warnings else "valid"

    @property
    def exit_code(self) -> int:
        return self.error.exit_code if self.error is not None else (0 if self.valid else 1)

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        if self.ok:
            w = self.report.winner if self.report is not None else None
            out.setdefault("confidence", w.score if w is not None else None)
            out.setdefault("candidates", [])
            out.update({"valid": self.valid, "errors": [i.to_dict() for i in self.errors],
                        "warnings": [i.to_dict() for i in self.issue_warnings],
                        "strict": self.strict})
        return out


def validate_file(source: Source, *, filename: str | None = None,
                  from_format: str | None = None, strict: bool = False,
                  registry: Registry | None = None) -> Validation:
    """Every problem a front-end would choke on, located by JSON path; ``strict`` makes
    warnings fail too."""
    reg = _registry(registry)
    check_source_format(from_format, reg)
    found = Validation.of(read_file(source, filename=filename, from_format=from_format,
                                    registry=reg), strict=strict)
    if found.ok:
        found.issues = _issues(reg, found)
    return found


class Labelling(Reading):
    """``bunzai label``: which app made the file and which saved it last, with evidence."""

    labels: LabelResult | None = None

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        if self.labels is not None:
            out.update(self.labels.to_dict())
        return out


def label_file(source: Source, *, filename: str | None = None,
               from_format: str | None = None, registry: Registry | None = None) -> Labelling:
    """The origin labeler's verdict on one file."""
    reg = _registry(registry)
    check_source_format(from_format, reg)
    found = Labelling.of(read_file(source, filename=filename, from_format=from_format,
                                   registry=reg))
    if found.ok:
        found.labels = _labels(reg, found)
    return found


# -- convert ---------------------------------------------------------------------------------------


class Conversion(Reading):
    """``bunzai convert``: what was read, what the target wrote, what it lost; and, once
    saved, where the files went."""

    to: str | None = None
    """The format name asked for (an id or an alias)."""
    written: WriteResult | None = None
    target: AdapterHandle | None = None
    outputs: Sequence[Path] = ()
    extra: Mapping[str, Any] = MappingProxyType({})
    """Facts of a lorebook operation (the merge report, whether a book was replaced)."""

    def save(self, path_or_dir: str | os.PathLike[str], *, force: bool = False) -> list[Path]:
        """Write the output (see :meth:`bunzai.types.WriteResult.save`); a refusal becomes
        this result's error."""
        if self.written is None:
            return []
        try:
            self.outputs = self.written.save(path_or_dir, force=force)
        except BunzaiError as exc:
            self.error = exc.with_path(self.path)
        return list(self.outputs)

    @property
    def all_warnings(self) -> list[dict[str, str]]:
        """The reader's warnings, then the writer's (these have no path of their own)."""
        out = [w.to_dict() for w in self.warnings]
        if self.written is not None:
            out += [{"path": "$", "message": w, "severity": "warning"}
                    for w in self.written.warnings]
        return out

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"path": self.path}
        if self.container is not None:
            out["container"] = self.container
        if self.handle is not None:
            out.update({"format": self.handle.id, "kind": self.kind})
        if self.report is not None:
            w = self.report.winner
            out.update({"confidence": w.score if w is not None else None,
                        "candidates": [c.to_dict() for c in self.report.candidates]})
        if self.forced is not None:
            out["forced"] = True
        if self.target is not None:
            out["to"] = self.target.id
        if self.outputs:
            out.update({"output": str(self.outputs[0]),
                        "outputs": [str(p) for p in self.outputs]})
        if self.written is not None:
            out.update({"loss": self.written.loss.to_list(),
                        "loss_summary": self.written.loss.summary(),
                        "warnings": self.all_warnings})
        out.update(self.extra)
        out.update(self._error())
        return out


def convert_file(source: Source, to: str, *, filename: str | None = None,
                 from_format: str | None = None, options: Mapping[str, Any] | None = None,
                 registry: Registry | None = None, verify: bool = False,
                 strip_active: bool = False) -> Conversion:
    """Read a file and write it as ``to`` (an alias resolves by the entity's kind); nothing is
    saved until :meth:`Conversion.save`.  ``verify`` reads the output back and adds to the loss
    report whatever reading finds that the format did not declare; ``strip_active`` removes
    what ``bunzai audit`` finds first (each removal in the loss report, dropped)."""
    reg = _registry(registry)
    check_source_format(from_format, reg)
    check_target(to, reg, options)
    found = Conversion.of(read_file(source, filename=filename, from_format=from_format,
                                    registry=reg), to=to)
    found.input = None  # the entities hold what they need: free the input before the write
    if found.ok:
        _write(reg, found, found.entities, to, options, verify=verify,
               strip_active=strip_active)
    return found


def _write(reg: Registry, found: Conversion, entities: Sequence[Any], to: str,
           options: Mapping[str, Any] | None, *, verify: bool = False,
           strip_active: bool = False) -> None:
    try:
        found.target = reg.resolve_target(to, entities[0].kind)
        found.written = reg.write(entities, to, options, verify=verify,
                                  strip_active=strip_active)
        found.written.source = found.path
    except BunzaiError as exc:
        found.error = exc.with_path(found.path)


# -- extract ---------------------------------------------------------------------------------------


class Extraction(Reading):
    """``bunzai extract``: the assets written, each with its sniffed type, and the manifest."""

    folder: Path | None = None
    manifest: Sequence[dict[str, Any]] = ()

    @property
    def written(self) -> list[dict[str, Any]]:
        return [m for m in self.manifest if m.get("file")]

    def to_dict(self) -> dict[str, Any]:
        out = super().to_dict()
        if self.folder is not None and self.ok:
            out.update({"output": str(self.folder), "assets": self.manifest})
        return out


def extract_assets(source: Source, folder: str | os.PathLike[str], *, force: bool = False,
                   filename: str | None = None, from_format: str | None = None,
                   registry: Registry | None = None) -> Extraction:
    """Write every embedded asset with a safe name and its real (sniffed) extension, plus
    ``manifest.json``; a remote asset is listed, never fetched."""
    reg = _registry(registry)
    check_source_format(from_format, reg)
    found = Extraction.of(read_file(source, filename=filename, from_format=from_format,
                                    registry=reg), folder=Path(folder))
    found.input = None
    if found.ok:
        try:
            found.manifest = _extract(found.entities[0], Path(folder), force)
        except BunzaiError as exc:
            found.error = exc.with_path(found.path)
    return found


def _extract(entity: Any, folder: Path, force: bool) -> list[dict[str, Any]]:
    import hashlib

    from .containers.media import sniff_media
    from .jsonio import dumps
    from .outputs import make_folder, safe_name, write_atomic

    items = list(getattr(entity, "assets", []) or [])
    if entity.kind == "persona" and entity.avatar is not None:
        items = [entity.avatar]
    make_folder(folder)
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
        stem = safe_name(a.name if a.type == "icon" else f"{a.type}-{a.name}")
        cand, n = stem, 2
        while f"{cand}.{ext}".lower() in used:
            cand, n = f"{stem}-{n}", n + 1
        fname = f"{cand}.{ext}"
        used.add(fname.lower())
        write_atomic(folder / fname, a.data, force=force)
        row.update({"file": fname, "media_type": media, "size": len(a.data),
                    "sha256": hashlib.sha256(a.data).hexdigest()})
        manifest.append(row)
    write_atomic(folder / "manifest.json", dumps(manifest, indent=2) + b"\n", force=force)
    return manifest


# -- diff ------------------------------------------------------------------------------------------


@dataclass(eq=False, repr=False)
class Difference(Outcome):
    """``bunzai diff``: two files of one kind compared field by field, whatever their formats.
    ``only`` marks a file of a folder comparison that has no counterpart on the other side."""

    other: str | None = None
    a: Reading | None = None
    b: Reading | None = None
    changes: list[Change] = field(default_factory=list)
    only: Literal["a", "b"] | None = None

    @property
    def equal(self) -> bool:
        return self.ok and self.only is None and not self.changes

    @property
    def exit_code(self) -> int:
        if self.error is not None:
            return self.error.exit_code
        return 0 if self.equal else 1

    def to_dict(self, *, unified: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {"path": self.path, "other": self.other}
        if self.a is not None and self.a.handle is not None:
            out["format"] = self.a.handle.id
            out["kind"] = self.a.kind
        if self.b is not None and self.b.handle is not None:
            out["other_format"] = self.b.handle.id
        if self.only is not None:
            out["only_in"] = self.only
        if self.ok:
            out.update({"equal": self.equal,
                        "changes": [c.to_dict(unified=unified) for c in self.changes]})
        out.update(self._error())
        return out


def diff_files(a: Source, b: Source, *, registry: Registry | None = None) -> Difference:
    """Every difference between two files of the same kind (lorebook entries matched by id or
    keys, assets by hash); format-specific data that says nothing new is not a difference."""
    from .diff import diff_all

    reg = _registry(registry)
    ra, rb = read_file(a, registry=reg), read_file(b, registry=reg)
    found = Difference(ra.path, other=rb.path, a=ra, b=rb)
    found.error = ra.error or rb.error
    if found.ok:
        if ra.kind != rb.kind:
            found.error = UsageError(f"cannot diff a {ra.kind} against a {rb.kind}",
                                     path=ra.path)
        else:
            found.changes = diff_all(ra.entities, rb.entities, reg.neutrality)
    ra.input = rb.input = None
    return found


def diff_folders(a: str | os.PathLike[str], b: str | os.PathLike[str], *,
                 registry: Registry | None = None) -> list[Difference]:
    """Two folders compared file by file: files pair up by their path without the suffix
    (``old/seraphina.png`` with ``new/seraphina.charx``), and a file without a counterpart is
    a difference of its own."""
    from .outputs import source_stem

    def index(root: Path) -> dict[str, Path]:
        found: dict[str, Path] = {}
        for p in sorted(q for q in root.rglob("*") if q.is_file() and not q.name.startswith(".")):
            key = str(p.relative_to(root).with_name(source_stem(p.name))).casefold()
            found.setdefault(key, p)
        return found

    left, right = index(Path(a)), index(Path(b))
    out: list[Difference] = []
    for key in sorted(set(left) | set(right)):
        if key not in right:
            out.append(Difference(str(left[key]), only="a"))
        elif key not in left:
            out.append(Difference(str(right[key]), only="b"))
        else:
            out.append(diff_files(left[key], right[key], registry=registry))
    return out


# -- lorebooks ---------------------------------------------------------------------------------


def extract_lorebook(card: Source, *, to: str | None = None, filename: str | None = None,
                     registry: Registry | None = None, strip_active: bool = False
                     ) -> Conversion:
    """A card's embedded lorebook, written as a standalone lorebook (``to``, or the format
    that declares itself the default lorebook)."""
    from .lorebooks import extract

    reg = _registry(registry)
    target = to or default_format("lorebook", reg)
    check_target(target, reg)
    found = Conversion.of(read_file(card, filename=filename, registry=reg), to=target)
    found.input = None
    if found.ok:
        try:
            book = extract(found.entities[0])
        except BunzaiError as exc:
            found.error = exc.with_path(found.path)
        else:
            _write(reg, found, [book], target, None, strip_active=strip_active)
    return found


def embed_lorebook(card: Source, book: Source, *, to: str | None = None,
                   registry: Registry | None = None, strip_active: bool = False
                   ) -> Conversion:
    """A copy of ``card`` carrying ``book`` as its lorebook, written as ``to`` (by default the
    card's own format)."""
    from .lorebooks import embed

    def put(ch: Any, rb: Reading) -> tuple[Any, dict[str, Any]]:
        return embed(ch, rb.entities[0]), {"book": rb.path, "book_format": rb.format,
                                           "replaced_existing_book": ch.lorebook is not None}

    found = _embed_into(card, book, "lorebook", put, to, registry, strip_active)
    _refuse_a_card_without_its_book(found)
    return found


def _embed_into(card: Source, other: Source, kind: str,
                put: Callable[[Any, Reading], tuple[Any, dict[str, Any]]], to: str | None,
                registry: Registry | None, strip_active: bool = False) -> Conversion:
    """Read ``card`` and ``other`` (which must be a ``kind``), let ``put`` make the new card
    and say what it did, and write it as ``to`` (by default the card's own format)."""
    reg = _registry(registry)
    if to is not None:
        check_target(to, reg)
    found = Conversion.of(read_file(card, registry=reg), to=to)
    found.input = None
    ro = read_file(other, registry=reg)
    found.error = found.error or ro.error
    if found.ok:
        try:
            if ro.kind != kind:
                raise UsageError(f"{ro.path} is a {ro.kind}, not a {kind}", path=ro.path)
            new, found.extra = put(found.entities[0], ro)
        except BunzaiError as exc:
            found.error = exc.with_path(found.path)
        else:
            assert found.handle is not None
            found.to = to or found.handle.id
            _write(reg, found, [new], found.to, None, strip_active=strip_active)
    return found


def _refuse_a_card_without_its_book(found: Conversion) -> None:
    """A card format with no place for a lorebook must not look like a successful embed."""
    from .lorebooks import check_embedded

    if found.written is None or found.target is None:
        return
    try:
        check_embedded(found.written, found.target.id)
    except BunzaiError as exc:
        found.error = exc.with_path(found.path)
        found.written = None  # nothing to save


def merge_lorebooks(sources: Sequence[Source], *, to: str | None = None,
                    name: str | None = None, registry: Registry | None = None,
                    strip_active: bool = False) -> Conversion:
    """Lorebooks (or cards' books) merged in order: identical entries collapse, conflicting
    ones are all kept and reported (``extra``: entries, duplicates, conflicts)."""
    from .lorebooks import extract, merge

    reg = _registry(registry)
    if len(sources) < 2:
        raise UsageError("merge needs at least two lorebooks")
    target = to or default_format("lorebook", reg)
    check_target(target, reg)
    readings = [read_file(s, registry=reg) for s in sources]
    found = Conversion.of(Reading(readings[0].path), to=target,
                          extra={"inputs": [r.path for r in readings]})
    failed = next((r for r in readings if not r.ok), None)
    if failed is not None:
        found.error = failed.error
        return found
    try:
        books = [r.entities[0] if r.kind == "lorebook" else extract(r.entities[0])
                 for r in readings]
    except BunzaiError as exc:
        found.error = exc
        return found
    merged, report = merge(books, name)
    found.extra = {**found.extra, "entries": len(merged.entries), **report.to_dict()}
    _write(reg, found, [merged], target, None, strip_active=strip_active)
    return found


# -- chats inside cards --------------------------------------------------------------------------


def extract_chats(card: Source, *, to: str | None = None, filename: str | None = None,
                  registry: Registry | None = None, strip_active: bool = False
                  ) -> Conversion:
    """The chats a card carries (a Backyard archive's scenario logs), written as ``to`` (by
    default the installed default chat format), one file per chat (``extra``: chats)."""
    from .chats import extract

    reg = _registry(registry)
    target = to or default_format("chat", reg)
    check_target(target, reg)
    found = Conversion.of(read_file(card, filename=filename, registry=reg), to=target)
    found.input = None
    if found.ok:
        try:
            chats = extract(reg, found.entities[0])
        except BunzaiError as exc:
            found.error = exc.with_path(found.path)
        else:
            found.extra = {"chats": len(chats)}
            _write(reg, found, chats, target, None, strip_active=strip_active)
    return found


def embed_chat(card: Source, chat: Source, *, to: str | None = None,
               registry: Registry | None = None, strip_active: bool = False) -> Conversion:
    """A copy of ``card`` carrying ``chat`` as one more of its chats, written as ``to`` (by
    default the card's own format); ``extra["chat_loss"]`` is what the card cannot hold of
    the chat."""
    from .chats import embed

    reg = _registry(registry)

    def put(ch: Any, rc: Reading) -> tuple[Any, dict[str, Any]]:
        new, lost = embed(reg, ch, rc.entities[0])
        return new, {"chat": rc.path, "chat_format": rc.format, "chat_loss": lost.to_list()}

    return _embed_into(card, chat, "chat", put, to, reg, strip_active)


# -- many files converted --------------------------------------------------------------------------


BatchStatus = Literal["converted", "skipped", "failed"]


@dataclass(eq=False, repr=False)
class BatchFile:
    """One file of a batch conversion, as the worker that converted it reports it.

    It carries the conversion's JSON and never its entities or bytes, so that it stays small on
    its way back from a worker process and a batch of any size holds one at a time."""

    path: str
    status: BatchStatus = "failed"
    facts: dict[str, Any] = field(default_factory=dict)
    """The conversion's own JSON (:meth:`Conversion.to_dict`, without path and error): the
    format read, the target, the loss report and the warnings."""
    outputs: list[str] | None = None
    """The files written, in order; None when the work stopped before writing."""
    reason: str | None = None
    """Why the file was skipped (an output in the way)."""
    error: str | None = None
    """Why the file failed (the problem, without the path)."""
    exit_code: int = 0
    """What ``bunzai`` exits with for this file alone."""

    def __repr__(self) -> str:
        return f"<BatchFile {self.path!r} {self.status}>"

    @property
    def ok(self) -> bool:
        return self.status == "converted"

    @property
    def format(self) -> str | None:
        """The format the file was read as."""
        return self.facts.get("format")

    @property
    def to(self) -> str | None:
        """The format written (an alias resolved for this file's kind)."""
        return self.facts.get("to")

    @property
    def loss(self) -> list[dict[str, Any]]:
        """Every loss report entry (action, path, reason), in report order."""
        return list(self.facts.get("loss", []))

    @property
    def loss_summary(self) -> str:
        return str(self.facts.get("loss_summary", "nothing lost"))

    def to_dict(self) -> dict[str, Any]:
        """The file's JSON line: path, output, status, the conversion's JSON, then what was
        written and why the file was skipped or failed."""
        first = self.outputs[0] if self.ok and self.outputs else None
        out: dict[str, Any] = {"path": self.path, "output": first, "status": self.status}
        out.update(self.facts)
        if self.outputs is not None:
            out["outputs"] = list(self.outputs)
        if self.error is not None:
            out.update({"error": self.error, "exit_code": self.exit_code})
        if self.reason is not None:
            out.update({"exit_code": self.exit_code, "reason": self.reason})
        return out


class BatchConversion:
    """``bunzai convert`` over many files: each source's planned output, converted when
    :meth:`run` is iterated (one :class:`BatchFile` per source, in order), and the totals so
    far.  Only the totals are kept, so memory stays flat however large the batch."""

    def __init__(self, jobs: Sequence[Any], workers: int, suffixes: Iterable[str],
                 registry: Registry) -> None:
        self.jobs = list(jobs)
        """The planned work (:class:`bunzai.batch.Job`): source, output stem, options."""
        self.workers = workers
        self.converted = self.skipped = self.failed = 0
        self.exit_code = 0
        """The worst file's exit code so far."""
        self._suffixes = frozenset(suffixes)
        self._registry = registry
        self._started = False

    @property
    def size(self) -> int:
        """How many files the batch converts."""
        return len(self.jobs)

    @property
    def done(self) -> int:
        return self.converted + self.skipped + self.failed

    def run(self) -> Iterator[BatchFile]:
        """Convert every file (``workers`` processes), yielding each one's result in order and
        counting it; a batch runs once."""
        from .batch import run

        if self._started:
            raise RuntimeError("a batch runs once; plan another to convert again")
        self._started = True
        for found in run(self.jobs, self.workers, self._suffixes, registry=self._registry):
            if found.status == "converted":
                self.converted += 1
            elif found.status == "skipped":
                self.skipped += 1
            else:
                self.failed += 1
            self.exit_code = max(self.exit_code, found.exit_code)
            yield found

    def to_dict(self) -> dict[str, Any]:
        """The totals: files, converted, skipped, failed and the worst exit code."""
        return {"files": self.size, "converted": self.converted, "skipped": self.skipped,
                "failed": self.failed, "exit_code": self.exit_code}


def makes_batch(sources: Sequence[str | os.PathLike[str]],
                out_dir: str | os.PathLike[str] | None = None) -> bool:
    """Whether a conversion request is a batch: several sources, a folder, a glob, or an
    output folder."""
    return len(sources) > 1 or out_dir is not None or any(
        Path(s).is_dir() or any(ch in os.fspath(s) for ch in "*?[") for s in sources)


def convert_batch(sources: Sequence[str | os.PathLike[str]], to: str, *,
                  out_dir: str | os.PathLike[str] | None,
                  out: str | os.PathLike[str] | None = None, jobs: int = 1,
                  from_format: str | None = None, options: Mapping[str, Any] | None = None,
                  force: bool = False, verify: bool = False,
                  registry: Registry | None = None, strip_active: bool = False
                  ) -> BatchConversion:
    """Plan the conversion of many files (files, folders, globs) into ``out_dir``: every
    output's name is chosen now, unique within the batch and never a source's (see
    :mod:`bunzai.batch`); nothing is converted until :meth:`BatchConversion.run`.

    A request that cannot be a batch raises :class:`~bunzai.errors.UsageError` (an ``out``
    file, no ``out_dir``, ``jobs`` below 1, a folder without files), an output folder that
    cannot be made :class:`~bunzai.errors.OutputError`."""
    from .batch import Job, plan
    from .outputs import make_folder

    reg = _registry(registry)
    check_source_format(from_format, reg)
    check_target(to, reg, options)
    paths = [Path(s) for s in sources]
    folder = next((p for p in paths if p.is_dir()), None)
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
    found = expand(paths)
    if not found:
        raise UsageError("is a folder with no files to read", path=str(paths[0]))
    target_dir = Path(out_dir)
    make_folder(target_dir)
    stems = plan(found, target_dir, "")
    opts = tuple((options or {}).items())
    work = [Job(str(s), str(o), to, from_format, force, opts, "", verify, strip_active)
            for s, o in zip(found, stems, strict=True)]
    return BatchConversion(work, jobs, (i.suffix for i in reg.formats()), reg)


# -- many files ------------------------------------------------------------------------------------


def expand(items: Iterable[str | os.PathLike[str]]) -> list[Path]:
    """Files named directly, every file under a folder (recursively, hidden ones left out) and
    glob matches, each once: what every command that takes several files reads."""
    from .sources import expand_sources
    return expand_sources(os.fspath(i) for i in items)


def worst(codes: Iterable[int]) -> int:
    """The exit status of a command over many files: the worst of theirs."""
    return max(codes, default=0)


__all__ = [
    "BatchConversion",
    "BatchFile",
    "Conversion",
    "Difference",
    "Extraction",
    "Inspection",
    "Labelling",
    "Outcome",
    "Reading",
    "Validation",
    "check_source_format",
    "check_target",
    "convert_batch",
    "convert_file",
    "default_format",
    "diff_files",
    "diff_folders",
    "embed_lorebook",
    "expand",
    "extract_assets",
    "extract_lorebook",
    "inspect_file",
    "label_file",
    "makes_batch",
    "merge_lorebooks",
    "read_file",
    "validate_file",
    "worst",
]

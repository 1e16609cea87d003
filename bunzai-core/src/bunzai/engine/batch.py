"""Batch conversion: many files, one or more worker processes, continuing past bad files.

Output names are decided up front in the parent (from the source names, made safe and unique
within the batch), so workers never race for a name and two sources never collide silently.
A source that fans out into several files (a persona backup written one file per persona) names
them ``STEM-<name>`` after its planned stem, as a single conversion does; the parent hands every
worker the batch's planned stems and sources once, and a worker only takes a name that it owns
(see :class:`Reserved`), so no two outputs of a batch and no output and source ever share a name,
and ``--force`` can replace only a file that existed before the batch.  A file already in the
folder that holds another format's output (a second ``--to`` into the same ``--out-dir``) is left
alone and the job's files are named after their target instead, as for a single file (the one
rule is :func:`bunzai.io.outputs.place`).  With ``--skip-existing`` a source whose every name
holds an earlier output of the same target is done and written no more, so a rerun of an
interrupted batch writes only what is missing.
Each worker starts with its parent's plugin registry and writes its outputs atomically; the parent
only receives small results (:class:`BatchFile`), so memory stays flat
however large the batch.  What a batch is (its rules, its plan, its totals) is
:func:`convert_batch`; the rest of this module is the machinery that runs it.

Outputs are written without a per-file ``fsync`` (one per file serializes parallel workers on the
file system journal); the batch flushes the file system once when it ends.  A crash
of bunzai still never leaves a partial output; a power loss before that flush may.
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from ..errors import BunzaiError, NoTargetForKind, UsageError
from ..host.registry import get_registry
from ..io.sources import RealPaths, expand_sources
from .reading import check_source_format, check_target

if TYPE_CHECKING:
    from ..host.registry import Registry
    from ..host.types import WriteResult


@dataclass(frozen=True, slots=True)
class Job:
    src: str
    out: str
    """The planned output, ``FOLDER/STEM`` followed by :attr:`suffix`.  What is written is
    ``STEM`` followed by the suffix of the file the writer produced, which only the write
    knows (``--to json`` gives ``.json`` for a card and for a lorebook, a card read from JSON
    stays JSON)."""
    to: str
    from_format: str | None
    force: bool
    options: tuple[tuple[str, Any], ...] = ()
    suffix: str | None = None
    """What :attr:`out` ends with after the stem (``""``: nothing, the stem is the whole name);
    ``None``: its last extension."""
    verify: bool = False
    """Read each output back and complete its loss report with what reading finds."""
    strip_active: bool = False
    """Remove what ``bunzai audit`` finds before writing (``--strip-active``)."""
    skip_existing: bool = False
    """A source whose every output is already there (an earlier output of the same target, as
    the naming rule decides) is done, not refused (``--skip-existing``)."""

    @property
    def stem(self) -> str:
        """The planned name without its suffix: the stem of every file this job writes."""
        name = Path(self.out).name
        if self.suffix is None:
            return Path(name).stem
        return name[: -len(self.suffix)] if self.suffix and name.endswith(self.suffix) else name


@dataclass(frozen=True, slots=True)
class Reserved:
    """What a worker must know of the rest of its batch to name its files (built once per
    batch, handed to each worker process once, not per job).

    A job with planned stem ``S`` writes ``S + suffix``, and a fanned-out file as
    ``S-<rest>``.  A job owns a name when it is no source and no other job could write it:
    it is not another planned stem ``T`` plus a suffix (T's own output: one dot, or one of the
    batch's compound suffixes such as ``.vaud.json``), and no longer planned stem starts it as
    ``T-`` (T's fanned-out files and fallbacks), all case-insensitively.  Two jobs can never own
    the same name, so workers need no coordination, and whatever one job writes, no other job of
    the batch writes to, not even with ``--force``.
    """

    stems: frozenset[str]
    sources: frozenset[str]
    compound: frozenset[str] = frozenset()
    """Writer suffixes with more than one dot (casefolded)."""

    @classmethod
    def of(cls, jobs: Iterable[Job], suffixes: Iterable[str] = ()) -> Reserved:
        stems: set[str] = set()
        sources: set[str] = set()
        key = RealPaths().key
        for job in jobs:
            stems.add(job.stem.casefold())
            sources.add(key(Path(job.src)))
        compound = {s.casefold() for s in suffixes if s.count(".") > 1}
        return cls(frozenset(stems), frozenset(sources), frozenset(compound))

    def owns(self, stem: str, name: str, folder: Path) -> bool:
        """Whether the job with planned stem ``stem`` may write ``name``."""
        own = stem.casefold()
        key = name.casefold()
        if RealPaths().key(folder / name) in self.sources:
            return False
        dot = key.rfind(".")
        if dot > 0 and key[:dot] != own and key[:dot] in self.stems:
            return False  # the output of the job with that stem (a one-dot suffix)
        if any(key.endswith(s) and key[: -len(s)] != own and key[: -len(s)] in self.stems
               for s in self.compound):
            return False  # the same, with a compound suffix
        dash = key.find("-", len(own) + 1)
        while dash != -1:
            if key[:dash] in self.stems:
                return False  # the job of that longer stem may fan out into this name
            dash = key.find("-", dash + 1)
        return True


def plan(sources: list[Path], out_dir: Path, suffix: str) -> list[Path]:
    """A unique, safe output path per source (unique case-insensitively, as on Windows and
    macOS), never the path of any source in the batch: with ``--force`` an output written over
    a source that has not been read yet would destroy it.  Two sources of one stem (``a.png``,
    ``a.json``) get ``a`` and ``a-2``."""
    from ..io.outputs import safe_name, source_stem

    used: set[str] = set()
    key = RealPaths().key
    taken = {key(src) for src in sources}
    paths = []
    for src in sources:
        stem = safe_name(source_stem(src.name))
        cand, n = stem, 2
        while (f"{cand}{suffix}".casefold() in used
               or key(out_dir / f"{cand}{suffix}") in taken):
            cand, n = f"{stem}-{n}", n + 1
        used.add(f"{cand}{suffix}".casefold())
        paths.append(out_dir / f"{cand}{suffix}")
    return paths


def _place(job: Job, written: WriteResult, reserved: Reserved, target: str) -> list[Path]:
    """Where the files of one job go: the naming rule of a single conversion
    (:func:`bunzai.io.outputs.place`) after the job's planned stem, where the names the job
    does not own (a source of the batch, what another job may write) are taken."""
    from ..io.outputs import place

    folder, stem = Path(job.out).parent, job.stem
    return place(folder, stem, written.files, target, earlier=written.earlier,
                 free=lambda name: reserved.owns(stem, name, folder))


_worker_registry: Any = None
_worker_reserved: Reserved | None = None


def _init_worker(reserved: Reserved | None = None) -> None:
    """A worker process's start: the registry its parent forked with (loaded anew where
    processes are spawned), and the batch's reserved names."""
    global _worker_registry, _worker_reserved
    if _worker_registry is None:
        _worker_registry = _load_registry()
    _worker_reserved = reserved


def _load_registry() -> Registry:
    return get_registry()


def _pooled_job(job: Job) -> BatchFile:
    assert _worker_reserved is not None  # set by the pool's initializer
    return convert_job(job, _worker_reserved, _worker_registry)


def convert_job(job: Job, reserved: Reserved, registry: Registry | None = None) -> BatchFile:
    """Convert one file; never raises for a bad input (the error becomes the result).

    Every target is checked before the first is written, so a source whose output exists
    (without ``--force``) is skipped whole, not half written; that is a refused conversion,
    exit code 5, as for a single file.  With ``skip_existing`` a source whose outputs all exist
    is done (exit code 0) and nothing is written; only some of them: refused, as without."""
    from ..io.outputs import write_atomic
    from .converting import transform_file

    found = BatchFile(job.src)
    reg = registry if registry is not None else _load_registry()
    try:
        conv = transform_file(job.src, job.to, None, from_format=job.from_format,
                              options=dict(job.options), registry=reg, verify=job.verify,
                              strip_active=job.strip_active)
        facts = conv.to_dict()
        for key in ("path", "error", "exit_code"):
            facts.pop(key, None)
        found.facts = facts
        if isinstance(conv.error, NoTargetForKind):  # --to json on a folder of every kind
            found.status, found.exit_code = "skipped", conv.error.exit_code
            found.reason = conv.error.message
            return found
        if conv.error is not None:
            found.error, found.exit_code = conv.error.message, conv.error.exit_code
            return found
        written, handle = conv.written, conv.target
        assert written is not None and handle is not None  # no error: it has written
        targets = _place(job, written, reserved, handle.id)
        if job.skip_existing and all(t.is_file() for t in targets):
            found.status, found.outputs = "done", [str(t) for t in targets]
            return found  # the naming rule kept these names: each is the same target's
        if not job.force:
            for target in targets:
                if target.exists():
                    found.status, found.exit_code = "skipped", 5
                    found.reason = (
                        f"{target} exists, and not every other output of this file does "
                        "(use --force to redo it)" if job.skip_existing else
                        f"{target} exists (use --force to replace it, --skip-existing to "
                        "keep it, or another --out-dir)")
                    return found
        found.outputs = []  # a failed write still says what was written before it
        for target, f in zip(targets, written.files, strict=True):
            write_atomic(target, f.parts, force=job.force, durable=False)
            found.outputs.append(str(target))
        found.status = "converted"
    except BunzaiError as exc:
        found.error, found.exit_code = exc.message, exc.exit_code
    except Exception as exc:  # one bad file never stops a batch
        found.error, found.exit_code = f"internal error: {type(exc).__name__}: {exc}", 4
    return found


def run(jobs: list[Job], workers: int, suffixes: Iterable[str] = (),
        registry: Registry | None = None) -> Iterator[BatchFile]:
    """Yield one result per job, in order, using ``workers`` processes (1: in-process) that
    read with ``registry`` (by default the process-wide one).  ``suffixes``: every suffix the
    installed writers use (see :class:`Reserved`)."""
    global _worker_registry

    reg = registry if registry is not None else _load_registry()
    reserved = Reserved.of(jobs, suffixes)
    if workers <= 1 or len(jobs) <= 1:
        for job in jobs:
            yield convert_job(job, reserved, reg)
        _flush_to_disk()
        return
    from concurrent.futures import ProcessPoolExecutor  # the pool's machinery, only for -j 2+

    ctx = None
    if os.name == "posix":
        import multiprocessing
        ctx = multiprocessing.get_context("fork")
    _worker_registry = reg  # what forked workers start with
    try:
        with ProcessPoolExecutor(max_workers=workers, initializer=_init_worker,
                                 initargs=(reserved,), mp_context=ctx) as pool:
            chunk = max(1, min(32, len(jobs) // (workers * 8)))
            yield from pool.map(_pooled_job, jobs, chunksize=chunk)
    finally:
        _worker_registry = None
    _flush_to_disk()


def _flush_to_disk() -> None:
    """One flush for the whole batch instead of an fsync per output (no-op where unsupported)."""
    sync = getattr(os, "sync", None)
    if sync is not None:
        sync()


# -- the batch as the engine offers it --------------------------------------------------------



BatchStatus = Literal["converted", "done", "skipped", "failed"]
"""``done``: every output was there already (``--skip-existing``), nothing written."""


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
    """The files written, in order (``done``: the files already there); None when the work
    stopped before writing."""
    reason: str | None = None
    """Why the file was skipped (an output in the way, a target with no format of its kind)."""
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
        first = (self.outputs[0] if self.status in ("converted", "done") and self.outputs
                 else None)
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
        """The planned work (:class:`bunzai.engine.batch.Job`): source, output stem, options."""
        self.workers = workers
        self.converted = self.skipped = self.failed = 0
        self.already_done = 0
        """Files whose outputs were all there already (``skip_existing``)."""
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
        return self.converted + self.already_done + self.skipped + self.failed

    def run(self) -> Iterator[BatchFile]:
        """Convert every file (``workers`` processes), yielding each one's result in order and
        counting it; a batch runs once."""
        if self._started:
            raise RuntimeError("a batch runs once; plan another to convert again")
        self._started = True
        for found in run(self.jobs, self.workers, self._suffixes, registry=self._registry):
            if found.status == "converted":
                self.converted += 1
            elif found.status == "done":
                self.already_done += 1
            elif found.status == "skipped":
                self.skipped += 1
            else:
                self.failed += 1
            self.exit_code = max(self.exit_code, found.exit_code)
            yield found

    def to_dict(self) -> dict[str, Any]:
        """The totals: files, converted, already done, skipped, failed and the worst exit
        code."""
        return {"files": self.size, "converted": self.converted,
                "already_done": self.already_done, "skipped": self.skipped,
                "failed": self.failed, "exit_code": self.exit_code}


FORCE_AND_SKIP = ("--force and --skip-existing: give one (--force replaces what is there, "
                  "--skip-existing keeps it)")


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
                  registry: Registry | None = None, strip_active: bool = False,
                  skip_existing: bool = False) -> BatchConversion:
    """Plan the conversion of many files (files, folders, globs) into ``out_dir``: every
    output's name is chosen now, unique within the batch and never a source's (see
    :mod:`bunzai.engine.batch`); nothing is converted until :meth:`BatchConversion.run`.
    ``skip_existing`` continues an interrupted batch: a source whose outputs are all there
    already (earlier outputs of ``to``, not another format's files of those names) is
    ``done``, and nothing is written for it.

    A request that cannot be a batch raises :class:`~bunzai.errors.UsageError` (an ``out``
    file, no ``out_dir``, ``jobs`` below 1, a folder without files, both ``force`` and
    ``skip_existing``), an output folder that cannot be made :class:`~bunzai.errors.OutputError`."""
    from ..io.outputs import make_folder

    reg = registry or get_registry()
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
    if force and skip_existing:
        raise UsageError(FORCE_AND_SKIP)
    found = expand_sources(os.fspath(p) for p in paths)
    if not found:
        raise UsageError("is a folder with no files to read", path=str(paths[0]))
    target_dir = Path(out_dir)
    make_folder(target_dir)
    stems = plan(found, target_dir, "")
    opts = tuple((options or {}).items())
    work = [Job(str(s), str(o), to, from_format, force, opts, "", verify, strip_active,
                skip_existing)
            for s, o in zip(found, stems, strict=True)]
    return BatchConversion(work, jobs, (i.suffix for i in reg.formats()), reg)

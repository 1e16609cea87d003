"""Batch conversion: many files, one or more worker processes, continuing past bad files.

Output names are decided up front in the parent (from the source names, made safe and unique
within the batch), so workers never race for a name and two sources never collide silently.
Each worker loads the plugin registry once and writes its outputs atomically; the parent only
receives small result records, so memory stays flat however large the batch.

Outputs are written without a per-file ``fsync`` (an fsync per file made ``-j 1`` twice as slow
and kept ``-j 2`` from scaling); the batch flushes the file system once when it ends.  A crash
of bunzai still never leaves a partial output; a power loss before that flush may.
"""

from __future__ import annotations

import glob
import os
from collections.abc import Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .errors import BunzaiError, UsageError


@dataclass(frozen=True, slots=True)
class Job:
    src: str
    out: str
    to: str
    from_format: str | None
    force: bool
    options: tuple[tuple[str, Any], ...] = ()


def expand_sources(items: Iterable[str]) -> list[Path]:
    """Files named directly, every file under a directory (recursively), and glob matches."""
    out: list[Path] = []
    seen: set[str] = set()
    for item in items:
        p = Path(item)
        if p.is_dir():
            found = sorted(q for q in p.rglob("*") if q.is_file() and not q.name.startswith("."))
        elif any(ch in item for ch in "*?["):
            found = sorted(Path(m) for m in glob.glob(item, recursive=True) if Path(m).is_file())
            if not found:
                raise UsageError(f"no file matches {item!r}")
        else:
            found = [p]
        for q in found:
            key = str(q.resolve())
            if key not in seen:
                seen.add(key)
                out.append(q)
    return out


def plan(sources: list[Path], out_dir: Path, suffix: str) -> list[Path]:
    """A unique, safe output path per source (unique case-insensitively, as on Windows and
    macOS), never the path of any source in the batch: with ``--force`` an output written over
    a source that has not been read yet would destroy it."""
    from .outputs import safe_name

    used: set[str] = set()
    taken = {_key(src) for src in sources}
    paths = []
    for src in sources:
        stem = safe_name(src.name[: -len(".vaud.json")] if src.name.endswith(".vaud.json")
                         else src.stem)
        cand, n = stem, 2
        while (f"{cand}{suffix}".casefold() in used
               or _key(out_dir / f"{cand}{suffix}") in taken):
            cand, n = f"{stem}-{n}", n + 1
        used.add(f"{cand}{suffix}".casefold())
        paths.append(out_dir / f"{cand}{suffix}")
    return paths


def _key(path: Path) -> str:
    """A path as a case-insensitive file system may see it (so ``A.png`` is ``a.png``)."""
    return str(path.resolve()).casefold()


_worker_registry: Any = None


def _init_worker() -> None:
    global _worker_registry
    from .api import get_registry
    _worker_registry = get_registry()


def convert_job(job: Job) -> dict[str, Any]:
    """Convert one file; never raises for a bad input (the error becomes the record)."""
    from .input import AdapterInput
    from .outputs import write_atomic

    reg = _worker_registry
    if reg is None:
        _init_worker()
        reg = _worker_registry
    record: dict[str, Any] = {"path": job.src, "output": None, "status": "failed"}
    try:
        inp = AdapterInput.from_path(job.src)
        inp.filename = job.src
        handle, result, _ = reg.read(inp, format=job.from_format)
        del inp  # free the input before the write
        record.update({"format": handle.id, "kind": result.entities[0].kind})
        written = reg.write(result.entities, job.to, dict(job.options))
        out = Path(job.out)
        outputs = []
        for i, f in enumerate(written.files):
            target = out if i == 0 else out.with_name(f"{out.stem}-{i + 1}{f.suffix}")
            if target.exists() and not job.force:
                record.update({"status": "skipped", "reason": f"{target} exists (use --force)"})
                return record
            write_atomic(target, f.data, force=job.force, durable=False)
            outputs.append(str(target))
        record.update({"status": "converted", "output": outputs[0], "outputs": outputs,
                       "loss": written.loss.to_list()})
    except BunzaiError as exc:
        record.update({"error": exc.message, "exit_code": exc.exit_code})
    except Exception as exc:  # one bad file never stops a batch
        record.update({"error": f"internal error: {type(exc).__name__}: {exc}",
                       "exit_code": 4})
    return record


def run(jobs: list[Job], workers: int) -> Iterator[dict[str, Any]]:
    """Yield one record per job, in order, using ``workers`` processes (1: in-process)."""
    if workers <= 1 or len(jobs) <= 1:
        for job in jobs:
            yield convert_job(job)
        _flush_to_disk()
        return
    ctx = None
    if os.name == "posix":
        import multiprocessing
        ctx = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(max_workers=workers, initializer=_init_worker,
                             mp_context=ctx) as pool:
        chunk = max(1, min(32, len(jobs) // (workers * 8)))
        yield from pool.map(convert_job, jobs, chunksize=chunk)
    _flush_to_disk()


def _flush_to_disk() -> None:
    """One flush for the whole batch instead of an fsync per output (no-op where unsupported)."""
    sync = getattr(os, "sync", None)
    if sync is not None:
        sync()

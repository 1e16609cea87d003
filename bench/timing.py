"""Timing and memory measurement: in-process loops, cold process starts, child peak memory.

In-process figures time a subject and its floor in alternating batches (so drift on a noisy
machine hits both) and report the median per-operation time of each.  Process figures go through
``launch.py``, a small stdlib-only process that spawns each command (``posix_spawn``, no shell),
times it and reads its peak memory from ``wait4``; it can also sample the summed memory of a
whole process tree when workers are involved.
"""

from __future__ import annotations

import gc
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol, runtime_checkable


@dataclass
class Pair:
    """Median seconds per operation of a subject and its floor, timed in the same run."""

    subject: float
    floor: float
    subject_runs: list[float] = field(default_factory=list)
    floor_runs: list[float] = field(default_factory=list)

    @property
    def ratio(self) -> float:
        return self.subject / self.floor if self.floor else float("inf")


def _calibrate(fn: Callable[[], Any], batch_seconds: float, now: Callable[[], float]) -> int:
    """How many calls make a batch of about ``batch_seconds`` (after a warm-up call)."""
    fn()
    n = 1
    while True:
        t0 = now()
        for _ in range(n):
            fn()
        dt = now() - t0
        if dt >= batch_seconds / 4 or n >= 1 << 20:
            return max(1, int(n * batch_seconds / max(dt, 1e-9)))
        n *= 2


def _batch(fn: Callable[[], Any], n: int, now: Callable[[], float]) -> float:
    t0 = now()
    for _ in range(n):
        fn()
    return (now() - t0) / n


CLOCKS: dict[str, Callable[[], float]] = {"wall": time.perf_counter, "cpu": time.process_time}


@runtime_checkable
class Remote(Protocol):
    """A subject timed by another process with its own clock (a peer library in Node).

    ``calibrate`` picks how many calls make a batch of about ``batch_seconds``; ``batch`` runs
    that many calls and returns the seconds per call, both measured on the other side.
    """

    def calibrate(self, batch_seconds: float, clock: str) -> int: ...

    def batch(self, n: int, clock: str) -> float: ...


@dataclass
class Series:
    """Median seconds per operation of one subject, and every batch's figure."""

    median: float
    runs: list[float] = field(default_factory=list)


def time_set(subjects: Mapping[str, Callable[[], Any] | Remote], *, repeats: int = 7,
             batch_seconds: float = 0.05, clock: str = "wall") -> dict[str, Series]:
    """Time several subjects in alternating batches, one batch of each per repetition.

    Local subjects are called here; a :class:`Remote` times its own batch in its own process
    while this one waits, so the two never compete for a CPU and drift hits both alike.
    The garbage collector stays on (a real read pays for it) but runs before each local batch,
    so one batch does not inherit another's garbage.
    """
    now = CLOCKS[clock]
    sizes = {k: (fn.calibrate(batch_seconds, clock) if isinstance(fn, Remote)
                 else _calibrate(fn, batch_seconds, now)) for k, fn in subjects.items()}
    runs: dict[str, list[float]] = {k: [] for k in subjects}
    for _ in range(repeats):
        for key, fn in subjects.items():
            if isinstance(fn, Remote):
                runs[key].append(fn.batch(sizes[key], clock))
            else:
                gc.collect()
                runs[key].append(_batch(fn, sizes[key], now))
    return {k: Series(statistics.median(v), v) for k, v in runs.items()}


def time_pair(subject: Callable[[], Any], floor: Callable[[], Any], *, repeats: int = 7,
              batch_seconds: float = 0.05, clock: str = "wall") -> Pair:
    """Alternate batches of ``subject`` and ``floor``; medians of the per-operation times."""
    got = time_set({"subject": subject, "floor": floor}, repeats=repeats,
                   batch_seconds=batch_seconds, clock=clock)
    s, f = got["subject"], got["floor"]
    return Pair(s.median, f.median, s.runs, f.runs)


# -- processes ---------------------------------------------------------------------------------

LAUNCHER = Path(__file__).resolve().parent / "launch.py"


@dataclass
class ProcRun:
    seconds: float
    status: int
    """Exit code (negative: killed by that signal)."""
    maxrss: int
    """Peak resident set of the child (or of its largest waited-for descendant), bytes."""
    tree_peak: int = 0
    """Peak of the summed RSS of the child and all its descendants (sampled), bytes."""
    cpu: float = 0.0
    """User + system CPU seconds of the child and its waited-for descendants."""


def spawn_many(specs: Sequence[dict[str, Any]]) -> list[ProcRun]:
    """Run each ``{"argv", "stdout", "tree"}`` in order from the small launcher process."""
    with tempfile.NamedTemporaryFile("w", suffix=".json", delete=False) as fh:
        json.dump(list(specs), fh)
    try:
        out = subprocess.run([sys.executable, "-I", "-S", str(LAUNCHER), fh.name],
                             check=True, capture_output=True, text=True).stdout
    finally:
        os.unlink(fh.name)
    return [ProcRun(**r) for r in json.loads(out)]


def spawn(argv: Sequence[str], *, stdout: str | None = None, tree: bool = False,
          env: dict[str, str] | None = None) -> ProcRun:
    """Run one command to completion: wall time, exit status and peak memory."""
    return spawn_many([{"argv": list(argv), "stdout": stdout, "tree": tree, "env": env}])[0]


def run_seconds(run: ProcRun, clock: str = "wall") -> float:
    """Wall time of one run, or with ``clock="cpu"`` its CPU time."""
    return run.cpu if clock == "cpu" else run.seconds


def median_seconds(runs: Sequence[ProcRun], clock: str = "wall") -> float:
    """Median wall time, or with ``clock="cpu"`` median CPU time (steadier on a busy machine)."""
    return statistics.median(run_seconds(r, clock) for r in runs)

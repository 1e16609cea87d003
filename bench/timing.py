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
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


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


def time_pair(subject: Callable[[], Any], floor: Callable[[], Any], *, repeats: int = 7,
              batch_seconds: float = 0.05, clock: str = "wall") -> Pair:
    """Alternate batches of ``subject`` and ``floor``; medians of the per-operation times.

    The garbage collector stays on (a real read pays for it) but runs before each batch, so one
    batch does not inherit another's garbage.
    """
    now = CLOCKS[clock]
    ns, nf = _calibrate(subject, batch_seconds, now), _calibrate(floor, batch_seconds, now)
    s_runs: list[float] = []
    f_runs: list[float] = []
    for _ in range(repeats):
        gc.collect()
        s_runs.append(_batch(subject, ns, now))
        gc.collect()
        f_runs.append(_batch(floor, nf, now))
    return Pair(statistics.median(s_runs), statistics.median(f_runs), s_runs, f_runs)


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


def median_seconds(runs: Sequence[ProcRun], clock: str = "wall") -> float:
    """Median wall time, or with ``clock="cpu"`` median CPU time (steadier on a busy machine)."""
    return statistics.median(r.cpu if clock == "cpu" else r.seconds for r in runs)

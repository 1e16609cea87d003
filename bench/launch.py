"""Run commands and report wall time and peak memory, from a small process.

Linux charges a child's peak RSS (``ru_maxrss``) with the peak of the process that spawned it
(exec records the old address space's high-water mark), so spawning from the benchmark itself
would report the benchmark's own 100+ MiB for ``python -c pass``.  This launcher is started with
``-I -S`` and imports only the standard library, so that floor is a few MiB.

Input (argv[1]): a JSON list of runs ``{"argv": [...], "stdout": path or null, "tree": bool,
"env": {...} or null}``.
A run ``{"together": [run, run, ...]}`` starts its runs at once (what the machine gives two
independent processes: the ceiling for ``-j 2``).
Output: a JSON list of ``{"seconds", "status", "maxrss", "tree_peak", "cpu"}`` in the same
order.
"""

import json
import os
import sys
import threading
import time

PAGE = os.sysconf("SC_PAGE_SIZE")


def _children(pid: int) -> list[int]:
    out: list[int] = []
    try:
        tasks = os.listdir(f"/proc/{pid}/task")
    except OSError:
        return out
    for tid in tasks:
        try:
            with open(f"/proc/{pid}/task/{tid}/children") as fh:
                out.extend(int(p) for p in fh.read().split())
        except OSError:
            continue
    return out


def _rss(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/statm") as fh:
            return int(fh.read().split()[1]) * PAGE
    except (OSError, IndexError, ValueError):
        return 0


def tree_rss(pid: int) -> int:
    """Summed resident memory of ``pid`` and every descendant, right now."""
    total, todo = 0, [pid]
    while todo:
        p = todo.pop()
        total += _rss(p)
        todo.extend(_children(p))
    return total


def run(spec: dict) -> dict:  # type: ignore[type-arg]
    stdout = spec.get("stdout") or os.devnull
    actions = [
        (os.POSIX_SPAWN_OPEN, 0, os.devnull, os.O_RDONLY, 0),
        (os.POSIX_SPAWN_OPEN, 1, stdout, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644),
        (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0),
    ]
    argv = spec["argv"]
    peak = [0]
    done = threading.Event()
    t0 = time.perf_counter()
    env = spec.get("env") or os.environ
    pid = os.posix_spawn(argv[0], argv, env, file_actions=actions)

    def sample() -> None:
        while not done.wait(0.01):
            peak[0] = max(peak[0], tree_rss(pid))

    sampler = threading.Thread(target=sample, daemon=True) if spec.get("tree") else None
    if sampler:
        sampler.start()
    _, status, usage = os.wait4(pid, 0)
    seconds = time.perf_counter() - t0
    done.set()
    if sampler:
        sampler.join()
    return {"seconds": seconds, "status": os.waitstatus_to_exitcode(status),
            "maxrss": usage.ru_maxrss * 1024, "tree_peak": peak[0],
            "cpu": usage.ru_utime + usage.ru_stime}


def run_together(specs: list) -> dict:  # type: ignore[type-arg]
    """Start every run at once and wait for all: the wall time until the last one ends, the
    worst exit status, the largest peak RSS and the summed CPU time."""
    t0 = time.perf_counter()
    results: list[dict] = [{} for _ in specs]  # type: ignore[type-arg]
    threads = [threading.Thread(target=lambda i=i, s=s: results.__setitem__(i, run(s)))
               for i, s in enumerate(specs)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    seconds = time.perf_counter() - t0
    return {"seconds": seconds,
            "status": next((r["status"] for r in results if r["status"]), 0),
            "maxrss": max(r["maxrss"] for r in results),
            "tree_peak": sum(r["tree_peak"] for r in results),
            "cpu": sum(r["cpu"] for r in results)}


def main() -> int:
    with open(sys.argv[1], encoding="utf-8") as fh:
        specs = json.load(fh)
    json.dump([run_together(s["together"]) if "together" in s else run(s) for s in specs],
              sys.stdout)
    return 0


if __name__ == "__main__":
    sys.exit(main())

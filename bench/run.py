#!/usr/bin/env python3
"""bunzai benchmark: every figure against its floor, in the same run, as ratios.

    .venv/bin/python bench/run.py                 # full run (a few minutes on 2 cores)
    .venv/bin/python bench/run.py --quick         # fewer repetitions, 200-card batch folder
    .venv/bin/python bench/run.py --json out.json --only 1,3,5 --markdown
    .venv/bin/python bench/run.py --corpus ../shared/corpus --only 5,8   # against the peer

Fixtures are generated on first use into a cache folder outside the repository (see
``fixtures.cache_dir``).  Each figure prints PASS/FAIL against its target, but a miss never fails
the run: this is a measurement tool and machines are noisy.  Figures whose adapters are not
installed print ``n/a``.  Character Foundry (figures 5 and 8) is installed with ``npm ci`` from
``bench/node/package-lock.json`` into the same cache folder the first time a figure needs it;
without Node.js its rows say so and the rest of the run goes on.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import platform
import shutil
import statistics
import sys
import tempfile
import time
import traceback
import zipfile
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import orjson

HERE = Path(__file__).resolve().parent
if str(HERE) not in sys.path:
    sys.path.insert(0, str(HERE))

import corpus  # noqa: E402
import fixtures  # noqa: E402
import floors  # noqa: E402
import library  # noqa: E402
import peers  # noqa: E402
import timing  # noqa: E402

import bunzai  # noqa: E402
from bunzai.host.registry import get_registry  # noqa: E402
from bunzai.io.input import AdapterInput  # noqa: E402

INTERPRETER_REF_MS = 10.5
"""``python -c pass`` on the machine where the 60 ms cold-start target was set (peers.md §6.5)."""
COLD_START_TARGET_MS = 60.0


@dataclass
class Row:
    """One line of the table: a measured value, its floor, the ratio and the target."""

    fig: str
    case: str
    value: float | None = None
    unit: str = ""
    floor: float | None = None
    floor_label: str = ""
    ratio: float | None = None
    target: str = ""
    ok: bool | None = None
    note: str = ""
    extra: dict[str, Any] = field(default_factory=dict)

    @property
    def result(self) -> str:
        if self.value is None and self.ratio is None:
            return "n/a"
        return "-" if self.ok is None else ("PASS" if self.ok else "FAIL")


@dataclass
class Ctx:
    fx: fixtures.Fixtures
    quick: bool
    installed: set[str]
    python: str
    bunzai_exe: str
    work: Path
    clock: str = "wall"
    env: dict[str, str] = field(default_factory=dict)
    """Environment of every child process: bytecode cached (as after a pip install)."""
    corpus: Path | None = None
    """The folder of figure 8 (``--corpus``)."""
    per_class: int | None = None
    sections: dict[str, Any] = field(default_factory=dict)
    """Figure data beyond the table rows, saved in the JSON report under the same keys."""
    peer_node: str | None = None
    """``--node``: the Node.js binary (default: ``node`` on PATH)."""
    node_state: peers.Node | str | None = None
    """What :attr:`node` found; None until a figure asks."""

    @property
    def node(self) -> peers.Node | str:
        """The installed peer packages, or why there are none (installed on first use)."""
        if self.node_state is None:
            try:
                self.node_state = peers.setup(fixtures.cache_dir(), node=self.peer_node)
                print(f"peers: {self.node_state.home}", file=sys.stderr)
            except peers.Unavailable as exc:
                self.node_state = f"Character Foundry skipped: {exc}"
                print(self.node_state, file=sys.stderr)
        return self.node_state

    @property
    def repeats(self) -> int:
        return 5 if self.quick else 9

    @property
    def batch_seconds(self) -> float:
        return 0.02 if self.quick else 0.06

    def timed(self, subjects: Mapping[str, Callable[[], Any] | timing.Remote]
              ) -> dict[str, timing.Series]:
        """Time several subjects in alternating batches with this run's repetitions and clock."""
        return timing.time_set(subjects, repeats=self.repeats,
                               batch_seconds=self.batch_seconds, clock=self.clock)

    def pair(self, subject: Callable[[], Any], floor: Callable[[], Any]) -> timing.Pair:
        """Time ``subject`` against ``floor`` with this run's repetitions and clock."""
        return timing.time_pair(subject, floor, repeats=self.repeats,
                                batch_seconds=self.batch_seconds, clock=self.clock)

    def missing(self, *formats: str) -> str | None:
        absent = [f for f in formats if f not in self.installed]
        if not absent:
            return None
        return "n/a (adapter " + ", ".join(absent) + " not installed)"


def _na(fig: str, case: str, why: str) -> Row:
    return Row(fig, case, note=why)


def _pair_row(fig: str, case: str, pair: timing.Pair, floor_label: str, limit: float | None,
              *, note: str = "", unit: str = "µs", scale: float = 1e6) -> Row:
    ratio = pair.ratio
    return Row(
        fig, case, pair.subject * scale, unit, pair.floor * scale, floor_label, ratio,
        f"<= {limit:g}x" if limit is not None else "",
        None if limit is None else ratio <= limit, note,
        {"subject_runs_s": pair.subject_runs, "floor_runs_s": pair.floor_runs},
    )


# -- figures ----------------------------------------------------------------------------------


def fig1_read_png(ctx: Ctx) -> list[Row]:
    """PNG card -> canonical with the format given, against walk + base64 + JSON."""
    why = ctx.missing("sillytavern")
    cases = [("ST layout (chara+ccv3 before IEND), bytes in RAM", ctx.fx.png_st, False),
             ("ST layout, from the file", ctx.fx.png_st, True),
             ("card before IDAT, bytes in RAM", ctx.fx.png_early, False)]
    if why:
        return [_na("1", c, why) for c, _, _ in cases]
    rows = []
    name = ctx.fx.card["data"]["name"]
    for case, path, from_file in cases:
        src: str | bytes = str(path) if from_file else path.read_bytes()
        floor_fn = floors.read_png_card_file if from_file else floors.read_png_card

        def subject(src: Any = src) -> Any:
            return bunzai.read(src, format="sillytavern")

        def floor(src: Any = src, fn: Callable[[Any], Any] = floor_fn) -> Any:
            return fn(src)

        got = subject()
        if getattr(got, "name", None) != name:
            rows.append(_na("1", case, f"read returned {getattr(got, 'name', got)!r}, "
                                       f"expected {name!r}"))
            continue
        pair = ctx.pair(subject, floor)
        rows.append(_pair_row("1", case, pair, "walk + base64 + orjson, both chunks", 1.3))
    return rows


def fig2_write_png(ctx: Ctx) -> list[Row]:
    """Canonical -> PNG (splice into the card's own image), against a memoryview splice."""
    case = "write canonical -> ST PNG (bytes out)"
    why = ctx.missing("sillytavern")
    if why:
        return [_na("2", case, why)]
    data = ctx.fx.png_st.read_bytes()
    entity = bunzai.read(data, format="sillytavern")
    v2 = ctx.fx.card
    v3 = fixtures.card_v3(v2)

    def subject() -> bytes:
        return bunzai.write(entity, "sillytavern").files[0].data

    def floor() -> bytes:
        return floors.write_png_card(data, v2, v3)

    out = subject()
    note = ""
    if len(out) < len(data) * 0.9:
        note = f"output {len(out):,} B < source {len(data):,} B: the image was not carried"
    pair = ctx.pair(subject, floor)
    return [_pair_row("2", case, pair, "orjson + base64 + memoryview splice", 1.5, note=note)]


def fig3_read_json(ctx: Ctx) -> list[Row]:
    case = "20 KB V2 JSON -> canonical"
    why = ctx.missing("sillytavern")
    if why:
        return [_na("3", case, why)]
    data = ctx.fx.json_v2.read_bytes()

    def subject() -> Any:
        return bunzai.read(data, format="sillytavern")

    def floor() -> Any:
        return floors.read_json(data)

    subject()
    pair = ctx.pair(subject, floor)
    return [_pair_row("3", case, pair, "orjson.loads", 1.5)]


def fig4_detect(ctx: Ctx) -> list[Row]:
    """Detection over every installed adapter: what it adds to a read, and to one detector."""
    reg = get_registry()
    n = len(reg.adapters)
    why = ctx.missing("sillytavern")
    rows: list[Row] = []
    for label, path in (("PNG", ctx.fx.png_st), ("JSON", ctx.fx.json_v2)):
        case = f"{label}: detect ({n} adapters) + read vs read with --from"
        if why:
            rows.append(_na("4", case, why))
            continue
        data = path.read_bytes()

        def auto(data: bytes = data) -> Any:
            return bunzai.read(data)

        def given(data: bytes = data) -> Any:
            return bunzai.read(data, format="sillytavern")

        winner = reg.detect(AdapterInput(data)).winner
        if winner is None or winner.format != "sillytavern":
            rows.append(_na("4", case, f"detection picked {winner.format if winner else None}"))
            continue
        pair = ctx.pair(auto, given)
        rows.append(_pair_row("4", case, pair, "read, format given", 1.2))

        def detect_all(data: bytes = data) -> Any:
            return reg.detect(AdapterInput(data))

        def detect_one(data: bytes = data) -> Any:
            return reg.detect(AdapterInput(data), formats=["sillytavern"])

        pair = ctx.pair(detect_all, detect_one)
        rows.append(_pair_row("4", f"{label}: detect, all {n} adapters vs the winner's alone",
                              pair, "sillytavern detect", None,
                              note="what the other adapters add; the container is parsed once"))
    return rows


NODE_COLD = "node: import Character Foundry, parse the card"
PEER_COLD_TARGETS = {"bunzai inspect card.png": 1.5, "bunzai --help": 1.0}
"""Cold starts against Node importing Character Foundry and parsing the same card (issue 18)."""


def fig5_cold_start(ctx: Ctx) -> list[Row]:
    """Process start to exit, median of N, interleaved so drift hits every command alike."""
    n = 7 if ctx.quick else 21
    png = str(ctx.fx.png_st)
    commands = {
        "python -c pass": [ctx.python, "-c", "pass"],
        "stdlib script: read the card": [ctx.python, str(HERE / "stdlib_read.py"), png],
        "bunzai --help": [ctx.bunzai_exe, "--help"],
        "bunzai inspect card.png": [ctx.bunzai_exe, "inspect", png],
    }
    node = ctx.node
    if isinstance(node, peers.Node):  # right after inspect: each round pairs A (bunzai), B (node)
        commands[NODE_COLD] = node.cold_argv(png)
    keys = list(commands)
    # one warm-up round (page cache, .pyc files), then n interleaved rounds
    specs = [{"argv": commands[k], "env": ctx.env} for _ in range(n + 1) for k in keys]
    got = timing.spawn_many(specs)[len(keys):]
    runs = {k: got[i::len(keys)] for i, k in enumerate(keys)}
    ms = {k: timing.median_seconds(v, ctx.clock) * 1e3 for k, v in runs.items()}
    rss = {k: max(r.maxrss for r in v) / 2**20 for k, v in runs.items()}
    base = ms["python -c pass"]
    budget = COLD_START_TARGET_MS * base / INTERPRETER_REF_MS
    target = f"<= {budget:.0f} ms (60 ms at a 10.5 ms interpreter)"
    rows = [Row("5", "python -c pass", base, "ms", None, "", None, "", None,
                f"peak RSS {rss['python -c pass']:.0f} MiB")]
    std = ms["stdlib script: read the card"]
    rows.append(Row("5", "stdlib-only script reading the card", std, "ms", base,
                    "python -c pass", std / base, "", None,
                    f"peak RSS {rss['stdlib script: read the card']:.0f} MiB"))
    failed: dict[str, list[int]] = {k: [r.status for r in v if r.status != 0]
                                    for k, v in runs.items()}
    for key in ("bunzai --help", "bunzai inspect card.png"):
        note = f"peak RSS {rss[key]:.0f} MiB; {ms[key] / std:.1f}x the stdlib script"
        if failed[key]:
            note += f"; exit status {failed[key][0]}"
            if key.startswith("bunzai inspect"):
                note += " " + (ctx.missing("sillytavern") or "")
        rows.append(Row("5", key, ms[key], "ms", base, "python -c pass", ms[key] / base,
                        target, ms[key] <= budget and not failed[key], note.strip(),
                        {"runs_ms": [r.seconds * 1e3 for r in runs[key]]}))
    return rows + _peer_cold_rows(ctx, runs, ms, rss, failed)


def _peer_cold_rows(ctx: Ctx, runs: dict[str, list[timing.ProcRun]], ms: dict[str, float],
                    rss: dict[str, float], failed: dict[str, list[int]]) -> list[Row]:
    cases = [f"{k} vs Node + Character Foundry" for k in PEER_COLD_TARGETS]
    node = ctx.node
    if not isinstance(node, peers.Node):
        return [_na("5", NODE_COLD, node)] + [_na("5", c, node) for c in cases]
    base = ms["python -c pass"]
    value = ms[NODE_COLD]
    # Node's CPU time counts its helper threads (compiler, GC), which run beside the main one
    wall, cpu = (timing.median_seconds(runs[NODE_COLD], c) * 1e3 for c in ("wall", "cpu"))
    note = (f"Character Foundry {node.cf_version}, Node {node.node_version}; wall {wall:.0f} ms, "
            f"CPU {cpu:.0f} ms; peak RSS {rss[NODE_COLD]:.0f} MiB")
    if failed[NODE_COLD]:
        note += f"; exit status {failed[NODE_COLD][0]}"
    rows = [Row("5", NODE_COLD, value, "ms", base, "python -c pass", value / base, "", None,
                note, {"runs_ms": [r.seconds * 1e3 for r in runs[NODE_COLD]]})]
    if failed[NODE_COLD]:
        return rows + [_na("5", c, f"the Node run failed (exit {failed[NODE_COLD][0]})")
                       for c in cases]
    for (key, limit), case in zip(PEER_COLD_TARGETS.items(), cases, strict=True):
        # each round ran A (bunzai) and B (node) back to back: the median of the pair ratios
        pairs = [timing.run_seconds(a, ctx.clock) / timing.run_seconds(b, ctx.clock)
                 for a, b in zip(runs[key], runs[NODE_COLD], strict=True)]
        ratio = statistics.median(pairs)
        rows.append(Row("5", case, ms[key], "ms", value, "Node: import CF + parseCard", ratio,
                        f"<= {limit:g}x", ratio <= limit and not failed[key],
                        f"median of {len(pairs)} paired ratios (A B A B ...)",
                        {"pair_ratios": pairs}))
    return rows


def _batch_spec(ctx: Ctx, src: Path, jobs: int, tag: str) -> dict[str, Any]:
    out = ctx.work / f"out-{tag}"
    shutil.rmtree(out, ignore_errors=True)
    return {"argv": [ctx.bunzai_exe, "convert", str(src), "--to", "vaud-json",
                     "--out-dir", str(out), "-j", str(jobs), "--json"],
            "stdout": str(ctx.work / f"log-{tag}.jsonl"), "tree": True, "env": ctx.env}


def _batch_counts(ctx: Ctx, tag: str) -> dict[str, int]:
    """Statuses of one batch run's JSON lines; removes its output and log."""
    log = ctx.work / f"log-{tag}.jsonl"
    counts: dict[str, int] = {}
    for line in log.read_text(encoding="utf-8").splitlines():
        try:
            status = json.loads(line).get("status", "?")
        except ValueError:
            continue
        counts[status] = counts.get(status, 0) + 1
    shutil.rmtree(ctx.work / f"out-{tag}", ignore_errors=True)
    log.unlink(missing_ok=True)
    return counts


def _batch_run(ctx: Ctx, src: Path, jobs: int, tag: str) -> tuple[timing.ProcRun, dict[str, int]]:
    run = timing.spawn_many([_batch_spec(ctx, src, jobs, tag)])[0]
    return run, _batch_counts(ctx, tag)


def _side_by_side(ctx: Ctx, src: Path, tag: str) -> timing.ProcRun:
    """Two independent ``-j 1`` batches started at once: what the machine gives two processes
    that share nothing, the ceiling any ``-j 2`` can reach here."""
    specs = [_batch_spec(ctx, src, 1, f"{tag}-{i}") for i in range(2)]
    run = timing.spawn_many([{"together": specs}])[0]
    for i in range(2):
        _batch_counts(ctx, f"{tag}-{i}")
    return run


def fig6_batch(ctx: Ctx) -> list[Row]:
    count = ctx.fx.batch_count
    why = ctx.missing("sillytavern", "sillytavern-lorebook")
    cases = [f"batch {count} files -> vaud-json, -j 1", f"batch {count} files, -j 2 vs -j 1",
             f"-j 1 peak memory, {count // 2} vs {count} files",
             f"the machine: two -j 1 batches of {count // 2} side by side vs -j 1"]
    if why:
        return [_na("6", c, why) for c in cases]
    full = ctx.fx.batch_dir(count)
    half = ctx.fx.batch_dir(count // 2)
    reps = 1 if ctx.quick else 3
    j1: list[timing.ProcRun] = []
    j2: list[timing.ProcRun] = []
    counts: dict[str, int] = {}
    for r in range(reps):
        run, counts = _batch_run(ctx, full, 1, f"j1-{r}")
        j1.append(run)
        run, _ = _batch_run(ctx, full, 2, f"j2-{r}")
        j2.append(run)
    h1 = [_batch_run(ctx, half, 1, f"half-{r}")[0] for r in range(reps)]
    pairs = [_side_by_side(ctx, half, f"pair-{r}") for r in range(reps)]
    fps1 = count / timing.median_seconds(j1)
    fps2 = count / timing.median_seconds(j2)
    fpsp = 2 * (count // 2) / timing.median_seconds(pairs)
    mem1 = statistics.median(r.maxrss for r in j1) / 2**20
    tree2 = statistics.median(r.tree_peak for r in j2) / 2**20
    memh = statistics.median(r.maxrss for r in h1) / 2**20
    status = ", ".join(f"{v} {k}" for k, v in sorted(counts.items()))
    rows = [
        Row("6", cases[0], fps1, "files/s", None, "", None, "", None,
            f"{status}; peak RSS {mem1:.0f} MiB", {"seconds": [r.seconds for r in j1]}),
        Row("6", cases[1], fps2, "files/s", fps1, "-j 1 files/s", fps2 / fps1, ">= 1.8x",
            fps2 / fps1 >= 1.8,
            f"peak RSS, all processes summed: {tree2:.0f} MiB; {os.cpu_count()} CPUs",
            {"seconds": [r.seconds for r in j2]}),
        Row("6", cases[3], fpsp, "files/s", fps1, "-j 1 files/s", fpsp / fps1, "", None,
            f"-j 2 reaches {fps2 / fpsp:.0%} of it; two processes sharing nothing, on "
            f"{os.cpu_count()} CPUs", {"seconds": [r.seconds for r in pairs]}),
        Row("6", cases[2], mem1, "MiB", memh, f"at {count // 2} files", mem1 / memh,
            "<= 1.1x (flat)", mem1 / memh <= 1.1, "peak RSS of the bunzai process (wait4)"),
    ]
    return rows


_TRACE_SCRIPT = r"""
import json, sys, tracemalloc, bunzai
from pathlib import Path
bunzai.convert(sys.argv[2], to="sillytavern")  # warm-up: every import and the registry
tracemalloc.start()
out = bunzai.convert(sys.argv[1], to="sillytavern")
with Path(sys.argv[3]).open("wb") as fh:  # as the CLI writes: part by part, never joined
    fh.writelines(out.files[0].parts)
del out
current, peak = tracemalloc.get_traced_memory()
print(json.dumps({"peak": peak}))
"""


def fig7_charx(ctx: Ctx) -> list[Row]:
    big, small = ctx.fx.charx_big, ctx.fx.charx_small
    size = big.stat().st_size
    mb = size / 2**20
    cases = [f"{size / 1e6:.0f} MB CharX -> PNG (CLI convert), time",
             "peak RSS above the small-CharX baseline / file size",
             "peak traced allocations (tracemalloc) / file size"]
    why = ctx.missing("risu-charx", "sillytavern")
    if why:
        return [_na("7", c, why) for c in cases]
    out = ctx.work / "charx-out.png"
    reps = 3 if ctx.quick else 7

    def cli_spec(src: Path) -> dict[str, Any]:
        return {"argv": [ctx.bunzai_exe, "convert", str(src), "--to", "sillytavern",
                         "-o", str(out), "--force"], "env": ctx.env}

    got = timing.spawn_many([cli_spec(big)] + [cli_spec(p) for p in (big, small)
                                               for _ in range(reps)])
    runs_big, runs_small = got[1:reps + 1], got[reps + 1:]
    failed = [r.status for r in runs_big + runs_small if r.status]
    t_big = timing.median_seconds(runs_big, ctx.clock) * 1e3
    t_small = timing.median_seconds(runs_small, ctx.clock) * 1e3
    rss_big = statistics.median(r.maxrss for r in runs_big)
    rss_small = statistics.median(r.maxrss for r in runs_small)
    incr = (rss_big - rss_small) / size

    # floor for the in-process part: unzip card + icon, parse, splice into the icon, write
    blob = big.read_bytes()

    def floor() -> None:
        import io
        with zipfile.ZipFile(io.BytesIO(blob)) as z:
            card = orjson.loads(z.read("card.json"))
            icon = z.read(card["data"]["assets"][0]["uri"].removeprefix("embeded://"))
        out.write_bytes(floors.write_png_card(icon, card, card))

    def subject() -> None:
        res = bunzai.convert(str(big), to="sillytavern")
        with out.open("wb") as fh:
            fh.writelines(res.files[0].parts)

    pair = timing.time_pair(subject, floor, repeats=3 if ctx.quick else 5, batch_seconds=0,
                            clock=ctx.clock)
    note = (f"{(t_big - t_small) / (size / 1e6):.1f} ms per MB above the small-CharX run "
            f"({t_small:.0f} ms); in-process convert {pair.subject * 1e3:.0f} ms vs floor "
            f"(zipfile + splice + write) {pair.floor * 1e3:.0f} ms = {pair.ratio:.1f}x")
    if failed:
        note += f"; exit status {failed[0]}"
    log = ctx.work / "trace.json"  # the tracemalloc child prints one JSON line
    run = timing.spawn([ctx.python, "-c", _TRACE_SCRIPT, str(big), str(small), str(out)],
                stdout=str(log), env=ctx.env)
    try:
        peak = json.loads(log.read_text())["peak"]
    except (ValueError, KeyError, OSError):
        peak = None
    rows = [
        Row("7", cases[0], t_big, "ms", None, "", None, "", None, note,
            {"ms_per_mb": (t_big - t_small) / (size / 1e6), "small_ms": t_small,
             "runs_ms": [r.seconds * 1e3 for r in runs_big]}),
        Row("7", cases[1], (rss_big - rss_small) / 2**20, "MiB", mb, "file size", incr, "<= 2x",
            incr <= 2, f"peak RSS {rss_big / 2**20:.0f} MiB vs {rss_small / 2**20:.0f} MiB "
                       "converting the small CharX"),
    ]
    if peak is not None:
        rows.append(Row("7", cases[2], peak / 2**20, "MiB", mb, "file size", peak / size,
                        "<= 2x", peak / size <= 2, "read + write + file write, imports excluded"))
    else:
        rows.append(_na("7", cases[2], f"tracemalloc child failed (exit {run.status})"))
    return rows


READ_VS_PEER_ALL = 1.0
READ_VS_PEER_CLASS = 1.5
WRITE_VS_PEER = 1.0
AUTO_VS_GIVEN = 1.2
LARGE_BOOK_VS_ORJSON = 2.0


def fig8_corpus(ctx: Ctx) -> list[Row]:
    """Every file of ``--corpus DIR`` by class, against its floor and Character Foundry."""
    if ctx.corpus is None:
        return [_na("8", "every file of a folder, by class", "n/a (needs --corpus DIR)")]
    reg = get_registry()
    samples = corpus.collect(ctx.corpus, reg, per_class=ctx.per_class)
    timed = [s for s in samples if s.cls is not None]
    node = ctx.node
    worker: peers.Worker | None = None
    peer_note = node if isinstance(node, str) else ""
    if isinstance(node, peers.Node):
        try:
            worker = node.worker()
        except (OSError, peers.WorkerError) as exc:
            peer_note = f"Character Foundry skipped: the Node worker did not start: {exc}"
    results: list[corpus.Result] = []
    t0 = time.perf_counter()
    try:
        for i, s in enumerate(timed, 1):
            try:
                res = corpus.measure(s, reg, worker, ctx.timed)
            except peers.WorkerError as exc:
                assert worker is not None
                if not worker.alive:
                    peer_note = f"Character Foundry stopped at {s.name}: {exc}"
                    worker.close()
                    worker = None
                res = corpus.measure(s, reg, None, ctx.timed)
                res.notes.append(f"Character Foundry failed while timed: {exc}")
            results.append(res)
            if i % 10 == 0 or i == len(timed):
                print(f"  corpus: {i}/{len(timed)} files, {time.perf_counter() - t0:.0f} s",
                      file=sys.stderr)
    finally:
        if worker is not None:
            worker.close()
    groups = corpus.groups(results)
    peer: str | dict[str, str] = peer_note
    if not peer_note and isinstance(node, peers.Node):
        peer = {"node": node.node_version, **node.versions}
    ctx.sections["corpus"] = {
        "folder": str(ctx.corpus), "peer": peer,
        "classes": [g.to_json() for g in groups],
        "files": [r.to_json() for r in results],
        "skipped": [{"file": s.name, "format": s.format, "container": s.container,
                     "why": s.why} for s in samples if s.cls is None],
    }
    return _corpus_rows(groups, results, peer_note)


def _corpus_rows(groups: list[corpus.Group], results: list[corpus.Result],
                 peer_note: str) -> list[Row]:
    by_name = {g.name: g for g in groups}
    overall = by_name["all"]
    rows: list[Row] = []

    def ratio_row(g: corpus.Group, case: str, part: str, a: str, b: str, label: str,
                  limit: float | None, *, peer: bool = False) -> Row:
        if peer and peer_note:
            return _na("8", case, peer_note)
        n = g.count(part, a, b)
        ratio = g.ratio(part, a, b)
        if ratio is None:
            return _na("8", case, f"n/a (no file has both {a} and {b})")
        note = "" if n == g.files else (
            f"{g.files - n} of {g.files} files without a ratio (see the JSON report)")
        value, floor = g.time(part, a), g.time(part, b)
        return Row("8", case, None if value is None else value * 1e6, "µs",
                   None if floor is None else floor * 1e6, label, ratio,
                   f"<= {limit:g}x" if limit is not None else "",
                   None if limit is None else ratio <= limit, note)

    rows.append(ratio_row(overall, f"read auto-detected vs Character Foundry, all "
                          f"{overall.files} files", "read", "auto", "cf",
                          "CF parseCard", READ_VS_PEER_ALL, peer=True))
    for g in groups[:-1]:
        rows.append(ratio_row(g, f"read auto-detected vs Character Foundry, {g.name} "
                              f"({g.files})", "read", "auto", "cf", "CF parseCard",
                              READ_VS_PEER_CLASS, peer=True))
    writers = corpus.Group("written", [r for r in results if r.write])
    rows.append(ratio_row(writers, f"write SillyTavern PNG vs CF exportCard, "
                          f"{writers.files} files", "write", "bunzai", "cf",
                          "CF exportCard", WRITE_VS_PEER, peer=True))
    for label, classes in (("JSON", corpus.JSON_CLASSES), ("PNG", corpus.PNG_CLASSES)):
        g = corpus.Group(label, [r for r in results if r.sample.cls in classes])
        case = f"read auto-detected vs format given, {label} ({g.files} files)"
        rows.append(ratio_row(g, case, "read", "auto", "given", "format given", AUTO_VS_GIVEN)
                    if g.files else _na("8", case, f"n/a (no {label} file in the folder)"))
    books = [r for r in results if r.sample.cls == "World Info"]
    case = "largest World Info: read auto-detected vs orjson.loads"
    if books:
        big = max(books, key=lambda r: r.sample.size)
        g = corpus.Group("largest", [big])
        row = ratio_row(g, f"largest World Info ({big.sample.size / 1e3:,.0f} KB): "
                        "read auto-detected vs orjson.loads", "read", "auto", "floor",
                        "orjson.loads", LARGE_BOOK_VS_ORJSON)
        given = big.ratio("read", "given", "floor")
        row.note = big.sample.name + ("" if given is None
                                      else f"; format given {given:.2f}x orjson.loads")
        rows.append(row)
    else:
        rows.append(_na("8", case, "n/a (no World Info file in the folder)"))
    rows.append(ratio_row(overall, "read auto-detected vs its floor, all files", "read",
                          "auto", "floor", "floor", None))
    rows.append(ratio_row(writers, "write SillyTavern PNG vs its floor", "write", "bunzai",
                          "floor", "floor", None))
    return rows


FIGURES: dict[str, Callable[[Ctx], list[Row]]] = {
    "1": fig1_read_png, "2": fig2_write_png, "3": fig3_read_json, "4": fig4_detect,
    "5": fig5_cold_start, "6": fig6_batch, "7": fig7_charx, "8": fig8_corpus,
    "9": library.fig9_library,
}


# -- output -----------------------------------------------------------------------------------


def machine() -> dict[str, Any]:
    fields: dict[str, str] = {}
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            key, _, value = line.partition(":")
            fields.setdefault(key.strip(), value.strip())
    except OSError:
        pass
    cpu = fields.get("model name") or platform.processor() or "?"
    if "cpu family" in fields:
        cpu += f" (family {fields['cpu family']}, model {fields.get('model', '?')})"
    from importlib.metadata import PackageNotFoundError, version

    def ver(dist: str) -> str | None:
        try:
            return version(dist)
        except PackageNotFoundError:
            return None

    return {
        "nproc": len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
        else os.cpu_count(),
        "cpu": cpu, "kernel": platform.release(), "python": platform.python_version(),
        "implementation":
        platform.python_implementation(), "platform": platform.platform(),
        "bunzai": bunzai.__version__, "orjson": ver("orjson"), "pybase64": ver("pybase64"),
        "pydantic": ver("pydantic"), "base64_lib": floors.BASE64_LIB,
    }


def _fmt(value: float | None, unit: str) -> str:
    if value is None:
        return ""
    if unit == "µs":
        return f"{value:,.1f} µs" if value < 100 else f"{value:,.0f} µs"
    if unit == "ms":
        return f"{value:,.1f} ms"
    if unit == "files/s":
        return f"{value:,.0f} files/s"
    return f"{value:,.1f} {unit}"


def _table(rows: Sequence[Row]) -> list[list[str]]:
    out = [["#", "case", "bunzai", "floor", "ratio", "target", "result"]]
    for r in rows:
        floor = _fmt(r.floor, r.unit)
        if floor and r.floor_label:
            floor += f" ({r.floor_label})"
        out.append([r.fig, r.case, _fmt(r.value, r.unit) or r.note, floor,
                    "" if r.ratio is None else f"{r.ratio:.2f}x", r.target, r.result])
    return out


def print_table(rows: Sequence[Row], markdown: bool) -> None:
    table = _table(rows)
    if markdown:
        print("| " + " | ".join(table[0]) + " |")
        print("|" + "|".join("---:" if i in (2, 3, 4) else "---" for i in range(7)) + "|")
        for line in table[1:]:
            print("| " + " | ".join(c.replace("|", "\\|") for c in line) + " |")
    else:
        widths = [min(58, max(len(line[i]) for line in table)) for i in range(7)]
        for j, line in enumerate(table):
            print("  ".join(c.ljust(w) if i < 2 or i > 4 else c.rjust(w)
                            for i, (c, w) in enumerate(zip(line, widths, strict=True))).rstrip())
            if j == 0:
                print("  ".join("-" * w for w in widths))
    notes = [r for r in rows if r.note and r.value is not None]
    if notes:
        print()
        for r in notes:
            print(f"{'-' if markdown else ' '} {r.fig} {r.case}: {r.note}")


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--quick", action="store_true",
                    help="fewer repetitions and a 200-file batch folder")
    ap.add_argument("--json", metavar="PATH", help="write every figure as JSON here "
                    "(default: bench/out/latest.json)")
    ap.add_argument("--only", metavar="1,2,..", help="run only these figures")
    ap.add_argument("--markdown", action="store_true", help="print the table as Markdown")
    ap.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                    help="wall (perf_counter; default) or cpu (process CPU time: steadier on "
                    "a shared machine; batch throughput is always wall time)")
    ap.add_argument("--batch", type=int, metavar="N",
                    help="files in the batch folder (default 2000, --quick 200)")
    ap.add_argument("--show", metavar="PATH", help="print the table of a saved JSON report "
                    "instead of measuring")
    ap.add_argument("--corpus", metavar="DIR", type=Path,
                    help="figure 8: read and write every file of DIR by class, against the "
                    "floor and Character Foundry (adds 8 to the figures run)")
    ap.add_argument("--max-per-class", type=int, metavar="N",
                    help="figure 8: time at most N files of each class (short runs)")
    ap.add_argument("--node", metavar="PATH",
                    help="the Node.js binary for the peer columns (default: node on PATH)")
    args = ap.parse_args(argv)
    if args.show:
        saved = json.loads(Path(args.show).read_text(encoding="utf-8"))
        fields = set(Row.__dataclass_fields__)
        print_table([Row(**{k: v for k, v in r.items() if k in fields}) for r in saved["rows"]],
                    args.markdown)
        if "corpus" in saved:
            print()
            corpus.print_classes(saved["corpus"]["classes"], args.markdown)
        return 0
    if args.corpus is not None and not args.corpus.is_dir():
        ap.error(f"--corpus {args.corpus}: not a folder")

    default = [k for k in FIGURES if k != "8" or args.corpus is not None]
    selected = args.only.split(",") if args.only else default
    unknown = [s for s in selected if s not in FIGURES]
    if unknown:
        ap.error(f"unknown figure(s): {', '.join(unknown)}")
    started = time.time()
    load_before = os.getloadavg()
    reg = get_registry()
    exe_dir = Path(sys.executable).parent
    bunzai_exe = shutil.which("bunzai", path=str(exe_dir)) or shutil.which("bunzai")
    if bunzai_exe is None:
        print("bench: the bunzai command is not installed next to this Python", file=sys.stderr)
        return 2
    fx = fixtures.Fixtures(batch_count=args.batch or (200 if args.quick else 2000))
    print(f"fixtures: {fixtures.cache_dir()}", file=sys.stderr)
    with tempfile.TemporaryDirectory(prefix="bunzai-bench-") as tmp:
        env = dict(os.environ)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(fixtures.cache_dir() / "pycache")
        ctx = Ctx(fx, args.quick, set(reg.adapters), sys.executable, bunzai_exe, Path(tmp),
                  args.clock, env, corpus=args.corpus, per_class=args.max_per_class,
                  peer_node=args.node)
        rows: list[Row] = []
        for key in selected:
            t0 = time.perf_counter()
            try:
                got = FIGURES[key](ctx)
            except Exception as exc:  # a broken figure is reported, the others still run
                traceback.print_exc()
                got = [_na(key, f"figure {key}", f"error: {type(exc).__name__}: {exc}")]
            rows.extend(got)
            print(f"figure {key}: {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    print_table(rows, args.markdown)
    if "corpus" in ctx.sections:
        print()
        corpus.print_classes(ctx.sections["corpus"]["classes"], args.markdown)
    info = machine()
    if isinstance(ctx.node_state, peers.Node):
        info["node"] = ctx.node_state.node_version
        info.update(ctx.node_state.versions)
    report = {
        "date": datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"),
        "quick": args.quick, "clock": args.clock,
        "seconds": round(time.time() - started, 1), "machine": info,
        "loadavg": {"before": load_before, "after": os.getloadavg()},
        "adapters": sorted(reg.adapters),
        "fixtures": {p.name: p.stat().st_size for p in sorted(fixtures.cache_dir().glob("*"))
                     if p.is_file()},
        "rows": [{**asdict(r), "result": r.result} for r in rows],
        **ctx.sections,
    }
    out = Path(args.json) if args.json else HERE / "out" / "latest.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(report, indent=2, ensure_ascii=False) + "\n", encoding="utf-8")
    print(f"\n{info['cpu']}, {info['nproc']} CPUs, Python {info['python']}, "
          f"base64: {info['base64_lib']}, clock: {args.clock}, load average "
          f"{load_before[0]:.2f} -> {os.getloadavg()[0]:.2f}; JSON: {out}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())

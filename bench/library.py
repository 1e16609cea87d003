"""Figure 9: ``bunzai library convert`` on the shared SillyTavern folder.

Throughput is measured as figure 6 measures a batch: ``-j 2`` against what this machine gives
two processes that share nothing (two ``-j 1`` moves of the same library started together,
into two folders), the ceiling any ``-j 2`` can reach here.  Memory: the peak RSS of a ``-j 1``
move of a library made of the shared one repeated ten times (each copy's cards made distinct
by a PNG comment, so that none is written once as an identical card) against the shared one.
Every move writes into a fresh folder: it is a whole move, never a resume.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
from pathlib import Path
from typing import TYPE_CHECKING, Any

import fixtures
import timing

from bunzai.io.containers.png import make_text_chunk
from bunzai.testing import shared_dir

if TYPE_CHECKING:
    from run import Ctx, Row

LIBRARY = shared_dir() / "libraries" / "st-user-2208096" / "default-user"
TARGET = "risu"
CEILING_SHARE = 0.9
MEMORY_GROWTH = 1.2


def _spec(ctx: Ctx, src: Path, jobs: int, tag: str) -> dict[str, Any]:
    out = ctx.work / f"lib-{tag}"
    shutil.rmtree(out, ignore_errors=True)
    return {"argv": [ctx.bunzai_exe, "library", "convert", str(src), "--to", TARGET,
                     "--out-dir", str(out), "-j", str(jobs), "--json"],
            "stdout": str(ctx.work / f"lib-{tag}.jsonl"), "tree": True, "env": ctx.env}


def _items(ctx: Ctx, tag: str) -> int:
    """Items one move reported (its JSON lines but the summary); removes its output."""
    log = ctx.work / f"lib-{tag}.jsonl"
    lines = [json.loads(x) for x in log.read_text(encoding="utf-8").splitlines() if x.strip()]
    shutil.rmtree(ctx.work / f"lib-{tag}", ignore_errors=True)
    log.unlink(missing_ok=True)
    return sum(1 for x in lines if "status" in x and x.get("status") != "dropped")


def _move(ctx: Ctx, src: Path, jobs: int, tag: str) -> tuple[timing.ProcRun, int]:
    run = timing.spawn_many([_spec(ctx, src, jobs, tag)])[0]
    return run, _items(ctx, tag)


def repeated(src: Path, dest: Path, times: int) -> Path:
    """``src`` ten times over (``times``): each card, its chats and each world again under
    ``<name> (k)``, the card's bytes made distinct by a PNG comment after its header."""
    if dest.is_dir():
        return dest
    tmp = dest.with_name(dest.name + ".part")
    shutil.rmtree(tmp, ignore_errors=True)
    shutil.copytree(src, tmp)
    for k in range(2, times + 1):
        for card in sorted((src / "characters").glob("*.png")):
            stem = card.name.replace(".png", "", 1)
            data = card.read_bytes()
            mark = make_text_chunk("Comment", f"copy {k}".encode())
            (tmp / "characters" / f"{stem} ({k}).png").write_bytes(data[:33] + mark + data[33:])
            chats = src / "chats" / stem
            if chats.is_dir():
                shutil.copytree(chats, tmp / "chats" / f"{stem} ({k})")
        for world in sorted((src / "worlds").glob("*.json")):
            shutil.copyfile(world, tmp / "worlds" / f"{world.stem} ({k}).json")
    os.replace(tmp, dest)
    return dest


def fig9_library(ctx: Ctx) -> list[Row]:
    from run import Row, _na

    cases = [f"library convert --to {TARGET}, -j 1", "library convert, -j 2 vs -j 1",
             "the machine: two -j 1 moves side by side vs -j 1",
             "-j 2 share of the machine's two-process ceiling",
             "-j 1 peak memory, the library x10 vs x1"]
    if not LIBRARY.is_dir():
        return [_na("9", c, f"n/a ({LIBRARY} not found)") for c in cases]
    reps = 1 if ctx.quick else 3
    j1: list[timing.ProcRun] = []
    j2: list[timing.ProcRun] = []
    pairs: list[timing.ProcRun] = []
    items = 0
    for r in range(reps):
        run, items = _move(ctx, LIBRARY, 1, f"j1-{r}")
        j1.append(run)
        j2.append(_move(ctx, LIBRARY, 2, f"j2-{r}")[0])
        specs = [_spec(ctx, LIBRARY, 1, f"pair-{r}-{i}") for i in range(2)]
        pairs.append(timing.spawn_many([{"together": specs}])[0])
        for i in range(2):
            _items(ctx, f"pair-{r}-{i}")
    big = repeated(LIBRARY, fixtures.cache_dir() / "library-x10", 10)
    big_runs = [_move(ctx, big, 1, f"x10-{r}") for r in range(reps)]
    big_items = big_runs[0][1]
    ips1 = items / timing.median_seconds(j1)
    ips2 = items / timing.median_seconds(j2)
    ceiling = 2 * items / timing.median_seconds(pairs)
    mem1 = statistics.median(r.maxrss for r in j1) / 2**20
    mem10 = statistics.median(r.maxrss for r, _ in big_runs) / 2**20
    share = ips2 / ceiling
    return [
        Row("9", cases[0], ips1, "items/s", None, "", None, "", None,
            f"{items} items moved ({LIBRARY.parent.name}); peak RSS {mem1:.0f} MiB",
            {"seconds": [r.seconds for r in j1]}),
        Row("9", cases[1], ips2, "items/s", ips1, "-j 1 items/s", ips2 / ips1, "", None,
            f"peak RSS, all processes summed: "
            f"{statistics.median(r.tree_peak for r in j2) / 2**20:.0f} MiB",
            {"seconds": [r.seconds for r in j2]}),
        Row("9", cases[2], ceiling, "items/s", ips1, "-j 1 items/s", ceiling / ips1, "", None,
            f"two processes sharing nothing, on {os.cpu_count()} CPUs",
            {"seconds": [r.seconds for r in pairs]}),
        Row("9", cases[3], ips2, "items/s", ceiling, "the machine's ceiling", share,
            f">= {CEILING_SHARE:.0%}", share >= CEILING_SHARE,
            f"-j 2 reaches {share:.0%} of two independent -j 1 moves"),
        Row("9", cases[4], mem10, "MiB", mem1, "x1", mem10 / mem1, f"<= {MEMORY_GROWTH}x",
            mem10 / mem1 <= MEMORY_GROWTH,
            f"{big_items} items in the x10 library; peak RSS of the bunzai process (wait4)",
            {"seconds": [r.seconds for r, _ in big_runs]}),
    ]

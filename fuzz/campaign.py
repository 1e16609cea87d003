"""Run the fuzzer: a long coverage-guided campaign, the short CI run, or a replay.

    python -m fuzz.campaign seeds DIR                  write the seed inputs per family
    python -m fuzz.campaign atheris FAMILY --seconds S --work DIR [--until N]
                                                       coverage-guided (atheris/libFuzzer)
    python -m fuzz.campaign quick [--execs N] [--seed K] [--family F ...]
                                                       fixed-seed mutation run (CI), exit 1 on
                                                       an escape
    python -m fuzz.campaign replay PATH...             run saved inputs, exit 1 on an escape
    python -m fuzz.campaign settle --work DIR          count what a stopped campaign ran
    python -m fuzz.campaign report --work DIR          the campaign's figures (Markdown)

Run from the repository root.  ``atheris`` mode runs libFuzzer in children of at most ten
minutes (restarting after a timeout or an out-of-memory stop too) until the time is used up or
the total reaches ``--until``; it keeps the growing corpus in ``DIR/corpus/FAMILY``, every
distinct escape (first input per signature) in ``DIR/findings/FAMILY`` and the totals in
``DIR/stats-FAMILY.json``, and a later run on the same ``DIR`` resumes from them.
"""

from __future__ import annotations

import argparse
import json
import random
import re
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[1]
MAX_LEN = 128 * 1024
MAX_LEN_OF = {"jsonl": 16 * 1024}
"""Smaller inputs for a family whose every execution writes the input to every format of its
kind: a chat log of a dozen lines reaches what a long one does, many times faster."""
QUICK_EXECS = 2500
"""Executions per family in the CI run (under a minute for all six families on 2 cores)."""


def _cmd_seeds(args: argparse.Namespace) -> int:
    from .seeds import write_seeds

    counts = write_seeds(Path(args.dir), real=not args.no_real)
    print(json.dumps(counts))
    return 0


# -- atheris campaign ------------------------------------------------------------------------------


_STAT = re.compile(r"stat::(\w+):\s*(\d+)")


CHILD_SECONDS = 600
"""Longest run of one libFuzzer child: the figures are saved after each, so a campaign that is
stopped (or a machine that goes away) loses at most this much of its count."""


def _cmd_atheris(args: argparse.Namespace) -> int:
    """Drive libFuzzer children until the time is used up or the total reaches ``--until``.

    A campaign resumes: the grown corpus, the findings and the figures in ``stats-FAMILY.json``
    carry over from earlier invocations on the same ``--work`` folder, and the new children's
    executions and seconds are added to them (``sessions`` counts the invocations).
    """
    work = Path(args.work).resolve()
    fam = args.family
    corpus = work / "corpus" / fam
    seeds = work / "seeds" / fam
    findings = work / "findings" / fam
    artifacts = work / "artifacts" / fam
    for d in (corpus, findings, artifacts):
        d.mkdir(parents=True, exist_ok=True)
    if not seeds.is_dir():
        from .seeds import write_seeds
        write_seeds(work / "seeds")
    stats_path = work / f"stats-{fam}.json"
    total: dict[str, Any] = {"family": fam, "executions": 0, "children": 0, "stops": [],
                             "seconds": 0.0, "sessions": 0}
    if stats_path.exists():
        total.update(json.loads(stats_path.read_text()))
    total["sessions"] = int(total.get("sessions") or 0) + 1
    earlier = float(total["seconds"])
    start = time.monotonic()
    deadline = start + args.seconds
    while True:
        remaining = int(deadline - time.monotonic())
        runs_left = None if args.until is None else args.until - total["executions"]
        if remaining < 5 or (runs_left is not None and runs_left <= 0):
            break
        child_time = min(remaining, CHILD_SECONDS)
        cmd = [sys.executable, "-m", "fuzz.atheris_main", "--family", fam,
               "--findings", str(findings), "--",
               f"-max_total_time={child_time}", "-timeout=20", "-rss_limit_mb=3072",
               f"-max_len={MAX_LEN_OF.get(fam, MAX_LEN)}", "-print_final_stats=1",
               f"-seed={args.seed + total['children']}",
               f"-artifact_prefix={artifacts}/", "-reload=0", str(corpus), str(seeds)]
        if runs_left is not None:
            cmd.insert(cmd.index("--") + 1, f"-runs={runs_left}")
        log = work / f"log-{fam}-{total['children']}.txt"
        with log.open("w") as fh:
            proc = subprocess.run(cmd, cwd=ROOT, stdout=fh, stderr=subprocess.STDOUT)
        text = log.read_text(errors="replace")
        stats = {k: int(v) for k, v in _STAT.findall(text)}
        execs = stats.get("number_of_executed_units", 0)
        if not execs:  # killed before the final stats: take the last status line
            done = re.findall(r"^#(\d+)\s", text, re.M)
            execs = int(done[-1]) if done else 0
        total["executions"] += execs
        total["children"] += 1
        if proc.returncode != 0:
            reason = _stop_reason(text, proc.returncode)
            total["stops"].append(reason)
        total["seconds"] = round(earlier + time.monotonic() - start, 1)
        total["findings"] = sorted(p.stem for p in findings.glob("*.bin"))
        total["corpus_files"] = len(list(corpus.iterdir()))
        total["rate_per_second"] = round(total["executions"] / max(total["seconds"], 1e-9), 1)
        stats_path.write_text(json.dumps(total, indent=2))
    print(json.dumps(total))
    return 0


def _stop_reason(log: str, code: int) -> str:
    """Why a libFuzzer child stopped, from its own words: its ``ERROR: libFuzzer:`` line (a
    timeout, an out-of-memory stop, a deadly signal), or an interrupt from outside.  Words
    elsewhere in the log (libFuzzer's start-up warnings name a "crash state" function) say
    nothing of the stop."""
    found = re.search(r"^==\d+== ERROR: libFuzzer: ([\w -]+)", log, re.M)
    if found:
        return found.group(1).strip()
    if "libFuzzer: run interrupted" in log:
        return "stopped by hand"
    return f"exit {code}"


def _cmd_settle(args: argparse.Namespace) -> int:
    """Count the libFuzzer runs a stopped campaign did not get to record.

    Stopping a campaign (``kill`` of the driver, a machine going away) loses the figures of the
    child that was running: its log is there, but not in ``stats-FAMILY.json``.  This adds the
    last execution count of each such log, so the next ``atheris`` run resumes from the right
    total.  Run it only while no campaign of that family runs on ``--work``.
    """
    from .seeds import FAMILIES

    work = Path(args.work)
    for fam in args.family or FAMILIES:
        path = work / f"stats-{fam}.json"
        if not path.exists():
            continue
        st = json.loads(path.read_text())
        while (log := work / f"log-{fam}-{st['children']}.txt").exists():
            text = log.read_text(errors="replace")
            stats = {k: int(v) for k, v in _STAT.findall(text)}
            execs = stats.get("number_of_executed_units", 0)
            if not execs:
                done = re.findall(r"^#(\d+)\s", text, re.M)
                execs = int(done[-1]) if done else 0
            st["executions"] += execs
            st["children"] += 1
            st["stops"].append("stopped by hand")
            # its time, from libFuzzer's own rate on the last status line (the log has no clock)
            rates = re.findall(r"exec/s: (\d+)", text)
            if rates and int(rates[-1]):
                st["seconds"] = round(st["seconds"] + execs / int(rates[-1]), 1)
            print(f"{fam}: +{execs:,} executions from {log.name}")
        st["rate_per_second"] = round(st["executions"] / max(st["seconds"], 1e-9), 1)
        path.write_text(json.dumps(st, indent=2))
    return 0


def _cmd_report(args: argparse.Namespace) -> int:
    """The campaign figures as a Markdown table, from the ``stats-*.json`` files."""
    from .seeds import FAMILIES

    work = Path(args.work)
    rows = ["| family | executions | seconds | executions/s | libFuzzer runs (stops) "
            "| corpus files | escapes found |",
            "|---|---:|---:|---:|---|---:|---|"]
    total = 0
    for fam in FAMILIES:
        path = work / f"stats-{fam}.json"
        if not path.exists():
            continue
        st = json.loads(path.read_text())
        total += st["executions"]
        rate = st["executions"] / max(st["seconds"], 1e-9)
        found = ", ".join(st.get("findings") or []) or "none"
        stops = ", ".join(sorted(set(st.get("stops") or []))) or "none"
        rows.append(f"| {fam} | {st['executions']:,} | {st['seconds']:,.0f} | {rate:,.0f} | "
                    f"{st.get('children', 0)} ({stops}) | {st.get('corpus_files', 0):,} | "
                    f"{found} |")
    rows.append(f"| **all** | **{total:,}** | | | | | |")
    print("\n".join(rows))
    return 0


# -- quick, deterministic run ----------------------------------------------------------------------


def quick(execs: int, seed: int, families: list[str], real: bool = True,
          save: Path | None = None) -> dict[str, object]:
    """``execs`` mutated inputs per family from a fixed seed: the same inputs on every run."""
    import warnings

    from .harness import check
    from .mutate import byte_mutator, mutate
    from .seeds import all_seeds

    warnings.simplefilter("ignore")  # Pillow's complaints about mutated images are not escapes

    seeds = all_seeds(real=real)
    report: dict[str, object] = {"seed": seed, "families": {}, "escapes": []}
    for fam in families:
        pool = seeds.get(fam) or []
        if not pool:
            continue
        rng = random.Random(f"{seed}:{fam}")
        mb = byte_mutator(rng)
        t0 = time.perf_counter()
        for i in range(execs):
            data = rng.choice(pool)
            for _ in range(rng.choice((1, 1, 2, 3))):
                data = mutate(data, rng, mb, MAX_LEN_OF.get(fam, MAX_LEN))
            esc = check(data)
            if esc is not None:
                entry = {"family": fam, "index": i, "signature": esc.signature,
                         "error": str(esc)}
                if save is not None:
                    save.mkdir(parents=True, exist_ok=True)
                    path = save / f"{fam}-{esc.short_id()}.bin"
                    path.write_bytes(data)
                    entry["input"] = str(path)
                report["escapes"].append(entry)  # type: ignore[attr-defined]
        dt = time.perf_counter() - t0
        report["families"][fam] = {"executions": execs, "seconds": round(dt, 1),  # type: ignore[index]
                                   "rate_per_second": round(execs / dt, 1)}
    return report


def _cmd_quick(args: argparse.Namespace) -> int:
    from .seeds import FAMILIES

    fams = args.family or list(FAMILIES)
    report = quick(args.execs, args.seed, fams, real=not args.no_real,
                   save=Path(args.save) if args.save else None)
    for fam, r in report["families"].items():  # type: ignore[attr-defined]
        print(f"fuzz {fam:<6} {r['executions']} executions in {r['seconds']} s "
              f"({r['rate_per_second']}/s)")
    escapes = report["escapes"]
    for e in escapes:  # type: ignore[attr-defined]
        print(f"ESCAPE {e['family']} #{e['index']}: {e['error']}"
              + (f" (input saved to {e['input']})" if "input" in e else ""))
    if args.json:
        Path(args.json).write_text(json.dumps(report, indent=2))
    return 1 if escapes else 0


# -- replay ----------------------------------------------------------------------------------------


def _cmd_replay(args: argparse.Namespace) -> int:
    from .harness import check

    bad = 0
    files: list[Path] = []
    for item in args.paths:
        p = Path(item)
        files.extend(sorted(q for q in p.rglob("*") if q.is_file()) if p.is_dir() else [p])
    for p in files:
        esc = check(p.read_bytes())
        if esc is not None:
            bad += 1
            print(f"ESCAPE {p}: {esc}")
            if args.verbose:
                print(esc.details())
    print(f"{len(files)} input(s) replayed, {bad} escape(s)")
    return 1 if bad else 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m fuzz.campaign", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="cmd", required=True)
    p = sub.add_parser("seeds", help="write seed inputs per family")
    p.add_argument("dir")
    p.add_argument("--no-real", action="store_true", help="skip the shared corpus and samples")
    p.set_defaults(fn=_cmd_seeds)
    p = sub.add_parser("atheris", help="coverage-guided campaign for one family")
    p.add_argument("family")
    p.add_argument("--seconds", type=int, required=True)
    p.add_argument("--until", type=int, default=None,
                   help="stop when the campaign's total executions reach this")
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--work", required=True)
    p.set_defaults(fn=_cmd_atheris)
    p = sub.add_parser("settle", help="count the runs of a stopped campaign")
    p.add_argument("--work", required=True)
    p.add_argument("--family", action="append", help="only this family (repeatable)")
    p.set_defaults(fn=_cmd_settle)
    p = sub.add_parser("report", help="campaign figures as a Markdown table")
    p.add_argument("--work", required=True)
    p.set_defaults(fn=_cmd_report)
    p = sub.add_parser("quick", help="deterministic mutation run (CI)")
    p.add_argument("--execs", type=int, default=QUICK_EXECS)
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--family", action="append")
    p.add_argument("--no-real", action="store_true")
    p.add_argument("--save", help="folder for escaping inputs")
    p.add_argument("--json", help="write the report here")
    p.set_defaults(fn=_cmd_quick)
    p = sub.add_parser("replay", help="run saved inputs through the harness")
    p.add_argument("paths", nargs="+")
    p.add_argument("-v", "--verbose", action="store_true")
    p.set_defaults(fn=_cmd_replay)
    args = parser.parse_args(argv)
    return int(args.fn(args))


if __name__ == "__main__":
    raise SystemExit(main())

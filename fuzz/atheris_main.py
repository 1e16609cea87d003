"""One libFuzzer process (started by ``python -m fuzz.campaign atheris``).

bunzai and the format packages are imported under atheris' bytecode instrumentation, so
libFuzzer sees which branches of *our* code an input reached; the mutator is libFuzzer's own,
mixed with :mod:`fuzz.mutate`'s container-aware changes.  An escape is recorded (first input per
signature, with its traceback) and the run continues, so one bug does not end a campaign.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import random
import sys
import time
from pathlib import Path

import atheris

PACKAGES = ("bunzai", "bunzai_tavern", "bunzai_risu", "bunzai_backyard", "bunzai_voxta")


def _import_everything() -> None:
    """Import every module of the packages (test modules excluded) so all get instrumented."""
    for name in PACKAGES:
        try:
            pkg = importlib.import_module(name)
        except ImportError:
            continue
        for info in pkgutil.walk_packages(pkg.__path__, name + "."):
            if ".tests" in info.name or info.name.rsplit(".", 1)[-1].startswith("test_"):
                continue
            if info.name.startswith(("bunzai.cli", "bunzai.testing.kit",
                                     "bunzai.testing.plugin")):
                continue
            try:
                importlib.import_module(info.name)
            except Exception:  # an optional module (Pillow-backed) may not import
                continue


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--family", required=True)
    parser.add_argument("--findings", required=True)
    ours, _, libfuzzer = " ".join(sys.argv[1:]).partition(" -- ")
    args = parser.parse_args(ours.split())
    findings = Path(args.findings)

    with atheris.instrument_imports(include=list(PACKAGES)):
        _import_everything()
    from fuzz.harness import Escape, one_input, registry
    from fuzz.mutate import mutate

    registry()
    seen = {p.stem.split("-", 1)[-1] for p in findings.glob("*.bin")}
    counts = {"n": 0, "t": time.monotonic()}

    def test_one_input(data: bytes) -> None:
        counts["n"] += 1
        try:
            one_input(data)
        except Escape as esc:
            sid = esc.short_id()
            if sid not in seen:
                seen.add(sid)
                (findings / f"{args.family}-{sid}.bin").write_bytes(data)
                (findings / f"{args.family}-{sid}.txt").write_text(
                    f"{esc.signature}\n\n{esc.details()}")
                print(f"ESCAPE {esc.signature}", flush=True)

    def custom_mutator(data: bytes, max_size: int, seed: int) -> bytes:
        rng = random.Random(seed)
        if rng.random() < 0.5:
            return atheris.Mutate(data, max_size)
        return mutate(data, rng, atheris.Mutate, max_size)

    atheris.Setup([sys.argv[0], *libfuzzer.split()], test_one_input,
                  custom_mutator=custom_mutator)
    atheris.Fuzz()


if __name__ == "__main__":
    main()

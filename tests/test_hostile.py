"""The hostile corpus through the real CLI: the documented exit code, one clear line naming the
file, no traceback, bounded memory, and the input left untouched."""

from __future__ import annotations

import hashlib
import re
import tracemalloc
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bunzai.cli import app
from bunzai.host.registry import Registry, set_registry

from .hostile.cases import Case, all_cases

CASES = all_cases()
MEMORY_BOUND = 64 * 1024 * 1024
"""Peak Python allocation allowed beyond 8x the input size: bombs must be refused early."""


def test_there_are_at_least_100_cases() -> None:
    assert len(CASES) >= 100


def _materialize(tmp_path: Path, case: Case) -> Path:
    path = tmp_path / case.filename
    if case.data is None:
        path.mkdir()
    else:
        path.write_bytes(case.data)
    return path


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
@pytest.mark.parametrize("command", ["inspect", "convert"])
def test_hostile_case(registry: Registry, tmp_path: Path, case: Case, command: str) -> None:
    path = _materialize(tmp_path, case)
    before = hashlib.sha256(case.data).hexdigest() if case.data is not None else None
    args = ["inspect", str(path)] if command == "inspect" else [
        "convert", str(path), "--to", "vaud-json", "-o", str(tmp_path / "out.vaud.json")]
    set_registry(registry)
    tracemalloc.start()
    try:
        res = CliRunner().invoke(app, args)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
        set_registry(None)
    err = res.stderr
    codes = set(case.codes)
    if command == "convert" and 0 in codes:
        codes.add(5)  # a tolerant read may still be refused as a cross-kind conversion: never
    if command == "convert" and case.data is None:
        codes.add(2)  # convert takes a folder as a batch: without --out-dir that is a usage error
    assert res.exception is None or isinstance(res.exception, SystemExit), repr(res.exception)
    assert "Traceback" not in err and "Traceback" not in res.stdout
    assert res.exit_code in codes, (
        f"{case.name}: exit {res.exit_code}, expected one of {sorted(codes)}; stderr: {err!r}")
    if res.exit_code != 0:
        assert err.strip() and err.strip().count("\n") == 0, f"not one line: {err!r}"
        assert case.filename in err, f"the message does not name the file: {err!r}"
        if case.message:
            assert re.search(case.message, err, re.I), f"{err!r} !~ {case.message!r}"
    assert peak < MEMORY_BOUND + 8 * len(case.data or b""), f"peak {peak / 2**20:.1f} MiB"
    if before is not None:
        assert hashlib.sha256(path.read_bytes()).hexdigest() == before, "input was modified"

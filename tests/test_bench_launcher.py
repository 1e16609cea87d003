"""The benchmark's launcher reports what its runs did.

Figure 6 compares ``-j 2`` with two independent batches started together; if the launcher
reported the first run's status or only one run's CPU for such a group, that comparison would
be wrong without anyone noticing.  No timing is asserted here.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

LAUNCHER = Path(__file__).resolve().parents[1] / "bench" / "launch.py"


def _launch(tmp_path: Path, specs: list[dict[str, object]]) -> list[dict[str, float]]:
    plan = tmp_path / "plan.json"
    plan.write_text(json.dumps(specs), encoding="utf-8")
    out = subprocess.run([sys.executable, "-I", "-S", str(LAUNCHER), str(plan)],
                         check=True, capture_output=True, text=True).stdout
    result: list[dict[str, float]] = json.loads(out)
    return result


def _py(code: str, stdout: Path) -> dict[str, object]:
    return {"argv": [sys.executable, "-c", code], "stdout": str(stdout), "tree": False}


def test_a_group_runs_every_member_and_reports_the_worst_status(tmp_path: Path) -> None:
    burn = "import sys\nn = 0\nfor i in range(3_000_000): n += i\nprint(n)\n"
    runs = _launch(tmp_path, [
        {"together": [_py(burn, tmp_path / "a.txt"),
                      _py(burn + "sys.exit(3)\n", tmp_path / "b.txt")]},
        _py(burn, tmp_path / "c.txt"),
    ])
    group, single = runs
    expected = str(sum(range(3_000_000)))
    for name in ("a.txt", "b.txt", "c.txt"):
        assert (tmp_path / name).read_text().strip() == expected  # every member ran to the end
    assert group["status"] == 3
    assert single["status"] == 0
    # CPU is summed over the group's members: more than one member's share
    assert group["cpu"] > single["cpu"] * 1.2
    assert group["maxrss"] > 0 and group["seconds"] > 0

#!/usr/bin/env python3
"""Developer entry point: needs only Python >= 3.11 and pip; installs what each task needs.

    python dev.py demo     convert the bundled sample card (installs bunzai into .venv first)
    python dev.py test     run the whole test suite (installs bunzai and test tools first)
    python dev.py check    ruff on everything, mypy --strict on bunzai-core
    python dev.py docs     regenerate docs/FORMAT-SUPPORT.md and docs/formats/*.md

The virtual environment lives in ``.venv``; it is (re)installed when a pyproject changes.
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import sys
import venv
from pathlib import Path

ROOT = Path(__file__).resolve().parent
VENV = ROOT / ".venv"
BIN = VENV / ("Scripts" if os.name == "nt" else "bin")
PY = BIN / ("python.exe" if os.name == "nt" else "python")
MEMBERS = ["bunzai-core", "bunzai-formats-tavern", "bunzai-formats-risu",
           "bunzai-formats-backyard", "bunzai-formats-voxta", "bunzai-studio",
           # the worked third-party example: installed like any plugin, so the corpus's NovelAI
           # files go through the same firewall and matrix as the first-party formats
           "examples/bunzai-formats-novelai"]
# Pillow is not among them: the distributions that convert images depend on it themselves
DEV_TOOLS = ["pytest>=8", "hypothesis>=6", "jsonschema>=4", "ruff>=0.6", "mypy>=1.10",
             "httpx>=0.27", "playwright>=1.40"]
SAMPLE = ROOT / "examples" / "cards" / "bunzai-sample.png"


def run(*cmd: str | Path, check: bool = True) -> int:
    print("+", " ".join(str(c) for c in cmd), flush=True)
    return subprocess.run([str(c) for c in cmd], cwd=ROOT, check=check).returncode


def _stamp(extra: list[str]) -> str:
    h = hashlib.sha256()
    for m in MEMBERS:
        h.update((ROOT / m / "pyproject.toml").read_bytes())
    h.update(" ".join(extra).encode())
    return h.hexdigest()


def ensure_env(dev: bool) -> None:
    """Create .venv and install the workspace members (editable), plus test tools if asked."""
    if not PY.exists():
        print(f"creating {VENV}", flush=True)
        venv.create(VENV, with_pip=True)
    extra = DEV_TOOLS if dev else []
    stamp_file = VENV / (".bunzai-dev-stamp" if dev else ".bunzai-stamp")
    stamp = _stamp(extra)
    if stamp_file.exists() and stamp_file.read_text() == stamp:
        return
    args: list[str | Path] = [PY, "-m", "pip", "install", "--disable-pip-version-check", "-q"]
    for m in MEMBERS:
        args += ["-e", ROOT / m]
    run(*args, *extra)
    stamp_file.write_text(stamp)


def demo() -> int:
    ensure_env(dev=False)
    out = ROOT / "demo-output"
    out.mkdir(exist_ok=True)
    bunzai = BIN / "bunzai"
    run(bunzai, "inspect", SAMPLE)
    target = out / "bunzai-sample.charx"
    code = run(bunzai, "convert", SAMPLE, "--to", "risu-charx", "-o", target, "--force",
               check=False)
    if code == 0:
        run(bunzai, "inspect", target)
    return code


def test(args: list[str]) -> int:
    ensure_env(dev=True)
    return run(PY, "-m", "pytest", *args, check=False)


def check() -> int:
    ensure_env(dev=True)
    code = run(BIN / "ruff", "check", ".", check=False)
    code |= run(BIN / "mypy", "bunzai-core/src/bunzai", check=False)
    return code


def docs() -> int:
    ensure_env(dev=False)
    return run(PY, "-m", "bunzai.docgen", ROOT / "docs", check=False)


def main() -> int:
    if len(sys.argv) < 2 or sys.argv[1] in ("-h", "--help"):
        print(__doc__)
        return 0
    task, rest = sys.argv[1], sys.argv[2:]
    if task == "demo":
        return demo()
    if task == "test":
        return test(rest)
    if task == "check":
        return check()
    if task == "docs":
        return docs()
    print(f"unknown task {task!r}\n{__doc__}", file=sys.stderr)
    return 2


if __name__ == "__main__":
    try:
        status = main()
        sys.stdout.flush()
    except BrokenPipeError:  # the reader went away (dev.py --help | head): stop quietly
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        status = 0
    sys.exit(status)

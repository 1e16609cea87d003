#!/usr/bin/env python3
"""Developer entry point: needs only Python >= 3.11 and pip; installs what each task needs.

    python3 dev.py demo    convert the bundled sample card (installs bunzai into .venv first)
    python3 dev.py test    run the whole test suite (installs bunzai and test tools first)
    python3 dev.py check   ruff on everything, mypy --strict on bunzai-core
    python3 dev.py docs    regenerate docs/FORMAT-SUPPORT.md, docs/formats/*.md, docs/glossary.md
                           and docs/cli.md
    python3 dev.py apidocs render the Python API reference (pdoc) of bunzai, bunzai.sdk and
                           bunzai.sdk's modules as HTML into build/api/ (or the folder given)
    python3 dev.py dist    build a wheel and an sdist of every distribution into dist/ (or the
                           folder given) and check them with twine

The virtual environment lives in ``.venv``; it is (re)installed when a pyproject changes.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import tomllib
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
             "httpx>=0.27", "playwright>=1.40",
             # dist: builds without an isolated environment per build (seconds, not minutes)
             "build>=1.0", "hatchling>=1.20", "twine>=5",
             # the format template's tests render it, as a plugin author does
             "copier>=9",
             # apidocs: the Python API reference, rendered from the docstrings
             "pdoc>=14"]
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
    code = run(PY, "-m", "bunzai.engine.docgen", ROOT / "docs", check=False)
    return code | run(PY, "-m", "bunzai.cli.docgen", ROOT / "docs", check=False)


def pdoc_args() -> list[str]:
    """What pdoc is given: the public API (``bunzai``), the plugin API (``bunzai.sdk``) and the
    sdk's modules that plugins import; each page lists its module's ``__all__``."""
    sdk = ROOT / "bunzai-core" / "src" / "bunzai" / "sdk"
    modules = ["bunzai", "bunzai.sdk",
               *(f"bunzai.sdk.{p.stem}" for p in sorted(sdk.glob("*.py"))
                 if not p.name.startswith("_"))]
    return ["--docformat", "restructuredtext", *modules]


def apidocs(args: list[str]) -> int:
    ensure_env(dev=True)
    out = Path(args[0]).resolve() if args else ROOT / "build" / "api"
    code = run(PY, "-m", "pdoc", *pdoc_args(), "--output-directory", out, check=False)
    if code == 0:
        print(f"open {out / 'index.html'}")
    return code


def _toml(table: dict[str, object], prefix: str = "") -> str:
    """``table`` as TOML: enough for a pyproject of strings, lists of strings and tables (a JSON
    string or list of strings is also a TOML one)."""
    lines = [f"{k} = {json.dumps(v)}" for k, v in table.items() if not isinstance(v, dict)]
    text = "\n".join(lines) + ("\n" if lines else "")
    for key, value in table.items():
        if isinstance(value, dict):
            name = f"{prefix}.{key}" if prefix else key
            body = _toml(value, name)
            if any(not isinstance(v, dict) for v in value.values()):
                text += f"\n[{name}]\n"
            text += body
    return text


def _published_meta(stage: Path) -> None:
    """The root distribution ``bunzai`` as it is published, written into ``stage``.

    From a checkout it names the folders beside it (``bunzai-core @ {root:uri}/bunzai-core``);
    an index refuses such references and a user of the index has no such folders, so the
    published one names each distribution by the version in its folder (``~=0.1.0``).  Only
    the tables a build reads are kept: the workspace and tool settings stay in the checkout.
    """
    doc = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    project = doc["project"]
    deps = []
    for dep in project["dependencies"]:
        found = re.fullmatch(r"(\S+?)\s*@\s*\{root:uri\}/(\S+)", dep)
        if not found:
            deps.append(dep)
            continue
        member = tomllib.loads((ROOT / found[2] / "pyproject.toml").read_text(encoding="utf-8"))
        deps.append(f"{found[1]}~={member['project']['version']}")
    project["dependencies"] = deps
    hatch = dict(doc["tool"]["hatch"])
    hatch.pop("metadata", None)  # no direct references left to allow
    stage.mkdir(parents=True, exist_ok=True)
    text = _toml({"build-system": doc["build-system"], "project": project,
                  "tool": {"hatch": hatch}})
    (stage / "pyproject.toml").write_text(text, encoding="utf-8")
    shutil.copyfile(ROOT / project["readme"], stage / project["readme"])


def dist(args: list[str]) -> int:
    """Every distribution's sdist, then its wheel built from that sdist (so a file missing from
    the sdist fails here), into ``dist/`` or the folder given; then ``twine check``."""
    ensure_env(dev=True)
    out = Path(args[0]).resolve() if args else ROOT / "dist"
    out.mkdir(parents=True, exist_ok=True)
    for old in out.iterdir():  # earlier builds of ours only; anything else in the folder stays
        if old.name.startswith(("bunzai-", "bunzai_")) and old.name.endswith((".whl", ".tar.gz")):
            old.unlink()
    with tempfile.TemporaryDirectory(prefix="bunzai-meta-") as stage:
        _published_meta(Path(stage))
        for folder in [*MEMBERS, stage]:
            code = run(PY, "-m", "build", "--no-isolation", "--outdir", out, ROOT / folder,
                       check=False)
            if code:
                return code
    built = sorted(str(p) for p in out.iterdir()
                   if p.name.startswith(("bunzai-", "bunzai_"))
                   and p.name.endswith((".whl", ".tar.gz")))
    return run(PY, "-m", "twine", "check", "--strict", *built, check=False)


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
    if task == "apidocs":
        return apidocs(rest)
    if task == "dist":
        return dist(rest)
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

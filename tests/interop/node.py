"""The ecosystem's card libraries, installed from the committed lock file and run by Node.js.

``npm ci`` installs the versions ``package-lock.json`` names into a folder outside the
repository (pytest's temporary directory), once per test session; one Node process then
answers every check of the session (``checker.cjs``).  Without Node.js or npm the suite skips
with the reason, except under ``CI``, where it fails: a CI run that never met the libraries
must not pass.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path
from typing import Any, NoReturn

HERE = Path(__file__).resolve().parent
LOCK = HERE / "package-lock.json"
MANIFEST = HERE / "package.json"
CHECKER = HERE / "checker.cjs"

MIN_NODE = 18
"""Character Foundry's packages and the checker (``structuredClone``) need Node.js 18."""

LIBRARIES = ("@risuai/ccardlib", "character-card-utils", "@character-foundry/character-foundry")


class Unavailable(Exception):
    """Node.js or npm is not on this machine, or npm cannot install the locked libraries (a
    reason to skip, outside CI)."""


def locked_versions() -> dict[str, str]:
    """The version of each checked library as the lock file pins it."""
    packages = json.loads(LOCK.read_text(encoding="utf-8"))["packages"]
    return {name: packages[f"node_modules/{name}"]["version"] for name in LIBRARIES}


def install(into: Path) -> Path:
    """``npm ci`` of the lock file into ``into`` (outside the repository); returns it.

    Scripts are not run and optional dependencies (Character Foundry's image resizer, a native
    module the checks never call) are left out.
    """
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        missing = " and ".join(n for n, p in (("node", node), ("npm", npm)) if p is None)
        raise Unavailable(f"{missing} not found on PATH: the interop suite needs Node.js and "
                          "npm to run the card libraries")
    version = subprocess.run([node, "--version"], capture_output=True, text=True,
                             timeout=60, check=False).stdout.strip()
    major = version.lstrip("v").split(".")[0]
    if not major.isdigit() or int(major) < MIN_NODE:
        raise Unavailable(f"Node.js {version or '(unknown version)'} is too old: the card "
                          f"libraries need Node.js {MIN_NODE} or newer")
    into.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(MANIFEST, into / "package.json")
    shutil.copyfile(LOCK, into / "package-lock.json")
    done = subprocess.run(
        [npm, "ci", "--ignore-scripts", "--omit=optional", "--no-audit", "--no-fund",
         "--prefer-offline", "--loglevel=error"],
        cwd=into, capture_output=True, text=True, timeout=600, check=False)
    if done.returncode != 0:
        raise Unavailable(f"npm ci could not install the card libraries into {into} "
                          f"(exit {done.returncode}): {(done.stderr or done.stdout)[-1500:]}")
    return into


def unavailable(reason: str) -> NoReturn:
    """Skip the suite with ``reason``; under ``CI`` fail instead, so that a CI run which never
    met the libraries cannot pass."""
    import pytest

    if os.environ.get("CI"):
        pytest.fail(f"{reason} (CI is set: the interop suite must run there)", pytrace=False)
    pytest.skip(reason)


class Checker:
    """One Node process running ``checker.cjs``: a request is a list of items, the answer a
    list of results in the same order."""

    def __init__(self, prefix: Path) -> None:
        node = shutil.which("node")
        if node is None:
            raise Unavailable("node not found on PATH")
        self.prefix = prefix
        self.proc = subprocess.Popen(
            [node, str(CHECKER), str(prefix)], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=subprocess.PIPE, text=True, encoding="utf-8",
            env={**os.environ, "NODE_OPTIONS": "--max-old-space-size=2048"})

    def run(self, items: list[dict[str, Any]]) -> list[dict[str, Any]]:
        if not items:
            return []
        assert self.proc.stdin is not None and self.proc.stdout is not None
        try:
            self.proc.stdin.write(json.dumps({"items": items}, ensure_ascii=False) + "\n")
            self.proc.stdin.flush()
            line = self.proc.stdout.readline()
        except BrokenPipeError:
            line = ""
        if not line:
            err = self.proc.stderr.read() if self.proc.stderr is not None else ""
            raise RuntimeError(f"the Node checker stopped: {err[-4000:]}")
        results: list[dict[str, Any]] = json.loads(line)["results"]
        return results

    def close(self) -> None:
        if self.proc.poll() is None:
            assert self.proc.stdin is not None
            self.proc.stdin.close()
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()

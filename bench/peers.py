"""Peer libraries timed beside bunzai: Character Foundry, in one persistent Node process.

The npm packages are pinned by ``bench/node/package-lock.json`` and installed with ``npm ci``
into the benchmark's cache folder (never the repository), once per lock file, when a figure
first asks for them.  Importing this module installs nothing and starts nothing.

The Node worker (``bench/node/worker.mjs``) times its own calls with its own clock, a batch at a
time, so the JSON round trip between the processes is never inside a measurement; the Python
side asks for one batch per repetition, alternating with bunzai's batches.  When ``node`` or
``npm`` is missing, too old, or the install fails, :func:`setup` raises :class:`Unavailable`
with a one-line reason and the peer columns print it instead of figures.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

NODE_DIR = Path(__file__).resolve().parent / "node"
SCRIPTS = ("worker.mjs", "cold.mjs")
PACKAGE = "@character-foundry/character-foundry"
MIN_NODE = 18
INSTALL_TIMEOUT = 600.0


class Unavailable(Exception):
    """The peer cannot run here; the message says why, in one line."""


@dataclass
class Node:
    """A ready installation: the node binary and the folder holding the scripts and packages."""

    node: str
    home: Path
    node_version: str
    versions: dict[str, str] = field(default_factory=dict)
    """Installed version of each peer package, from its own package.json."""

    @property
    def cf_version(self) -> str:
        return self.versions.get(PACKAGE, "?")

    def cold_argv(self, card: str | Path) -> list[str]:
        """A fresh Node process importing Character Foundry and parsing ``card``."""
        return [self.node, str(self.home / "cold.mjs"), str(card)]

    def worker(self) -> Worker:
        return Worker(self)


def _lock_key(lock: bytes, package: bytes) -> str:
    return hashlib.sha256(package + b"\0" + lock).hexdigest()[:16]


def _node_version(node: str) -> str:
    try:
        out = subprocess.run([node, "--version"], capture_output=True, text=True, timeout=60,
                             check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError) as exc:
        raise Unavailable(f"node does not run: {exc}") from None
    m = re.match(r"v?(\d+)\.", out)
    if not m or int(m.group(1)) < MIN_NODE:
        raise Unavailable(f"node {out or '?'} is older than {MIN_NODE}")
    return out


_NOISE = re.compile(r"^(Node\.js v|at |\^|npm (error|ERR!) (code|syscall|errno|A complete log)\b"
                    r"|npm (error|ERR!)\s*$)")


def _reason(text: str) -> str:
    """The line of a tool's error output that says what went wrong (not the stack, the log
    path or the version banner)."""
    lines = [ln.strip() for ln in text.splitlines() if ln.strip()]
    useful = [ln for ln in lines if not _NOISE.match(ln)]
    for line in useful:
        if re.match(r"[A-Za-z]*Error\b", line):
            return line
    return useful[0] if useful else (lines[-1] if lines else "no output")


def setup(cache: Path, *, node: str | None = None, npm: str | None = None) -> Node:
    """Find Node, install the locked packages under ``cache`` if not done yet, copy the scripts.

    The install runs ``npm ci`` from the committed lock file (optional dependencies and install
    scripts left out: Character Foundry's image optimiser is not what is timed) into a folder
    named after the lock file's hash, and is reused while the lock file does not change.
    """
    node = node or shutil.which("node")
    if node is None:
        raise Unavailable("node is not on PATH")
    node_version = _node_version(node)
    package = (NODE_DIR / "package.json").read_bytes()
    lock = (NODE_DIR / "package-lock.json").read_bytes()
    home = cache / "node" / _lock_key(lock, package)
    done = home / ".complete"
    if not done.exists():
        npm = npm or shutil.which("npm")
        if npm is None:
            raise Unavailable("npm is not on PATH (needed once to install the peer packages)")
        home.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=home.name + ".", dir=home.parent))
        try:
            (staging / "package.json").write_bytes(package)
            (staging / "package-lock.json").write_bytes(lock)
            try:
                got = subprocess.run(
                    [npm, "ci", "--omit=optional", "--ignore-scripts", "--no-audit",
                     "--no-fund", "--loglevel=error"],
                    cwd=staging, capture_output=True, text=True, timeout=INSTALL_TIMEOUT)
            except (OSError, subprocess.SubprocessError) as exc:
                raise Unavailable(f"npm ci failed: {exc}") from None
            if got.returncode != 0:
                raise Unavailable(f"npm ci failed (exit {got.returncode}): "
                                  f"{_reason(got.stderr or got.stdout)}")
            (staging / ".complete").write_text("npm ci\n", encoding="utf-8")
            if home.exists():  # a stale or half-made folder from an interrupted run
                shutil.rmtree(home)
            os.replace(staging, home)
        finally:
            shutil.rmtree(staging, ignore_errors=True)
    for name in SCRIPTS:  # beside node_modules, so the scripts' imports resolve as a user's do
        src = (NODE_DIR / name).read_bytes()
        dst = home / name
        if not dst.exists() or dst.read_bytes() != src:
            tmp = dst.with_name(f"{name}.tmp{os.getpid()}")
            tmp.write_bytes(src)
            os.replace(tmp, dst)
    versions = {}
    for pkg in (PACKAGE,):
        try:
            meta = json.loads((home / "node_modules" / pkg / "package.json").read_text("utf-8"))
            versions[pkg] = str(meta["version"])
        except (OSError, ValueError, KeyError):
            raise Unavailable(f"{pkg} is missing from {home}") from None
    return Node(node, home, node_version, versions)


class WorkerError(Exception):
    """The worker refused a request (the library threw) or died."""


class Worker:
    """One persistent Node process answering JSON-line requests; see ``worker.mjs``."""

    def __init__(self, node: Node) -> None:
        self.node = node
        # a file, not a pipe: the worker never blocks on a full stderr; closed in close()
        self._stderr = tempfile.TemporaryFile()  # noqa: SIM115
        self._proc = subprocess.Popen(
            [node.node, "--expose-gc", str(node.home / "worker.mjs")], cwd=node.home,
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=self._stderr,
            text=True, encoding="utf-8", bufsize=1)
        self._next = 0
        hello = self.call({"op": "hello"})
        self.versions: dict[str, str] = hello.get("versions", {})

    @property
    def alive(self) -> bool:
        return self._proc.poll() is None

    def call(self, request: dict[str, Any]) -> dict[str, Any]:
        proc = self._proc
        stdin, stdout = proc.stdin, proc.stdout
        if stdin is None or stdout is None or proc.poll() is not None:
            raise WorkerError(f"the Node worker is not running{self._stderr_tail()}")
        try:
            stdin.write(json.dumps(request) + "\n")
            stdin.flush()
            line = stdout.readline()
        except (OSError, ValueError) as exc:
            raise WorkerError(f"the Node worker went away: {exc}") from None
        if not line:  # its output ended: let it finish exiting, then say what it printed
            with contextlib.suppress(subprocess.TimeoutExpired):
                proc.wait(timeout=10)
            raise WorkerError(f"the Node worker exited{self._stderr_tail()}")
        reply: dict[str, Any] = json.loads(line)
        if "error" in reply:
            raise WorkerError(str(reply["error"]))
        return reply

    def _stderr_tail(self) -> str:
        if self._proc.poll() is None:
            return ""
        self._stderr.seek(0)
        return ": " + _reason(self._stderr.read().decode("utf-8", "replace"))

    def open(self, path: str | Path, task: str) -> Handle:
        """Load ``path`` in the worker for ``task`` ("read", "read-lorebook" or "export") and
        run it once; raises :class:`WorkerError` with the library's message if it throws."""
        self._next += 1
        hid = self._next
        info = self.call({"op": "open", "id": hid, "path": str(Path(path).resolve()),
                          "task": task})
        return Handle(self, hid, info)

    def close(self) -> None:
        proc = self._proc
        if proc.poll() is None:
            stdin: IO[str] | None = proc.stdin
            try:
                if stdin is not None:
                    stdin.close()  # the worker exits at the end of its input
                proc.wait(timeout=10)
            except (OSError, subprocess.TimeoutExpired):
                proc.kill()
                proc.wait()
        if proc.stdout is not None:
            proc.stdout.close()
        self._stderr.close()

    def __enter__(self) -> Worker:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


@dataclass
class Handle:
    """One file loaded in the worker for one task: a :class:`timing.Remote` subject."""

    worker: Worker
    id: int
    info: dict[str, Any]
    """What the library returned on the first call (name, entries, format; see worker.mjs)."""

    def calibrate(self, batch_seconds: float, clock: str) -> int:
        return int(self.worker.call({"op": "calibrate", "id": self.id,
                                     "seconds": batch_seconds, "clock": clock})["n"])

    def batch(self, n: int, clock: str) -> float:
        return float(self.worker.call({"op": "batch", "id": self.id, "n": n,
                                       "clock": clock})["seconds"])

    def release(self) -> None:
        self.worker.call({"op": "close", "id": self.id})

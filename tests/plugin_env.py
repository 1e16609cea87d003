"""One fresh virtual environment per test session, with bunzai installed the way users install it.

The template and worked-example tests install third-party-style distributions next to
``bunzai-core`` (editable from this checkout) and drive them through their own ``bunzai`` and
``pytest`` executables.  Building a venv costs tens of seconds, so every test that needs one
shares this one: the venv is created without pip (the running interpreter's pip installs into
it with ``--python``), core, tavern and the tools are installed once, and each plugin is then
added with ``--no-build-isolation --no-deps`` (seconds).  Set ``BUNZAI_SKIP_VENV_TESTS=1`` to skip
these tests, e.g. on a machine without access to a package index.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
import venv
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
TOOLS = ("hatchling>=1.20", "editables", "pytest>=8", "copier>=9")


@dataclass
class PluginEnv:
    """A virtual environment holding bunzai-core and bunzai-formats-tavern (editable)."""

    path: Path

    @property
    def bin(self) -> Path:
        return self.path / ("Scripts" if os.name == "nt" else "bin")

    def env(self) -> dict[str, str]:
        """The caller's environment minus anything that would leak the outer interpreter in."""
        drop = ("PYTHONPATH", "PYTHONHOME", "VIRTUAL_ENV", "BUNZAI_LOAD_PLUGINS",
                "BUNZAI_DISABLE_PLUGIN_AUTOLOAD", "PYTEST_ADDOPTS", "PYTEST_PLUGINS")
        env = {k: v for k, v in os.environ.items() if k not in drop}
        env["PATH"] = f"{self.bin}{os.pathsep}{env.get('PATH', '')}"
        env["PIP_DISABLE_PIP_VERSION_CHECK"] = "1"
        return env

    def run(self, tool: str, *args: str | Path, cwd: Path | None = None,
            timeout: float = 300) -> subprocess.CompletedProcess[str]:
        """Run one of the venv's executables (``python``, ``bunzai``, ``copier``)."""
        return subprocess.run([str(self.bin / tool), *map(str, args)], cwd=cwd,
                              env=self.env(), capture_output=True, text=True, timeout=timeout)

    def pip(self, *args: str | Path) -> subprocess.CompletedProcess[str]:
        """pip from the interpreter running the tests, aimed at this venv (no ensurepip)."""
        return subprocess.run([sys.executable, "-m", "pip", "--python", str(self.bin / "python"),
                               *map(str, args)], env=self.env(), capture_output=True, text=True,
                              timeout=600)

    def install_editable(self, project: Path) -> None:
        """Add a plugin distribution; its dependencies (bunzai-core) are already here."""
        proc = self.pip("install", "-q", "--no-build-isolation", "--no-deps", "-e", project)
        assert proc.returncode == 0, f"pip install -e {project} failed:\n{proc.stderr[-3000:]}"


_shared: PluginEnv | None = None


def plugin_env() -> PluginEnv:
    """The session's venv, built on first use and removed when the interpreter exits."""
    global _shared
    if os.environ.get("BUNZAI_SKIP_VENV_TESTS"):
        pytest.skip("BUNZAI_SKIP_VENV_TESTS is set")
    if _shared is not None:
        return _shared
    path = Path(tempfile.mkdtemp(prefix="bunzai-plugin-env-"))
    import atexit
    atexit.register(shutil.rmtree, path, ignore_errors=True)
    venv.create(path, with_pip=False, symlinks=os.name != "nt")
    env = PluginEnv(path)
    steps = [
        ("install", "-q", *TOOLS),
        ("install", "-q", "--no-build-isolation",
         "-e", str(ROOT / "bunzai-core"), "-e", str(ROOT / "bunzai-formats-tavern")),
    ]
    for step in steps:
        proc = env.pip(*step)
        if proc.returncode != 0:
            pytest.fail(f"building the plugin test venv failed at {' '.join(step)}:\n"
                        f"{proc.stderr[-3000:]}", pytrace=False)
    _shared = env
    return env

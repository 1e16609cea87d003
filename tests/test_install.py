"""Installing bunzai the way a user does: the checkout's one command.

Each test makes a fresh virtual environment outside the checkout, installs with the real pip
(dependencies from the package index) and drives the installed ``bunzai`` command from a
folder outside the checkout, so nothing of the checkout can be imported by accident.  They
skip only when told to (``BUNZAI_SKIP_VENV_TESTS``, a machine without a package index), and
fail instead when ``CI`` is set.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tomllib
import venv
from pathlib import Path

import pytest

from bunzai.distributions import FIRST_PARTY

from .plugin_env import ROOT, PluginEnv

# the everything-distribution's members; the NovelAI example stays out of it
EVERYTHING = {"bunzai-core", "bunzai-formats-tavern", "bunzai-formats-risu",
              "bunzai-formats-backyard", "bunzai-formats-voxta", "bunzai-studio"}
NOVELAI_BOOK = ROOT / "examples/bunzai-formats-novelai/tests/samples/harbour-town.lorebook"


def _fresh(path: Path) -> PluginEnv:
    """An empty venv (no pip of its own: the running interpreter's pip installs into it)."""
    if os.environ.get("BUNZAI_SKIP_VENV_TESTS"):
        if os.environ.get("CI"):
            pytest.fail("BUNZAI_SKIP_VENV_TESTS is set in CI, where the install tests must run",
                        pytrace=False)
        pytest.skip("BUNZAI_SKIP_VENV_TESTS is set")
    venv.create(path, with_pip=False, symlinks=os.name != "nt")
    return PluginEnv(path)


def _pip(env: PluginEnv, *args: str | Path, cwd: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "pip", "--python", str(env.bin / "python"),
                           "install", "-q", *map(str, args)], cwd=cwd, env=env.env(),
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, f"pip install {args} failed:\n{proc.stderr[-3000:]}"


def _nothing_from_the_checkout(env: PluginEnv, cwd: Path, *modules: str) -> None:
    names = ", ".join(modules)
    code = f"import {names}; print('\\n'.join(m.__file__ for m in ({names},)))"
    proc = env.run("python", "-c", code, cwd=cwd)
    assert proc.returncode == 0, proc.stderr
    for where in proc.stdout.split():
        assert Path(where).resolve().is_relative_to(env.path.resolve()), \
            f"{where} is not installed in the venv"


def _inspect(env: PluginEnv, path: Path, cwd: Path) -> dict[str, object]:
    proc = env.run("bunzai", "inspect", "--json", path, cwd=cwd)
    assert proc.returncode == 0, f"bunzai inspect {path.name}: {proc.stderr}"
    found: dict[str, object] = json.loads(proc.stdout)
    return found


# -- the checkout: one command ---------------------------------------------------------------


def test_one_pip_command_installs_everything_from_a_checkout(tmp_path: Path) -> None:
    env = _fresh(tmp_path / "venv")
    (tmp_path / "bunzai").symlink_to(ROOT, target_is_directory=True)  # "cloned as bunzai"
    _pip(env, "./bunzai", cwd=tmp_path)  # pip install ./bunzai, beside the checkout

    plugins = json.loads(env.run("bunzai", "plugins", "--json", cwd=tmp_path).stdout)
    assert {d["name"] for d in plugins["distributions"]} == EVERYTHING
    _nothing_from_the_checkout(env, tmp_path, "bunzai", "bunzai_tavern", "bunzai_risu",
                               "bunzai_backyard", "bunzai_voxta", "bunzai_studio", "PIL")
    assert env.run("bunzai", "studio", "--help", cwd=tmp_path).returncode == 0
    card = _inspect(env, ROOT / "examples/cards/bunzai-sample.png", tmp_path)
    assert card["format"] == "sillytavern"

    # the NovelAI example is not part of it: its lorebook says where its reader is, and the
    # checkout command the hint gives, run in the checkout, installs that reader
    both_ways = (r"bunzai-formats-novelai: pip install bunzai-formats-novelai \(from a package "
                 r"index\) or pip install (\S+) \(from a bunzai checkout\)")
    for book in (NOVELAI_BOOK, NOVELAI_BOOK.with_suffix(".png")):  # .lorebook, and naidata
        proc = env.run("bunzai", "inspect", book, cwd=tmp_path)
        assert proc.returncode == 3
        hint = re.search(f"this looks like a NovelAI lorebook, read by {both_ways}", proc.stderr)
        assert hint, proc.stderr
    proc = env.run("bunzai", "convert", NOVELAI_BOOK, "--to", "novelai", "-o",
                   tmp_path / "out.lorebook", cwd=tmp_path)
    assert proc.returncode == 2 and re.search(f"novelai comes with {both_ways}", proc.stderr)
    _pip(env, hint[1], cwd=ROOT)
    assert _inspect(env, NOVELAI_BOOK, tmp_path)["format"] == "novelai-lorebook"


# -- the hints name a real folder of the checkout ---------------------------------------------


def test_every_install_hint_names_a_folder_of_the_checkout_holding_that_distribution() -> None:
    for dist in FIRST_PARTY:
        folder = ROOT / dist.checkout_path
        toml = folder / "pyproject.toml"
        assert toml.is_file(), f"{dist.name}: no {dist.checkout_path} in the checkout"
        assert tomllib.loads(toml.read_text(encoding="utf-8"))["project"]["name"] == dist.name

"""Installing bunzai the way a user does: the checkout's one command, and the built wheels.

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
import tarfile
import tomllib
import venv
import zipfile
from email.parser import HeaderParser
from pathlib import Path

import pytest

from bunzai.host.hints import FIRST_PARTY

from .plugin_env import ROOT, PluginEnv

# the everything-distribution's members; the NovelAI example stays out of it
EVERYTHING = {"bunzai-core", "bunzai-formats-tavern", "bunzai-formats-risu",
              "bunzai-formats-backyard", "bunzai-formats-voxta", "bunzai-studio"}
NOVELAI_BOOK = ROOT / "examples/bunzai-formats-novelai/tests/samples/harbour-town.lorebook"

BOOK = {"entries": {"0": {
    "uid": 0, "key": ["lighthouse"], "keysecondary": [], "comment": "The lighthouse",
    "content": "The lighthouse on the point has been dark since the storm.", "constant": False,
    "selective": True, "order": 100, "position": 0, "disable": False}}}
CHAT = [
    {"user_name": "Rowan", "character_name": "Pell Ashdown",
     "create_date": "2024-05-01@12h00m00s", "chat_metadata": {}},
    {"name": "Pell Ashdown", "is_user": False, "is_system": False,
     "send_date": "May 1, 2024 12:00pm", "mes": "The tide is out. Mind the rocks.", "extra": {}},
    {"name": "Rowan", "is_user": True, "is_system": False,
     "send_date": "May 1, 2024 12:01pm", "mes": "I brought the lantern oil.", "extra": {}},
]


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


def _project_names() -> set[str]:
    """Every distribution in the checkout: the root and each folder with a pyproject."""
    tomls = [ROOT / "pyproject.toml", *ROOT.glob("*/pyproject.toml"),
             *ROOT.glob("examples/*/pyproject.toml")]
    names = set()
    for toml in tomls:
        project = tomllib.loads(toml.read_text(encoding="utf-8")).get("project")
        if project:
            names.add(project["name"])
    return names


def _metadata(artifact: Path) -> dict[str, list[str]]:
    """The core metadata of a wheel (METADATA) or an sdist (PKG-INFO), field by field."""
    if artifact.name.endswith(".whl"):
        with zipfile.ZipFile(artifact) as z:
            text = z.read(next(n for n in z.namelist()
                               if n.endswith(".dist-info/METADATA"))).decode()
    else:
        with tarfile.open(artifact) as t:
            member = next(m for m in t.getmembers() if m.name.count("/") == 1
                          and m.name.endswith("/PKG-INFO"))
            handle = t.extractfile(member)
            assert handle is not None
            text = handle.read().decode()
    msg = HeaderParser().parsestr(text)
    return {key: msg.get_all(key) or [] for key in set(msg.keys())}


# -- the checkout: one command ---------------------------------------------------------------


def test_one_pip_command_installs_everything_from_a_checkout(tmp_path: Path) -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    install = readme.split("## Install", 1)[1].split("\n## ", 1)[0]
    assert "\npip install ./bunzai\n" in install and "\npipx install ./bunzai " in install
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


# -- python3 dev.py dist: every distribution's wheel and sdist --------------------------------


def test_dist_builds_every_distribution_and_the_wheels_read_every_family(tmp_path: Path) -> None:
    out = tmp_path / "dist"
    proc = subprocess.run([sys.executable, str(ROOT / "dev.py"), "dist", str(out)], cwd=ROOT,
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, f"dev.py dist failed:\n{proc.stdout[-3000:]}{proc.stderr[-3000:]}"
    wheels = sorted(out.glob("*.whl"))
    sdists = sorted(out.glob("*.tar.gz"))
    expected = _project_names()
    assert {_metadata(w)["Name"][0] for w in wheels} == expected
    assert {_metadata(s)["Name"][0] for s in sdists} == expected
    assert proc.stdout.count("PASSED") == 2 * len(expected)  # twine check, one per artifact
    # the published `bunzai` names its members by version: an index refuses folders
    meta = next(w for w in wheels if _metadata(w)["Name"] == ["bunzai"])
    requires = _metadata(meta)["Requires-Dist"]
    assert {re.split(r"[\[~<>=!; ]", r, maxsplit=1)[0] for r in requires} == EVERYTHING
    assert not [r for r in requires if "@" in r or "file:" in r], requires

    env = _fresh(tmp_path / "venv")
    _pip(env, *wheels, cwd=tmp_path)
    _nothing_from_the_checkout(env, tmp_path, "bunzai", "bunzai_tavern", "bunzai_risu",
                               "bunzai_backyard", "bunzai_voxta", "bunzai_studio",
                               "bunzai_novelai")
    files = tmp_path / "files"
    files.mkdir()
    charx = files / "card.charx"
    made = env.run("bunzai", "convert", ROOT / "examples/cards/bunzai-sample.png",
                   "--to", "risu-charx", "-o", charx, cwd=tmp_path)
    assert made.returncode == 0, made.stderr
    (files / "book.json").write_text(json.dumps(BOOK), encoding="utf-8")
    (files / "chat.jsonl").write_text("".join(json.dumps(m) + "\n" for m in CHAT),
                                      encoding="utf-8")
    family = {
        ROOT / "examples/cards/bunzai-sample.png": "sillytavern",
        charx: "risu-charx",
        ROOT / "bunzai-formats-backyard/src/bunzai_backyard/byaf/tests/samples/"
               "byaf-chat-regenerated-replies.byaf": "backyard-byaf",
        ROOT / "bunzai-formats-voxta/tests/samples/voxta-character-export.voxpkg": "voxta",
        files / "book.json": "sillytavern-lorebook",
        files / "chat.jsonl": "sillytavern-chat",
        NOVELAI_BOOK: "novelai-lorebook",
    }
    for path, fmt in family.items():
        seen = _inspect(env, path, tmp_path)
        assert (seen["format"], seen["status"]) == (fmt, "ok"), path.name


# -- the hints name a real folder of the checkout ---------------------------------------------


def test_every_install_hint_names_a_folder_of_the_checkout_holding_that_distribution() -> None:
    for dist in FIRST_PARTY:
        folder = ROOT / dist.checkout_path
        toml = folder / "pyproject.toml"
        assert toml.is_file(), f"{dist.name}: no {dist.checkout_path} in the checkout"
        assert tomllib.loads(toml.read_text(encoding="utf-8"))["project"]["name"] == dist.name


# -- the documents say what works -------------------------------------------------------------


def test_readme_installs_before_the_developer_quick_start_and_says_python3() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert 0 < readme.index("\n## Install\n") < readme.index("\n## Quick start")
    quick = readme.split("\n## Quick start", 1)[1].split("\n## ", 1)[0]
    assert "\npython3 dev.py demo " in quick and "\npython3 dev.py test " in quick
    # Debian and Ubuntu have no `python`; every command the README gives says python3
    assert not re.findall(r"(?<![\w/.-])python (?:dev\.py|-m)", readme)
    help_text = subprocess.run([sys.executable, str(ROOT / "dev.py"), "--help"],
                               capture_output=True, text=True, timeout=60).stdout
    for task in ("demo", "test", "dist"):
        assert f"python3 dev.py {task}" in help_text


def test_install_page_is_linked_and_every_folder_it_installs_exists() -> None:
    page = (ROOT / "docs/install.md").read_text(encoding="utf-8")
    assert "(install.md)" in (ROOT / "docs/README.md").read_text(encoding="utf-8")
    assert "(docs/install.md)" in (ROOT / "README.md").read_text(encoding="utf-8")
    for needed in ("pipx install ./bunzai", "pip install ./bunzai", "Pillow", "pip uninstall",
                   "pipx uninstall bunzai", "git -C bunzai pull", "python3 dev.py dist"):
        assert needed in page, needed
    studio = (ROOT / "bunzai-studio/README.md").read_text(encoding="utf-8")
    assert re.search(r"^pip install \./bunzai\b", studio, re.M)
    assert not re.search(r"^pip install bunzai-studio\b", studio, re.M)
    docs = page + studio + (ROOT / "README.md").read_text(encoding="utf-8")
    folders = re.findall(r"(?:pip install|pipx install|pipx inject bunzai)((?: \./\S+)+)", docs)
    assert folders
    for group in folders:
        for arg in group.split():
            arg = arg.rstrip("`.,;)")
            # `./bunzai/…` is from the folder holding the checkout; `./…` from inside it
            if arg == "./bunzai" or arg.startswith("./bunzai/"):
                rel = arg.removeprefix("./bunzai").removeprefix("/")
            else:
                rel = arg.removeprefix("./")
            assert (ROOT / rel / "pyproject.toml").is_file(), f"{arg} names no distribution"

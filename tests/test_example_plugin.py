"""The worked example plugin installs like any third-party plugin and works through the CLI.

``examples/bunzai-formats-novelai`` is pip-installed into a fresh virtual environment beside
bunzai-core and bunzai-formats-tavern (editable from this checkout) and driven through that
environment's own ``bunzai``: listed, detected, converted to SillyTavern World Info.  Core is
not touched: the plugin arrives through its entry point alone.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from .plugin_env import ROOT, PluginEnv, plugin_env

EXAMPLE = ROOT / "examples" / "bunzai-formats-novelai"
SAMPLES = EXAMPLE / "tests" / "samples"


@pytest.fixture(scope="module")
def env() -> PluginEnv:
    env = plugin_env()
    env.install_editable(EXAMPLE)
    return env


def bunzai_json(env: PluginEnv, *args: str | Path) -> dict[str, object]:
    proc = env.run("bunzai", *args, "--json")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return json.loads(proc.stdout)  # type: ignore[no-any-return]


def test_bunzai_formats_lists_the_plugin(env: PluginEnv) -> None:
    proc = env.run("bunzai", "formats")
    assert re.search(r"^novelai-lorebook\s+lorebook\s+rw\s+NovelAI lorebook", proc.stdout,
                     re.M), proc.stdout
    plugins = bunzai_json(env, "plugins")
    dists = {d["name"]: d for d in plugins["distributions"]}  # type: ignore[attr-defined]
    assert dists["bunzai-formats-novelai"]["adapters"][0]["format"] == "novelai-lorebook"
    assert dists["bunzai-formats-novelai"]["compatible"] is True
    assert plugins["broken"] == []


@pytest.mark.parametrize("name", ["harbour-town.lorebook", "early-version.lorebook",
                                  "harbour-town.png"])
def test_its_files_are_detected(env: PluginEnv, name: str) -> None:
    got = bunzai_json(env, "inspect", SAMPLES / name)
    assert (got["format"], got["kind"], got["status"]) == ("novelai-lorebook", "lorebook", "ok")


def test_convert_turns_a_lorebook_into_sillytavern_world_info(env: PluginEnv,
                                                              tmp_path: Path) -> None:
    formats = env.run("bunzai", "formats").stdout
    if not re.search(r"^sillytavern-lorebook\s", formats, re.M):
        pytest.skip("sillytavern-lorebook is not installed (bunzai-formats-tavern has no such "
                    "adapter yet)")
    out = tmp_path / "saltmere.json"
    got = bunzai_json(env, "convert", SAMPLES / "harbour-town.lorebook", "--to",
                      "sillytavern-lorebook", "-o", out)
    assert (got["format"], got["to"]) == ("novelai-lorebook", "sillytavern-lorebook")
    # NovelAI's own settings are reported key by key (a search range that is not NovelAI's
    # default, the context settings); layout and default values are not losses
    paths = {e["path"] for e in got["loss"]}  # type: ignore[attr-defined]
    assert {"entries[1].app_data.novelai-lorebook.searchRange",
            "entries[1].app_data.novelai-lorebook.keyRelative",
            "entries[1].app_data.novelai-lorebook.contextConfig.prefix",
            "app_data.novelai-lorebook.categories"} <= paths
    assert "entries[0].app_data.novelai-lorebook.searchRange" not in paths  # 1000: the default
    assert not [p for p in paths if "passthrough" in p]
    world = json.loads(out.read_text(encoding="utf-8"))
    entries = sorted(world["entries"].values(), key=lambda e: e["uid"])
    assert [e["comment"] for e in entries] == ["Saltmere", "Marta Vell", "The Drowned Bell"]
    assert [e["disable"] for e in entries] == [False, False, True]
    assert bunzai_json(env, "inspect", out)["format"] == "sillytavern-lorebook"


def test_the_example_passes_its_own_tests(env: PluginEnv) -> None:
    proc = env.run("python", "-m", "pytest", "-q", "-p", "no:cacheprovider", cwd=EXAMPLE)
    assert proc.returncode == 0, proc.stdout[-5000:] + proc.stderr[-2000:]
    assert re.search(r"\d+ passed", proc.stdout)

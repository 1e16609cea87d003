"""``bunzai plugins --json``: per distribution, the adapter API it was built for and whether
this bunzai can run it, including distributions whose adapters were refused for it."""

from __future__ import annotations

import json
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bunzai.engine.roster import plugins_json
from bunzai.host.registry import Registry, set_registry

ADAPTER = '''
from bunzai.host.adapter import FormatAdapter
class A(FormatAdapter):
    format_id = "{fid}"
    kind = "regex"
    label = "api test"
    api_version = {api}
    def detect(self, input):
        return 0.0
'''


def add_dist(site: Path, dist: str, source: str, fid: str) -> None:
    module = dist.replace("-", "_")
    (site / f"{module}.py").write_text(textwrap.dedent(source), encoding="utf-8")
    info = site / f"{module}-2.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 2.0\n")
    (info / "entry_points.txt").write_text(f"[bunzai.formats]\n{fid} = {module}:A\n")


@pytest.fixture
def registry(tmp_path: Path) -> Iterator[Registry]:
    add_dist(tmp_path, "bzj-current", ADAPTER.format(fid="bzj-now", api=1), "bzj-now")
    add_dist(tmp_path, "bzj-future", ADAPTER.format(fid="bzj-later", api=7), "bzj-later")
    add_dist(tmp_path, "bzj-broken", "raise ImportError('the vendor API moved')\n", "bzj-oops")
    sys.path.insert(0, str(tmp_path))
    try:
        yield Registry.load(environ={"BUNZAI_LOAD_PLUGINS": "bzj-current,bzj-future,bzj-broken"})
    finally:
        sys.path.remove(str(tmp_path))
        for name in [m for m in sys.modules if m.startswith("bzj_")]:
            del sys.modules[name]


def test_each_distribution_states_its_api_version_and_compatibility(registry: Registry) -> None:
    data = plugins_json(registry)
    assert data["api_versions_supported"] == [1]
    dists = {d["name"]: d for d in data["distributions"]}
    assert (dists["bzj-current"]["api_versions"], dists["bzj-current"]["compatible"]) == ([1], True)
    assert dists["bzj-current"]["version"] == "2.0"
    assert dists["bunzai-core"]["compatible"] is True
    # Refused for its API version: still listed, with the version it was built for.
    assert (dists["bzj-future"]["api_versions"], dists["bzj-future"]["compatible"]) == ([7], False)
    assert dists["bzj-future"]["adapters"] == []
    # An import error is a broken plugin, not an API incompatibility.
    assert (dists["bzj-broken"]["api_versions"], dists["bzj-broken"]["compatible"]) == ([], True)
    broken = {b["name"]: b for b in data["broken"]}
    assert broken["bzj-later"]["api_version"] == 7 and "API 7" in broken["bzj-later"]["reason"]
    assert broken["bzj-oops"]["api_version"] is None


def test_the_cli_prints_the_same_and_flags_incompatible_distributions(registry: Registry) -> None:
    from bunzai.cli import app

    set_registry(registry)
    try:
        as_json = CliRunner().invoke(app, ["plugins", "--json"])
        text = CliRunner().invoke(app, ["plugins"])
    finally:
        set_registry(None)
    assert as_json.exit_code == 0 and json.loads(as_json.stdout) == plugins_json(registry)
    assert "bzj-future 2.0  INCOMPATIBLE" in text.stdout
    assert "bzj-current 2.0\n" in text.stdout

"""Broken third-party plugins next to the real ones: the real CLI (a subprocess, with the plugins
found through entry points on ``PYTHONPATH``) still answers for every other format.

The plugins fail in each way a careless plugin can: on import, in ``bunzai_format_info``, by
raising (or calling ``sys.exit``) in ``detect``, by returning garbage from ``detect`` or ``read``,
by raising in ``write``, and by taking long in ``detect`` (reported against the time budget,
never killed).  A deliberately malicious plugin runs with the user's rights and is out of scope.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from .hostile.cases import card_v2, png_card

_ADAPTER = '''
from bunzai.host.adapter import FormatAdapter

class Adapter(FormatAdapter):
    format_id = "{fid}"
    kind = "character"
    label = "{fid} test plugin"
    suffix = ".bzt"
'''


def _adapter(methods: str) -> tuple[str, str]:
    return _ADAPTER + textwrap.indent(textwrap.dedent(methods), "    "), "Adapter"

PLUGINS: dict[str, tuple[str, str]] = {
    # distribution: (module source, entry-point object)
    "bzt-import-fails": ("raise RuntimeError('this plugin is broken at import')\n", "X"),
    "bzt-info-fails": _adapter('''
            @classmethod
            def info(cls):
                raise KeyError("no info")
        '''),
    "bzt-detect-raises": _adapter('''
            def detect(self, input):
                return {}["boom"]
        '''),
    "bzt-detect-garbage": _adapter('''
            def detect(self, input):
                return "definitely mine" if input.data[:1] == b"{" else float("nan")
        '''),
    "bzt-detect-exits": _adapter('''
            def detect(self, input):
                import sys
                sys.exit("a plugin that calls exit() from detect")
        '''),
    "bzt-detect-out-of-range": _adapter('''
            def detect(self, input):
                return 7.5
        '''),
    "bzt-read-garbage": _adapter('''
            def detect(self, input):
                return 0.95 if input.data.startswith(b"GARBAGE") else 0.0
            def read(self, input, options):
                return {"not": "an entity"}
            def write(self, entity, options):
                raise ZeroDivisionError("write is broken")
        '''),
    "bzt-slow": _adapter('''
            def detect(self, input):
                import time
                time.sleep(0.7)
                return 0.0
        '''),
}


def _fid(dist: str) -> str:
    return dist + "-format"


@pytest.fixture(scope="module")
def plugin_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("plugins")
    for dist, (source, obj) in PLUGINS.items():
        module = dist.replace("-", "_")
        (root / f"{module}.py").write_text(source.replace("{fid}", _fid(dist)))
        info = root / f"{module}-1.0.dist-info"
        info.mkdir()
        (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n")
        (info / "entry_points.txt").write_text(
            f"[bunzai.formats]\n{_fid(dist)} = {module}:{obj}\n")
    return root


@pytest.fixture(scope="module")
def files(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    root = tmp_path_factory.mktemp("files")
    made = {"png": root / "card.png", "json": root / "card.json",
            "garbage": root / "odd.bzt", "out": root / "out"}
    made["png"].write_bytes(png_card())
    made["json"].write_bytes(json.dumps(card_v2()).encode())
    made["garbage"].write_bytes(b"GARBAGE, claimed by a plugin whose reader returns junk")
    made["out"].mkdir()
    return made


def _bunzai(plugin_path: Path, *args: str | Path, budget: str | None = None,
            timeout: float = 120) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items()
           if k not in ("BUNZAI_LOAD_PLUGINS", "BUNZAI_DISABLE_PLUGIN_AUTOLOAD",
                        "BUNZAI_DEBUG")}
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(plugin_path),
                                                      env.get("PYTHONPATH", "")]))
    if budget is not None:
        env["BUNZAI_DETECT_BUDGET"] = budget
    return subprocess.run([sys.executable, "-c", "from bunzai.cli import main; main()",
                           *map(str, args)], env=env, capture_output=True, text=True,
                          timeout=timeout)


def _clean(proc: subprocess.CompletedProcess[str]) -> None:
    assert "Traceback" not in proc.stderr and "internal error" not in proc.stderr, proc.stderr


@pytest.fixture(scope="module")
def inspect_png(plugin_path: Path, files: dict[str, Path]) -> dict[str, Any]:
    proc = _bunzai(plugin_path, "inspect", files["png"], "--json")
    _clean(proc)
    assert proc.returncode == 0, proc.stderr
    return dict(json.loads(proc.stdout))


def test_the_broken_plugins_are_quarantined_with_their_reason(plugin_path: Path) -> None:
    proc = _bunzai(plugin_path, "plugins", "--json")
    _clean(proc)
    assert proc.returncode == 0
    broken = {b["distribution"]: b["reason"] for b in json.loads(proc.stdout)["broken"]}
    assert "broken at import" in broken["bzt-import-fails"]
    assert "bunzai_format_info failed" in broken["bzt-info-fails"]
    proc = _bunzai(plugin_path, "formats")
    assert "sillytavern " in proc.stdout and "bzt-slow-format" in proc.stdout


def test_inspect_still_answers_for_a_real_card(inspect_png: dict[str, Any]) -> None:
    assert inspect_png["format"] == "sillytavern" and inspect_png["status"] == "ok"
    assert inspect_png["entities"][0]["name"] == "Tidewatcher"


def test_detector_faults_are_listed_not_fatal(inspect_png: dict[str, Any]) -> None:
    faults = {f["format"]: f["message"] for f in inspect_png["faults"]}
    assert "KeyError" in faults[_fid("bzt-detect-raises")]
    assert "NaN" in faults[_fid("bzt-detect-garbage")]  # a PNG does not start with "{"
    assert "outside 0..1" in faults[_fid("bzt-detect-out-of-range")]
    assert "SystemExit" in faults[_fid("bzt-detect-exits")]
    assert _fid("bzt-slow") not in faults


def test_a_garbage_score_on_json_is_a_fault_too(plugin_path: Path,
                                                files: dict[str, Path]) -> None:
    proc = _bunzai(plugin_path, "inspect", files["json"], "--json")
    _clean(proc)
    body = json.loads(proc.stdout)
    assert proc.returncode == 0 and body["format"] == "sillytavern"
    faults = {f["format"]: f["message"] for f in body["faults"]}
    assert "not a number" in faults[_fid("bzt-detect-garbage")]


def test_a_slow_detector_is_reported_against_the_budget(inspect_png: dict[str, Any]) -> None:
    slow = {a["format"]: a["seconds"] for a in inspect_png["slow_adapters"]}
    assert slow[_fid("bzt-slow")] >= 0.7
    assert inspect_png["detect_budget"] == 0.5
    assert all(s > 0.5 for s in slow.values())


def test_the_budget_is_configurable_and_shown_to_people(plugin_path: Path,
                                                        files: dict[str, Path]) -> None:
    proc = _bunzai(plugin_path, "inspect", files["png"], budget="5")
    _clean(proc)
    assert proc.returncode == 0 and "slow adapter" not in proc.stdout
    proc = _bunzai(plugin_path, "inspect", files["png"], budget="0.25")
    assert "slow adapter bzt-slow-format: detect took" in proc.stdout
    assert "budget 0.25 s" in proc.stdout
    assert "adapter fault bzt-detect-raises-format: KeyError" in proc.stdout


def test_convert_and_validate_still_work(plugin_path: Path, files: dict[str, Path]) -> None:
    target = files["out"] / "card.charx"
    proc = _bunzai(plugin_path, "convert", files["png"], "--to", "charx", "-o", target)
    _clean(proc)
    assert proc.returncode == 0 and target.read_bytes()[:2] == b"PK"
    proc = _bunzai(plugin_path, "validate", files["json"])
    _clean(proc)
    assert proc.returncode in (0, 1)


def test_a_plugin_reader_returning_garbage_is_a_clean_error(plugin_path: Path,
                                                            files: dict[str, Path]) -> None:
    proc = _bunzai(plugin_path, "inspect", files["garbage"])
    _clean(proc)
    assert proc.returncode == 4
    err = proc.stderr.strip()
    assert err.count("\n") == 0 and "odd.bzt" in err and "bzt-read-garbage-format" in err


def test_a_plugin_writer_that_raises_is_a_clean_error(plugin_path: Path,
                                                      files: dict[str, Path]) -> None:
    proc = _bunzai(plugin_path, "convert", files["json"], "--to", _fid("bzt-read-garbage"),
                   "-o", files["out"] / "x.bzt")
    _clean(proc)
    assert proc.returncode == 5 and "could not write" in proc.stderr
    assert not (files["out"] / "x.bzt").exists()

"""``--json``'s ``status`` and the exit code tell the same story, on every command that prints
both, through the installed ``bunzai`` script (subprocess) on real and sample files.

A file bunzai cannot read is never ``"ok"`` next to an error, and a broken container is not
``"unrecognized"`` when the exit code says it is malformed; a forced ``--from`` that fails says
what detection finds in the file.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bunzai.testing import corpus_files, require_corpus, samples_dir

require_corpus()

BUNZAI = shutil.which("bunzai", path=str(Path(sys.executable).parent)) or "bunzai"
SCENARIO_ONLY = next(p for p in corpus_files("voxpkg") if "Desktop_Critics" in p.name)
RISUM_V1 = samples_dir() / "risu" / "gen_malformed_version1.risum"
TRUNCATED_LOREBOOK = next(p for p in corpus_files("nai-lorebook") if "Ripple" in p.name)
CARD = next(p for p in corpus_files("ccv2-json") if "minimal_v2" in p.name)
NOT_A_CARD = next(p for p in corpus_files("negative") if p.suffix == ".png")
BROKEN = (SCENARIO_ONLY, RISUM_V1, TRUNCATED_LOREBOOK)

WORDS = {0: {"ok", "valid", "warnings"}, 1: {"invalid"}, 2: {"usage"},
         3: {"unrecognized", "ambiguous"}, 4: {"unreadable"}, 5: {"refused"}}
"""The status words each exit code allows (validate says valid/warnings/invalid when it read)."""


def bunzai(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([BUNZAI, *map(str, args)], capture_output=True, text=True,
                          timeout=120)


def records(res: subprocess.CompletedProcess[str]) -> dict[str, dict[str, object]]:
    return {d["path"]: d for d in map(json.loads, res.stdout.splitlines())}


@pytest.mark.parametrize("command", [["inspect"], ["validate"], ["validate", "--strict"],
                                     ["label"]])
def test_status_agrees_with_the_exit_code(command: list[str]) -> None:
    files = [*BROKEN, CARD, NOT_A_CARD]
    res = bunzai(*command, "--json", *files)
    found = records(res)
    assert set(found) == {str(f) for f in files}, res.stderr
    codes = []
    for path, doc in found.items():
        code = int(doc.get("exit_code", 1 if doc.get("valid") is False else 0))  # type: ignore[call-overload]
        codes.append(code)
        assert doc["status"] in WORDS[code], (path, doc["status"], code)
    assert res.returncode == max(codes)
    for broken in BROKEN:
        doc = found[str(broken)]
        assert (doc["status"], doc["exit_code"]) == ("unreadable", 4), doc
    assert found[str(NOT_A_CARD)]["status"] == "unrecognized"
    assert found[str(CARD)]["status"] in ("ok", "valid", "warnings")


def test_extract_assets_refused_says_refused(tmp_path: Path) -> None:
    (tmp_path / "manifest.json").write_text("{}")
    res = bunzai("extract", CARD, "--assets", tmp_path, "--json")
    doc = json.loads(res.stdout)
    assert res.returncode == doc["exit_code"] == 5, res.stderr
    assert doc["status"] == "refused"
    res = bunzai("extract", SCENARIO_ONLY, "--assets", tmp_path / "x", "--json")
    doc = json.loads(res.stdout)
    assert (res.returncode, doc["status"]) == (4, "unreadable")


def test_a_forced_format_that_fails_names_what_detection_finds() -> None:
    res = bunzai("inspect", "--from", "risu-module", CARD, "--json")
    doc = json.loads(res.stdout)
    assert (res.returncode, doc["status"], doc["format"], doc["detected"]) == (
        4, "unreadable", "risu-module", "sillytavern")
    assert "detection finds sillytavern" in str(doc["error"])
    res = bunzai("convert", "--from", "novelai-lorebook", "--to", "json", CARD, "-o", "-")
    assert res.returncode == 4
    assert str(CARD) in res.stderr and "detection finds sillytavern" in res.stderr, res.stderr


def test_a_forced_format_on_a_file_detection_cannot_place_says_so() -> None:
    res = bunzai("validate", "--from", "novelai-lorebook", "--json", TRUNCATED_LOREBOOK)
    doc = json.loads(res.stdout)
    assert (res.returncode, doc["status"]) == (4, "unreadable")
    assert "detection recognises no format in it" in str(doc["error"]), doc


def test_a_damaged_file_of_the_forced_format_says_detection_agrees(tmp_path: Path) -> None:
    from tests.hostile.cases import all_cases

    bad = tmp_path / "card.png"
    bad.write_bytes(next(c.data for c in all_cases() if c.name == "png-chara-garbage"))
    res = bunzai("inspect", "--json", "--from", "sillytavern", bad)
    doc = json.loads(res.stdout)
    assert (res.returncode, doc["status"]) == (4, "unreadable")
    assert doc["error"].endswith("(detection finds sillytavern too)"), doc["error"]

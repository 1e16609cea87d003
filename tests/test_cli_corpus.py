"""The installed ``bunzai`` script on real files, as a user runs it (subprocess)."""

from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bunzai.testing import corpus_files, require_corpus

require_corpus()

BUNZAI = shutil.which("bunzai", path=str(Path(sys.executable).parent)) or "bunzai"
PNG = next(p for p in corpus_files("png-chara-v2") if "default_Seraphina" in p.name)
WORLD = next(p for p in corpus_files("st-worldbook") if "Eldoria" in p.name)
CHARX = corpus_files("charx")[0]


def bunzai(*args: object, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run([BUNZAI, *map(str, args)], capture_output=True, text=True,
                          timeout=120, cwd=cwd)


def test_inspect_json_on_a_png_card() -> None:
    res = bunzai("inspect", PNG, "--json")
    doc = json.loads(res.stdout)
    assert res.returncode == 0
    assert (doc["container"], doc["format"], doc["kind"]) == ("png", "sillytavern", "character")
    assert doc["candidates"][0] == {"format": "sillytavern", "kind": "character",
                                    "score": 0.9, "reason": doc["candidates"][0]["reason"]}


def test_png_to_charx_then_diff_shows_only_what_the_loss_report_said(tmp_path: Path) -> None:
    before = hashlib.sha256(PNG.read_bytes()).hexdigest()
    out = tmp_path / "card.charx"
    res = bunzai("convert", PNG, "--to", "charx", "-o", out, "--json")
    assert res.returncode == 0, res.stderr
    loss = {e["path"] for e in json.loads(res.stdout)["loss"]}
    assert hashlib.sha256(PNG.read_bytes()).hexdigest() == before
    res = bunzai("diff", PNG, out, "--json")
    changes = json.loads(res.stdout)["changes"]
    assert res.returncode == (1 if changes else 0)
    for change in changes:  # every difference was announced by the conversion
        path = change["path"]  # a removed object is one change; its keys are each a loss
        assert any(p == path or p.startswith(path + ".") or path.startswith(p + ".")
                   for p in loss), change


def test_aliases_and_default_output_next_to_the_source(tmp_path: Path) -> None:
    src = tmp_path / "card.png"
    src.write_bytes(PNG.read_bytes())
    res = bunzai("convert", src, "--to", "json")
    assert res.returncode == 0, res.stderr
    out = tmp_path / "card.json"
    assert json.loads(out.read_text())["data"]["name"] == "Seraphina"
    res = bunzai("convert", src, "--to", "json")
    assert res.returncode == 5 and "--force" in res.stderr


def test_a_lorebook_given_to_a_character_format_names_the_lorebook_formats(
        tmp_path: Path) -> None:
    res = bunzai("convert", WORLD, "--to", "sillytavern", "-o", tmp_path / "x.png")
    assert res.returncode == 5
    assert "sillytavern-lorebook" in res.stderr and res.stderr.count("\n") == 1
    assert not (tmp_path / "x.png").exists()


def test_extract_assets_from_a_charx(tmp_path: Path) -> None:
    res = bunzai("extract", CHARX, "--assets", tmp_path / "a", "--json")
    assert res.returncode == 0, res.stderr
    manifest = json.loads((tmp_path / "a" / "manifest.json").read_text())
    assert manifest and all(m["sha256"] for m in manifest if m["file"])
    assert any(m["orphan"] for m in manifest)  # the corpus CharX holds an unreferenced file


def test_lorebook_extract_and_merge_on_real_files(tmp_path: Path) -> None:
    book = tmp_path / "seraphina-book.json"
    res = bunzai("lorebook", "extract", PNG, "-o", book)
    assert res.returncode == 0, res.stderr
    res = bunzai("lorebook", "merge", book, WORLD, "-o", tmp_path / "merged.json", "--json")
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    # Seraphina's embedded book is SillyTavern's Eldoria world: every entry is a duplicate
    assert doc["entries"] == 4 and len(doc["duplicates"]) == 4 and doc["conflicts"] == []


@pytest.mark.parametrize("path", [PNG, WORLD, CHARX], ids=["png", "worldinfo", "charx"])
def test_label_and_validate_run_cleanly(path: Path) -> None:
    res = bunzai("label", path, "--json")
    assert res.returncode == 0 and "app" in json.loads(res.stdout)
    res = bunzai("validate", path, "--json")
    assert res.returncode in (0, 1) and json.loads(res.stdout)["format"]


def test_no_colour_when_piped_even_on_errors(tmp_path: Path) -> None:
    res = bunzai("inspect", tmp_path / "missing.png")
    assert res.returncode == 4 and "\x1b[" not in res.stderr

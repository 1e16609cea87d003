"""``bunzai library`` on a real SillyTavern user-data folder, read in place, through the real
command line: what inspect counts, and a move to every target app (links kept, every output
readable as its format, the report's totals, resume)."""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from bunzai.testing import shared_dir

LIBRARY = shared_dir() / "libraries" / "st-user-2208096" / "default-user"
BUNZAI = shutil.which("bunzai", path=str(Path(sys.executable).parent)) or "bunzai"
pytestmark = pytest.mark.skipif(not LIBRARY.is_dir(), reason="shared library not available")

FORMATS = {"risu": ("risu-charx", "risu-chat", "risu-lorebook"),
           "agnai": ("agnai", "agnai-chat", "agnai-memory"),
           "backyard": ("backyard-byaf", None, None),
           "voxta": ("voxta", None, "voxta-lorebook")}


PRESET_FOLDERS = {"textgen": "TextGen Settings", "kobold": "KoboldAI Settings",
                  "novel": "NovelAI Settings", "openai": "OpenAI Settings",
                  "instruct": "instruct", "context": "context", "sysprompt": "sysprompt",
                  "reasoning": "reasoning"}
CARRIED_PRESETS = {"risu": {"openai": "sillytavern-openai"}}
"""Preset types each app imports, and the format it takes them in."""


def preset_files(key: str) -> list[str]:
    folder = LIBRARY / PRESET_FOLDERS[key]
    return sorted(p.relative_to(LIBRARY).as_posix() for p in folder.rglob("*")
                  if p.is_file() and not p.name.startswith("."))


def bunzai(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([BUNZAI, *map(str, args)], capture_output=True, text=True,
                          timeout=600)


def settings() -> dict[str, Any]:
    return json.loads((LIBRARY / "settings.json").read_bytes())


def test_inspect_counts_what_the_folder_holds() -> None:
    res = bunzai("library", "inspect", LIBRARY, "--json", "-j", "2")
    assert res.returncode in (0, 1), res.stderr
    doc = json.loads(res.stdout)
    counts = doc["counts"]
    cards = sorted(p.name for p in (LIBRARY / "characters").glob("*.png"))
    chats = list((LIBRARY / "chats").glob("*/*.jsonl"))
    assert counts["characters"] == len(cards) == len(doc["characters"])
    assert counts["chats"] == len(chats)
    assert counts["worlds"] == len(list((LIBRARY / "worlds").glob("*.json")))
    power = settings()["power_user"]
    assert counts["personas"] == len(power["personas"])
    assert counts["regex"] == len(settings()["extension_settings"]["regex"])
    assert counts["quick_replies"] == len(list((LIBRARY / "QuickReplies").glob("*.json")))
    assert counts["themes"] == len(list((LIBRARY / "themes").glob("*.json")))
    # every preset and template read as its folder's type, counted by type
    assert set(doc["presets"]) == set(PRESET_FOLDERS)
    for key, found in doc["presets"].items():
        assert found["folder"] == PRESET_FOLDERS[key]
        assert found["count"] == len(preset_files(key)), key
        assert found["unreadable"] == [], key
    assert counts["presets"] == sum(len(preset_files(k)) for k in PRESET_FOLDERS)
    # each card read, its chats counted from its own folder
    for c in doc["characters"]:
        stem = c["file"].removeprefix("characters/").replace(".png", "", 1)
        assert c["chats"] == len(list((LIBRARY / "chats" / stem).glob("*.jsonl")))
        assert c["name"] and "error" not in c
    # the global world and the worlds linked by cards are the folder's
    active = set(settings()["world_info_settings"]["world_info"]["globalSelect"])
    assert {w["name"] for w in doc["worlds"] if w["global"]} == active
    linked = {c["world"] for c in doc["characters"] if c.get("world")}
    assert linked and linked <= {w["name"] for w in doc["worlds"] if w["characters"]}
    assert res.returncode == (1 if doc["problems"] else 0)


def test_inspect_text_names_the_library() -> None:
    res = bunzai("library", "inspect", LIBRARY)
    assert "SillyTavern data folder" in res.stdout and "40 characters" in res.stdout
    assert f"{len(preset_files('openai'))} chat-completion presets" in res.stdout
    assert f"{len(preset_files('instruct'))} instruct templates" in res.stdout


@pytest.fixture(scope="module", params=list(FORMATS))
def moved(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
          ) -> tuple[str, Path, subprocess.CompletedProcess[str]]:
    out = tmp_path_factory.mktemp(f"lib-{request.param}")
    res = bunzai("library", "convert", LIBRARY, "--to", request.param, "--out-dir", out,
                 "-j", "2", "--json")
    return request.param, out, res


def _lines(res: subprocess.CompletedProcess[str]) -> list[dict[str, Any]]:
    return [json.loads(line) for line in res.stdout.splitlines() if line.strip()]


def test_every_output_reads_back_as_its_format_with_its_hash(moved: Any) -> None:
    from bunzai import read_file

    target, out, res = moved
    assert res.returncode == 0, res.stderr
    manifest = json.loads((out / "manifest.json").read_bytes())
    assert manifest["target"] == target
    card_fmt, chat_fmt, book_fmt = FORMATS[target]
    seen: set[str] = set()
    for item in manifest["items"].values():
        for rel, meta in item["outputs"].items():
            data = (out / rel).read_bytes()
            assert hashlib.sha256(data).hexdigest() == meta["sha256"], rel
            found = read_file(out / rel)
            assert found.error is None, (rel, found.error)
            seen.add(found.format or "")
            if item["kind"] == "character" and "/chats/" in rel:
                assert found.format == chat_fmt, rel
            elif item["kind"] == "character" and "/lorebooks/" not in rel:
                assert found.format == card_fmt, rel
            elif item["kind"] == "world":
                assert found.format == book_fmt, rel
    assert card_fmt in seen
    # every source file of the library is in the manifest's map (secrets aside: there are none)
    files = set(manifest["files"])
    for p in [*LIBRARY.glob("characters/*.png"), *LIBRARY.glob("chats/*/*.jsonl")]:
        assert p.relative_to(LIBRARY).as_posix() in files


def test_a_characters_chats_and_books_travel_with_it(moved: Any) -> None:
    from bunzai import chats_of, read_file

    target, out, _ = moved
    manifest = json.loads((out / "manifest.json").read_bytes())
    chars = [i for i in manifest["items"].values() if i["kind"] == "character"]
    assert len(chars) == 40
    for item in chars:
        stem = item["id"].removeprefix("character:characters/").replace(".png", "", 1)
        chats = sorted((LIBRARY / "chats" / stem).glob("*.jsonl"))
        assert {f"chats/{stem}/{c.name}" for c in chats} <= set(item["sources"])
        card = next(out / r for r in item["outputs"]
                    if "/chats/" not in r and "/lorebooks/" not in r)
        entity = read_file(card).entities[0]
        if target in ("risu", "agnai"):
            assert sum("/chats/" in r for r in item["outputs"]) == len(chats)
        elif target == "backyard":  # the card's own scenarios, then one per chat
            inside = chats_of(entity)
            assert len(inside) >= len(chats) + 1
            for source, back in zip(chats, inside[-len(chats):] if chats else [], strict=True):
                last = list(read_file(source).entities[0].iter_messages())[-1].text
                assert list(back.iter_messages())[-1].text == last
        else:
            assert sum(1 for g in item["loss"]["groups"] if g["path"].startswith("chats[")
                       and g["action"] == "dropped") >= 1
        for world in item.get("worlds", []):
            book = json.loads((LIBRARY / "worlds" / f"{world}.json").read_bytes())
            assert entity.lorebook is not None
            gone = sum(g["count"] for g in (item.get("loss") or {}).get("groups", [])
                       if re.fullmatch(r"lorebook\.entries\[(\d+|\*)\]", g["path"])
                       and g["action"] == "dropped")  # entries the app cannot hold, reported
            assert len(entity.lorebook.entries) + gone >= len(book["entries"]), (card, world)
    carried = {w for i in chars for w in i.get("worlds", [])}
    assert carried, "no card carried its world"
    standalone = {i["name"] for i in manifest["items"].values() if i["kind"] == "world"}
    every = {p.stem for p in (LIBRARY / "worlds").glob("*.json")}
    assert carried | standalone == every and not carried & standalone


def test_the_reports_totals_add_up(moved: Any) -> None:
    target, out, res = moved
    lines = _lines(res)
    items, summary = lines[:-1], lines[-1]
    report = json.loads((out / "report.json").read_bytes())
    assert len(report["items"]) == len(items)
    total = summary["summary"]["total"]
    assert sum(total.values()) == len(items)
    for kind, row in summary["summary"].items():
        if kind != "total":
            assert sum(row.values()) == sum(1 for i in items if i["kind"] == kind)
    assert total.get("failed", 0) == 0
    not_carried = {i["kind"] for i in items if i["status"] == "dropped"}
    assert {"presets", "quick_replies", "themes"} <= not_carried
    md = (out / "REPORT.md").read_text(encoding="utf-8")
    assert "| **total** |" in md and "## Presets and templates" in md
    assert all(i["reason"] for i in items if i["status"] == "dropped")
    if target != "risu":
        assert any(i["kind"] == "personas" and i["status"] == "dropped" for i in items)


def test_presets_go_where_the_app_imports_them_and_the_rest_is_named(moved: Any) -> None:
    from bunzai import read_file

    target, out, res = moved
    items = [i for i in _lines(res)[:-1] if i["kind"] == "presets"]
    carried = CARRIED_PRESETS.get(target, {})
    md = (out / "REPORT.md").read_text(encoding="utf-8")
    for key in PRESET_FOLDERS:
        files = preset_files(key)
        if key in carried:  # one item per preset, each output read back as the app's format
            mine = [i for i in items if i["id"].startswith(f"preset:{PRESET_FOLDERS[key]}/")]
            assert sorted(s for i in mine for s in i["sources"]) == files
            for i in mine:
                assert i["status"] in ("written", "approximated"), i
                (rel,) = i["outputs"]
                assert rel.startswith("presets/")
                assert read_file(out / rel).format == carried[key], rel
                if target == "risu":  # RisuAI takes it as SillyTavern's only with its order
                    doc = json.loads((out / rel).read_bytes())
                    assert isinstance(doc["prompt_order"][0]["order"], list), rel
        else:  # one dropped item per type, naming every file and why the app has none
            (drop,) = [i for i in items if i["id"] == f"presets:{PRESET_FOLDERS[key]}"]
            assert drop["status"] == "dropped" and sorted(drop["sources"]) == files
            assert drop["reason"] and drop["reason"] in md
            assert drop["name"].startswith(f"{len(files)} ")
    sources = sorted(s for i in items for s in i["sources"])
    assert sources == sorted(f for k in PRESET_FOLDERS for f in preset_files(k))


def test_a_rerun_writes_nothing_and_says_so(moved: Any) -> None:
    target, out, _ = moved
    before = {p: (p.stat().st_mtime_ns, p.stat().st_ino) for p in out.rglob("*") if p.is_file()}
    res = bunzai("library", "convert", LIBRARY, "--to", target, "--out-dir", out, "--json")
    assert res.returncode == 0, res.stderr
    statuses = {i["status"] for i in _lines(res)[:-1]}
    assert statuses <= {"unchanged", "dropped"} and "unchanged" in statuses
    after = {p: (p.stat().st_mtime_ns, p.stat().st_ino) for p in out.rglob("*") if p.is_file()}
    changed = {p.name for p in before if before[p] != after.get(p)}
    assert changed <= {"REPORT.md", "report.json"}, changed
    assert set(after) == set(before)


def test_the_source_folder_is_never_written(tmp_path: Path) -> None:
    res = bunzai("library", "convert", LIBRARY, "--to", "risu", "--out-dir",
                 LIBRARY / "converted")
    assert res.returncode == 2 and "inside the library" in res.stderr
    assert not (LIBRARY / "converted").exists()
    res = bunzai("library", "convert", LIBRARY, "--to", "sillytavern", "--out-dir", tmp_path)
    assert res.returncode == 2 and "SillyTavern data folder already" in res.stderr
    assert os.listdir(tmp_path) == []

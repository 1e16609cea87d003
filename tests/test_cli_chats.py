"""The ``bunzai`` script on real chats, as a user runs it (subprocess)."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bunzai.testing import corpus_files, require_corpus

require_corpus()

BUNZAI = shutil.which("bunzai", path=str(Path(sys.executable).parent)) or "bunzai"
ST = next((p for p in corpus_files("st-chat") if "Trenttouch" in p.name), None)
BYAF = next(iter(corpus_files("byaf")), None)
KOBOLD = next(iter(corpus_files("kobold-lite-save")), None)
pytestmark = pytest.mark.skipif(ST is None or BYAF is None, reason="chat corpus not available")


def bunzai(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([BUNZAI, *map(str, args)], capture_output=True, text=True,
                          timeout=120)


def test_inspect_summarises_a_chat() -> None:
    res = bunzai("inspect", ST, "--json")
    assert res.returncode == 0, res.stderr
    doc = json.loads(res.stdout)
    assert (doc["container"], doc["format"], doc["kind"]) == ("jsonl", "sillytavern-chat",
                                                              "chat")
    summary = doc["entities"][0]
    assert summary["messages"] == 9 and summary["alternatives"] == "8 on 3 message(s)"
    assert summary["time_span"].startswith("2025-08-05T21:59:00")


def test_convert_between_chat_formats_and_never_to_a_card(tmp_path: Path) -> None:
    res = bunzai("convert", ST, "--to", "agnai-chat", "-o", tmp_path / "a.json", "--json")
    assert res.returncode == 0, res.stderr
    paths = {e["path"] for e in json.loads(res.stdout)["loss"]}
    assert "messages[0].time" in paths and "participants" in paths
    res = bunzai("convert", ST, "--to", "sillytavern", "-o", tmp_path / "card.json")
    assert res.returncode == 5
    assert "cross-kind" in res.stderr and res.stderr.count("\n") == 1
    assert not (tmp_path / "card.json").exists()


def test_schema_chat_prints_the_canonical_schema() -> None:
    res = bunzai("schema", "chat")
    assert res.returncode == 0
    schema = json.loads(res.stdout)
    assert schema["properties"]["kind"]["const"] == "chat"
    assert "ChatMessage" in schema["$defs"]


def test_chat_extract_and_embed_round_the_backyard_archive(tmp_path: Path) -> None:
    card = tmp_path / "card.byaf"
    card.write_bytes(BYAF.read_bytes())  # type: ignore[union-attr]
    res = bunzai("chat", "extract", card, "--json")
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert out["chats"] == 1 and Path(out["output"]).name == "card.jsonl"
    res = bunzai("chat", "embed", card, ST, "-o", tmp_path / "new.byaf", "--json")
    assert res.returncode == 0, res.stderr
    chat_loss = {e["path"] for e in json.loads(res.stdout)["loss"]}
    assert "chat.messages[0].speaker" in chat_loss
    res = bunzai("chat", "extract", tmp_path / "new.byaf", "-o", tmp_path / "x.jsonl",
                 "--json")
    assert res.returncode == 0 and json.loads(res.stdout)["chats"] == 2
    res = bunzai("chat", "extract", ST)
    assert res.returncode == 2 and "a chat already" in res.stderr


@pytest.mark.skipif(KOBOLD is None, reason="chat corpus not available")
def test_a_chat_lorebook_comes_out_with_lorebook_extract(tmp_path: Path) -> None:
    res = bunzai("lorebook", "extract", KOBOLD, "-o", tmp_path / "wi.json")
    assert res.returncode == 2 and "no embedded lorebook" in res.stderr  # its world info is empty


def test_a_damaged_line_is_named_by_validate_inspect_and_convert(tmp_path: Path) -> None:
    head = {"user_name": "Ada", "character_name": "Wren", "chat_metadata": {}}
    msgs = [{"name": "Wren", "is_user": False, "mes": "Rain again."},
            {"name": "Ada", "is_user": True, "mes": "The ferry is late."},
            {"name": "Wren", "is_user": False, "mes": "It always is."}]
    lines = [json.dumps(x) for x in (head, *msgs)]
    lines[2] = lines[2][:30]  # cut mid-JSON
    for case, text in (("middle", "\n".join(lines)), ("end", "\n".join(lines[:3]))):
        path = tmp_path / f"{case}.jsonl"
        path.write_text(text, encoding="utf-8")
        want = "line 3: not JSON, 30 bytes skipped"
        res = bunzai("validate", path)
        assert res.returncode == 0 and want in res.stdout and "1 warning(s)" in res.stdout, \
            res.stdout
        res = bunzai("inspect", path)
        assert want in res.stdout, res.stdout
        res = bunzai("convert", path, "--to", "agnai-chat", "-o", tmp_path / f"{case}.json",
                     "--verify", "--json")
        assert res.returncode == 0, res.stderr
        doc = json.loads(res.stdout)
        assert {"path": "line 3", "message": "not JSON, 30 bytes skipped",
                "severity": "warning"} in doc["warnings"]
        assert {"path": "messages[0].app_data.sillytavern-chat.skipped lines",
                "action": "dropped"} in [{k: e[k] for k in ("path", "action")}
                                         for e in doc["loss"]]


def test_the_zone_a_chat_is_read_in_is_a_documented_reader_option() -> None:
    res = bunzai("formats")
    assert res.returncode == 0
    for fmt in ("sillytavern-chat", "tavernai-chat", "oobabooga-chat"):
        block = res.stdout.split(f"\n{fmt} ", 1)[1].split("\n", 2)[1]
        assert "read option zone=local|utc (default: local)" in block, block
    res = bunzai("validate", ST)  # a real chat dated "2025-08-05@21h59m40s", no zone
    assert "warning: line 1: times are written without a zone ('2025-08-05@21h59m40s'): read " \
           "as this machine's local time" in res.stdout, res.stdout

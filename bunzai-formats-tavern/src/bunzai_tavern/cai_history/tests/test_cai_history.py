"""cai-history: a Character.AI histories dump reads as one chat per history."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

from bunzai.testing import Registry, as_input, conversion_problems, load_registry

SAMPLE = Path(__file__).parent / "samples" / "cai-history-dump.json"


@cache
def reg() -> Registry:
    return load_registry()


def test_every_history_is_a_chat() -> None:
    handle, res, _ = reg().read(as_input(SAMPLE))
    assert handle.id == "cai-history" and len(res.entities) == 2
    first, second = res.entities
    assert [(p.name, p.role) for p in first.participants] == [("Wren", "character"),  # type: ignore[attr-defined]
                                                              ("Ada", "user")]
    assert [(m.role, m.speaker) for m in first.messages] == [  # type: ignore[attr-defined]
        ("character", "Wren"), ("user", "Ada"), ("character", "Wren")]
    assert first.greeting == "The lamp is lit. Come in out of the rain."  # type: ignore[attr-defined]
    assert second.created is not None  # type: ignore[attr-defined]


def test_each_chat_converts_honestly_and_account_details_are_no_loss() -> None:
    _, res, _ = reg().read(as_input(SAMPLE))
    out = reg().write(res.entities, "sillytavern-chat")
    assert len(out.files) == 2
    assert not [e for e in out.loss if "user" in e.path.split(".")[-1] or "tgt" in e.path]
    assert conversion_problems(reg(), res.entities, "sillytavern-chat") == []


def test_a_message_whose_text_is_no_text_is_named_and_reported() -> None:
    dump = json.loads(SAMPLE.read_bytes())
    msg = dump["histories"]["histories"][0]["msgs"][1]
    msg["text"] = {"parts": ["Thanks."]}
    msg["src"]["participant"] = {"id": 4}
    _, res, _ = reg().read(as_input(json.dumps(dump).encode(), "dump.json"))
    assert [(w.path, w.message) for w in res.warnings] == [
        ("$.histories.histories[0].msgs[1].text",
         "not text: the message reads as empty, its value is kept as app data")]
    loss = {(e.path, e.action) for e in reg().write([res.entities[0]], "sillytavern-chat").loss}
    assert {("messages[1].app_data.cai-history.text", "dropped"),
            ("messages[1].app_data.cai-history.src.participant", "dropped")} <= loss

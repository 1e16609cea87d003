"""pygmalion: Pygmalion / TextGen five-key JSON and pygmalion.chat card wrappers."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from bunzai import testing
from bunzai.sdk import Character, UsageError
from bunzai.testing import Registry, conversion_problems, corpus_files, ids, load_registry
from bunzai_tavern.sillytavern.tests.fixtures import sample_card

FID = "pygmalion"
CORPUS = corpus_files("pygmalion")


@cache
def reg() -> Registry:
    return load_registry()


def scores(obj: Any) -> dict[str, float]:
    return testing.scores(reg(), obj)


def read(obj: Any) -> Any:
    return testing.read(reg(), obj, FID)


FIVE = {"char_name": "Mori", "char_persona": "Mori sells maps.", "char_greeting": "Lost?",
        "world_scenario": "A market at dawn.", "example_dialogue": "You: Hi\nMori: Hello."}


@pytest.mark.skipif(not CORPUS, reason="corpus not available")
@pytest.mark.parametrize("path", CORPUS, ids=ids(CORPUS))
def test_corpus_file(path: Path) -> None:
    got = scores(path)
    assert got[FID] == 0.9 and got.get("sillytavern", 0) == 0
    ch = read(path).entities[0]
    src = json.loads(path.read_bytes())
    assert (ch.name, ch.description, ch.first_mes) == (
        src["char_name"], src["char_persona"], src["char_greeting"])
    out = reg().write([ch], FID)
    assert not out.loss and json.loads(out.data) == src


def test_five_keys_map_to_v1_fields() -> None:
    ch = read(FIVE).entities[0]
    assert (ch.name, ch.description, ch.first_mes, ch.scenario, ch.mes_example) == (
        "Mori", "Mori sells maps.", "Lost?", "A market at dawn.", "You: Hi\nMori: Hello.")
    assert ch.personality == ""
    out = reg().write([ch], FID)
    assert json.loads(out.data) == FIVE and list(json.loads(out.data)) == list(FIVE)


def test_both_key_sets_prefer_v1_and_warn_and_round_trip() -> None:
    both = {**FIVE, "name": "Mori", "description": "Mori draws maps.", "personality": "shy",
            "metadata": {"version": 1, "tool": {"name": "AI Character Editor"}}}
    res = read(both)
    ch = res.entities[0]
    assert ch.description == "Mori draws maps." and ch.personality == "shy"
    assert [w.path for w in res.warnings] == ["$.char_persona"]
    out = reg().write([ch], FID)
    assert json.loads(out.data) == both and not out.loss
    ch.description = "edited"
    edited = json.loads(reg().write([ch], FID).data)
    assert edited["char_persona"] == "edited" and edited["description"] == "edited"


def test_a_full_card_into_five_keys_reports_what_goes() -> None:
    ch = Character(name="A", description="d", personality="p", creator_notes="n",
                   alternate_greetings=["x"], tags=["t"])
    out = reg().write([ch], FID)
    for path in ("personality", "creator_notes", "alternate_greetings", "tags"):
        assert out.loss.covers(path), path
    assert conversion_problems(reg(), [ch], FID) == []


@pytest.mark.parametrize("key", ["character", "card"])
def test_pygmalion_chat_wrapper(key: str) -> None:
    card = sample_card(extensions={"pygmalion_id": "0b8c3f3e"})
    card["data"]["avatar"] = "https://pygmalion.invalid/avatar.png"
    obj = {key: card}
    got = scores(obj)
    assert got[FID] == 0.9 and got.get("sillytavern", 0) == 0
    ch = read(obj).entities[0]
    assert ch.name == "Wren" and ch.extensions["pygmalion_id"] == "0b8c3f3e"
    out = reg().write([ch], FID)
    assert json.loads(out.data) == obj and not out.loss
    five = reg().write([ch], FID, {"shape": "textgen"})
    assert json.loads(five.data)["char_name"] == "Wren" and five.loss.covers("alternate_greetings")


def test_chat_shape_from_another_format() -> None:
    ch = Character(name="A", description="d", nickname="n")
    out = reg().write([ch], FID, {"shape": "chat"})
    obj = json.loads(out.data)
    assert obj["character"]["spec"] == "chara_card_v2" and out.loss.covers("nickname")
    with pytest.raises(UsageError):
        reg().write([ch], FID, {"shape": "yaml"})


@pytest.mark.parametrize("obj", [
    {"name": "A", "first_mes": "hi"},
    {"character": {"id": "x", "displayName": "A"}, "version": 1},
    {"char_name": "A"},
])
def test_not_claimed(obj: Any) -> None:
    assert scores(obj).get(FID, 0) == 0

"""koboldai-lite: Lite saves read as chats, split into turns by mode; world info as a lorebook."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest

from bunzai import lorebook_of
from bunzai.sdk import Chat
from bunzai.testing import (
    Registry,
    as_input,
    conversion_problems,
    corpus_files,
    label,
    load_registry,
)

FID = "koboldai-lite"
SAMPLES = Path(__file__).parent / "samples"
REAL = corpus_files("kobold-lite-save")


@cache
def reg() -> Registry:
    return load_registry()


def read(path: Path) -> Chat:
    handle, res, _ = reg().read(as_input(path))
    assert handle.id == FID
    chat = res.entities[0]
    assert isinstance(chat, Chat)
    return chat


@pytest.mark.skipif(not REAL, reason="chat corpus not available")
def test_a_real_save_without_turns_keeps_its_memory() -> None:
    chat = read(REAL[0])
    assert list(chat.messages) == [] and chat.memory and chat.memory.startswith("You are")
    assert [(p.name, p.role) for p in chat.participants] == [("User", "user"),
                                                             ("KoboldAI", "character")]
    out = reg().write([chat], "sillytavern-chat")
    # Lite's settings objects are its app data, one line each; settings at the values a new
    # story gets, empty notes and the save's bookkeeping are not losses
    assert {e.path for e in out.loss} == {"memory", "app_data.koboldai-lite.savedsettings",
                                          "app_data.koboldai-lite.savedaestheticsettings"}
    assert chat.passthrough["koboldai-lite"]["keep"] == {"gamestarted": True}


def test_chat_mode_splits_at_the_speakers_names() -> None:
    chat = read(SAMPLES / "kobold-lite-chat-mode.json")
    assert [(m.role, m.speaker, m.text) for m in chat.messages] == [
        ("character", "Wren", "The lamp is lit. Who comes up the stairs so late?"),
        ("user", "Ada", "Only me, soaked from the ferry."),
        ("character", "Wren", "Then dry off by the stove."),
        ("user", "Ada", "Thank you. Is the storm getting worse?"),
        ("character", "Wren", "It always does before dawn.")]
    assert chat.notes == "Wren is wary of strangers."
    assert conversion_problems(reg(), [chat], "sillytavern-chat") == []


def test_instruct_mode_splits_at_the_turn_tags() -> None:
    chat = read(SAMPLES / "kobold-lite-instruct-mode.json")
    assert [(m.role, m.text) for m in chat.messages] == [
        ("user", "Describe the lighthouse at night."),
        ("character", "A white tower, its lamp sweeping the black sea."),
        ("user", "And the keeper?"), ("character", "She watches the ferry lights.")]


def test_world_info_comes_out_as_a_lorebook() -> None:
    book = lorebook_of(read(SAMPLES / "kobold-lite-chat-mode.json"))
    ferry, lamp = book.entries
    assert ferry.keys == ["ferry", "boat"] and ferry.enabled
    assert (lamp.secondary_keys, lamp.enabled, lamp.probability, lamp.group) == (
        ["oil"], False, 80, "light")
    out = reg().write([book], "sillytavern-lorebook")
    assert out.files


def test_what_a_save_holds_but_cannot_be_read_is_named_and_reported() -> None:
    save = {"gamestarted": True, "prompt": "The ferry crosses at dawn.",
            "memory": "", "authorsnote": ["not", "text"],
            "actions": {"actions": {"0": {"Selected Text": " Rain falls."}, "1": "lost?",
                                    "2": {"Options": []}}, "action_count": 3},
            "worldinfo": [{"key": "ferry", "content": "A flat boat."}, 7],
            "savedsettings": {"opmode": 1}}
    _, res, _ = reg().read(as_input(json.dumps(save).encode(), "save.json"))
    assert [(w.path, w.message) for w in res.warnings] == [
        ("$.actions.actions.1", 'no "Selected Text"; skipped'),
        ("$.actions.actions.2", 'no "Selected Text"; skipped'),
        ("$.worldinfo[1]", "not an object; skipped")]
    chat = res.entities[0]
    assert [m.text for m in chat.messages] == ["The ferry crosses at dawn.", " Rain falls."]
    loss = {(e.path, e.action) for e in reg().write([chat], "sillytavern-chat").loss}
    assert {("app_data.koboldai-lite.skipped actions", "dropped"),
            ("app_data.koboldai-lite.authorsnote", "dropped"),
            ("app_data.koboldai-lite.actions.action_count", "dropped"),
            ("lorebook", "dropped")} <= loss
    book = lorebook_of(chat)
    loss = {(e.path, e.action) for e in reg().write([book], "sillytavern-lorebook").loss}
    assert ("app_data.koboldai-lite.skipped entries", "dropped") in loss


def test_the_labeler_names_kobold_lite_and_its_mode() -> None:
    cases = [(SAMPLES / "kobold-lite-chat-mode.json", "chat mode"),
             (SAMPLES / "kobold-lite-instruct-mode.json", "instruct mode"),
             *((path, "instruct mode") for path in REAL)]  # the real save is in instruct mode
    for path, mode in cases:
        result = label(reg(), path)
        assert result.app == "KoboldAI", result.to_dict()
        assert any(f"{mode}: KoboldAI Lite" in e for e in result.guesses[0].evidence), path.name

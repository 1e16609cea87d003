"""backyard-chat: Backyard's chat export reads turn by turn and writes back byte for byte."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from functools import cache
from pathlib import Path

import pytest

from bunzai.sdk import Chat, ChatMessage
from bunzai.testing import (
    Registry,
    as_input,
    conversion_problems,
    corpus_files,
    ids,
    label,
    load_registry,
)

FID = "backyard-chat"
FILES = corpus_files("backyard-chat")


@cache
def reg() -> Registry:
    return load_registry()


@pytest.mark.skipif(not FILES, reason="chat corpus not available")
@pytest.mark.parametrize("path", FILES, ids=ids(FILES))
def test_real_exports_round_trip_byte_for_byte(path: Path) -> None:
    handle, res, _ = reg().read(as_input(path))
    assert handle.id == FID
    chat = res.entities[0]
    assert isinstance(chat, Chat)
    items = json.loads(path.read_bytes())["chat"]["ChatItems"]
    assert len(chat.messages) == 2 * len(items)
    assert [m.role for m in chat.messages[:2]] == ["user", "character"]
    out = reg().write(res.entities, FID)
    assert not out.loss and out.files[0].data == path.read_bytes()


def _export(*items: dict[str, object], version: int = 2) -> bytes:
    return json.dumps({"chat": {"ChatItems": list(items)}, "version": version},
                      indent=2).encode()


def test_turns_pair_into_items_and_empty_sides_are_left_out() -> None:
    data = _export({"input": "", "output": "Welcome back.", "createdAt": 1700000000000},
                   {"input": "Hi", "output": "", "createdAt": 1700000001000},
                   {"input": "Still there?", "output": "Yes.", "createdAt": 1700000002000})
    _, res, _ = reg().read(as_input(data, "chat.txt"))
    chat = res.entities[0]
    assert [(m.role, m.text) for m in chat.messages] == [
        ("character", "Welcome back."), ("user", "Hi"), ("user", "Still there?"),
        ("character", "Yes.")]
    assert chat.messages[3].time == datetime(2023, 11, 14, 22, 13, 22, tzinfo=UTC)
    assert reg().write(res.entities, FID).files[0].data == data


def test_what_an_export_cannot_hold_is_reported() -> None:
    t = datetime(2024, 1, 1, 12, tzinfo=UTC)
    chat = Chat(messages=[ChatMessage(role="user", speaker="Ada", text="Hi", time=t),
                          ChatMessage(role="narrator", text="Thunder.", time=t.replace(hour=13)),
                          ChatMessage(role="character", text="", time=t)])
    out = reg().write([chat], FID)
    got = {(e.path, e.action) for e in out.loss}
    # the empty reply on its own is an item with no output: it reads back as the user's
    assert got == {("messages[0].speaker", "dropped"), ("messages[1].role", "approximated"),
                   ("messages[1].time", "approximated"), ("messages[2].role", "approximated")}
    assert conversion_problems(reg(), [chat], FID) == []


def test_an_empty_reply_after_the_user_has_no_place_and_the_rest_move_up() -> None:
    t = datetime(2024, 1, 1, 12, tzinfo=UTC)
    chat = Chat(messages=[ChatMessage(role="user", text="Hi", time=t),
                          ChatMessage(role="character", text="", time=t),
                          ChatMessage(role="user", text="Hello?", time=t),
                          ChatMessage(role="character", text="Yes.", time=t)])
    out = reg().write([chat], FID)
    assert out.loss.lines() == [
        "1 dropped, 1 approximated",
        "dropped messages[1]: an empty message is no input or output in a Backyard export",
        "approximated messages: the messages after a left-out one move up"]
    assert conversion_problems(reg(), [chat], FID) == []
    chat.messages = chat.messages[:2]
    out = reg().write([chat], FID)
    assert {(e.path, e.action) for e in out.loss} == {("messages[1]", "dropped")}
    assert conversion_problems(reg(), [chat], FID) == []


@pytest.mark.skipif(not FILES, reason="chat corpus not available")
@pytest.mark.parametrize("path", FILES, ids=ids(FILES))
def test_the_labeler_names_backyard_on_real_exports(path: Path) -> None:
    result = label(reg(), path)
    assert result.app == "Backyard AI", result.to_dict()
    assert "version 2" in result.guesses[0].evidence[0]


def test_the_labeler_names_backyard_on_both_export_versions() -> None:
    for version, when in ((1, "2023-12-18T23:32:00.000Z"), (2, 1702942320000)):
        data = _export({"input": "Hi", "output": "Hello", "createdAt": when}, version=version)
        result = label(reg(), data, "chat.json")
        assert result.app == "Backyard AI", result.to_dict()
        assert f"version {version}" in result.guesses[0].evidence[0]

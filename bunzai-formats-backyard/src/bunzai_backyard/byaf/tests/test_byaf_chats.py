"""The chats inside a Backyard archive: extracted as standalone chats, embedded as scenarios."""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest

from bunzai import chats_of, with_chat
from bunzai.sdk import Alternative, Character, Chat, ChatMessage, UsageError
from bunzai.testing import as_input, corpus_files, load_registry

ARCHIVES = corpus_files("byaf")


@cache
def reg() -> Any:
    return load_registry()


def _card() -> Character:
    _, res, _ = reg().read(as_input(ARCHIVES[0]))
    card = res.entities[0]
    assert isinstance(card, Character)
    return card


pytestmark = pytest.mark.skipif(not ARCHIVES, reason="corpus not available")


def test_every_scenario_comes_out_as_a_chat_with_its_log() -> None:
    card = _card()
    found = chats_of(card, registry=reg())
    assert len(found) == len(card.app_data["backyard-byaf"]["scenarios"])
    chat = found[0]
    assert chat.title == "Test Scenario" and chat.greeting == card.first_mes
    assert chat.scenario == card.scenario and chat.system_prompt == card.system_prompt
    assert len(chat.messages) == 100 and chat.messages[0].role == "user"
    assert chat.app_data["backyard-byaf"]["temperature"] == 0.7  # user data, not layout
    for target in ("sillytavern-chat", "backyard-chat", "vaud-json"):
        assert reg().write(found, target).files


def test_an_embedded_chat_survives_the_archive_and_comes_back_out() -> None:
    card = _card()
    chat = Chat(title="Second night", messages=[
        ChatMessage(role="user", text="Are you awake?"),
        ChatMessage(role="character", text="Always.", chosen=1, alternatives=[
            Alternative(text="No."), Alternative(text="Always.")]),
        ChatMessage(role="user", speaker="Ada", text="(ooc)", hidden=True)])
    new, loss = with_chat(card, chat, registry=reg())
    assert {e.path for e in loss} >= {"messages[2].speaker", "messages[2].hidden"}
    assert card == _card()  # the source entity is never changed
    written = reg().write([new], "backyard-byaf")
    _, res, _ = reg().read(as_input(written.files[0].data, "new.byaf"))
    back = chats_of(res.entities[0], registry=reg())
    assert len(back) == 2 and back[-1].title == "Second night"
    shown = back[-1].messages[1]
    assert shown.text == "Always." and shown.chosen == 1
    assert [a.text for a in shown.alternatives] == ["No.", "Always."]
    assert res.entities[0].alternate_greetings == card.alternate_greetings


def test_cards_without_chats_and_chats_themselves_are_refused() -> None:
    _, res, _ = reg().read(as_input(corpus_files("ccv2-json")[0]))
    with pytest.raises(UsageError, match="no chats"):
        chats_of(res.entities[0], registry=reg())
    with pytest.raises(UsageError, match="a chat already"):
        chats_of(Chat(), registry=reg())


def test_a_faraday_cards_chat_history_comes_out_too() -> None:
    card = Character(name="Wren", app_data={"backyard": {"Chat": [{
        "name": "Night", "authorNote": "Keep it loud.", "createdAt": "2023-12-18T23:31:42.483Z",
        "ChatItems": [{"input": "Hi", "output": "Hello", "createdAt": "2023-12-18T23:32:00.000Z",
                       "RegenSwipes": [
                           {"text": "Yo", "activeTimestamp": "2023-12-18T23:32:01.000Z"},
                           {"text": "Hello", "activeTimestamp": "2023-12-18T23:32:09.000Z"}]}],
    }]}})
    (chat,) = chats_of(card, registry=reg())
    assert (chat.title, chat.notes) == ("Night", "Keep it loud.")
    assert [(m.role, m.text, m.chosen) for m in chat.messages] == [("user", "Hi", None),
                                                                    ("character", "Hello", 1)]
    with pytest.raises(UsageError, match="cannot take"):
        with_chat(card, chat, registry=reg())


def test_the_committed_sample_is_what_its_builder_makes() -> None:
    from .sample_archive import SAMPLE, build

    assert SAMPLE.read_bytes() == build(), "run python -m bunzai_backyard.byaf.tests.sample_archive"


def test_regenerated_replies_come_out_as_alternatives_with_the_shown_one_chosen() -> None:
    """Backyard shows the output with the latest activeTimestamp, whatever its place."""
    from .sample_archive import SAMPLE

    _, res, _ = reg().read(as_input(SAMPLE))
    (chat,) = chats_of(res.entities[0], registry=reg())
    assert [m.role for m in chat.messages] == ["user", "character"] * 3
    turns = [(len(m.alternatives), m.chosen, m.text) for m in chat.messages[1::2]]
    assert turns == [(3, 1, "*Wren grins.* It's meant to be heard past the reef."),
                     (0, None, "Not before the tide turns. Sit by the stove."),
                     (2, 0, "*Wren taps the chart.* Three rocks, one name each, and all of "
                            "them hungry.")]
    assert chat.title == "Storm night" and chat.app_data["backyard-byaf"]["topK"] == 30
    out = reg().write([chat], "sillytavern-chat")
    back = reg().read(as_input(out.files[0].data, "chat.jsonl"))[1].entities[0]
    assert [(len(m.alternatives), m.chosen) for m in back.messages[1::2]] == [
        (3, 1), (0, None), (2, 0)]

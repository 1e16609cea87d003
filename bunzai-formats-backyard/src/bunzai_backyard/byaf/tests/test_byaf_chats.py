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
    assert chat.title == "Test Scenario" and chat.greeting is None
    assert chat.scenario == card.scenario and chat.system_prompt == card.system_prompt
    # the greeting comes first, as Backyard shows it and SillyTavern's import writes it
    greeting, *log = chat.messages
    assert (greeting.role, greeting.text) == ("character", card.first_mes)
    assert len(log) == 100 and log[0].role == "user"
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
    assert [m.role for m in chat.messages] == ["character"] + ["user", "character"] * 3
    turns = [(len(m.alternatives), m.chosen, m.text) for m in chat.messages[2::2]]
    assert turns == [(3, 1, "*Wren grins.* It's meant to be heard past the reef."),
                     (0, None, "Not before the tide turns. Sit by the stove."),
                     (2, 0, "*Wren taps the chart.* Three rocks, one name each, and all of "
                            "them hungry.")]
    assert chat.title == "Storm night" and chat.app_data["backyard-byaf"]["topK"] == 30
    out = reg().write([chat], "sillytavern-chat")
    back = reg().read(as_input(out.files[0].data, "chat.jsonl"))[1].entities[0]
    assert [(len(m.alternatives), m.chosen) for m in back.messages[2::2]] == [
        (3, 1), (0, None), (2, 0)]


def _scenario(new: Character) -> dict[str, Any]:
    """The last scenario of an archive written from ``new``, as SillyTavern's import gets it."""
    import io
    import json
    import zipfile

    written = reg().write([new], "backyard-byaf")
    with zipfile.ZipFile(io.BytesIO(written.files[0].data)) as z:
        manifest = json.loads(z.read("manifest.json"))
        return dict(json.loads(z.read(manifest["scenarios"][-1])))


def _sillytavern_order(scen: dict[str, Any]) -> list[tuple[str, str]]:
    """The chat SillyTavern's BYAF import (src/byaf.js getChatFromScenario) makes of a scenario:
    the greeting, then the messages, rebuilt as human, ai, human, ai when they are as many;
    it fails when the log has messages but none with a createdAt."""
    log = scen["messages"]
    if log:
        assert any("createdAt" in m for m in log), "SillyTavern's import would fail"
    out = [("character", scen["firstMessages"][0]["text"])] if scen["firstMessages"] else []
    humans = [m for m in log if m["type"] == "human"]
    ais = [m for m in log if m["type"] == "ai"]
    if len(humans) == len(ais):
        log = [m for pair in zip(humans, ais, strict=True) for m in pair]
    for m in log:
        shown = m if m["type"] == "human" else max(m["outputs"],
                                                   key=lambda o: o["activeTimestamp"])
        out.append(("user" if m["type"] == "human" else "character", shown["text"]))
    return out


@pytest.mark.parametrize("turns", [0, 3, 4], ids=["greeting-only", "odd", "even"])
def test_a_chat_opening_with_the_greeting_is_read_back_in_its_order_everywhere(
        turns: int) -> None:
    card = _card()
    said = ["Welcome to the lighthouse.", "Is the ferry late?", "It always is.",
            "Then we wait.", "By the stove, then."][:turns + 1]
    chat = Chat(title="Storm", messages=[
        ChatMessage(role="user" if i % 2 else "character", text=t) for i, t in enumerate(said)])
    new, loss = with_chat(card, chat, registry=reg())
    # bunzai's own reader gets the same messages back in the same order (a time is stamped)
    assert not [e for e in loss if e.path.startswith("messages") and not e.path.endswith(
        ".time")], [str(e) for e in loss]
    back = chats_of(new, registry=reg())[-1]
    assert [(m.role, m.text) for m in back.messages] == [(m.role, m.text) for m in chat.messages]
    scen = _scenario(new)
    assert scen["firstMessages"][0]["text"] == said[0]  # the greeting, where BYAF keeps it
    assert _sillytavern_order(scen) == [(m.role, m.text) for m in chat.messages]


def test_a_scenario_sillytavern_would_misread_is_named_when_the_archive_is_written() -> None:
    card = _card()
    chat = Chat(title="Odd", messages=[ChatMessage(role="user", text="One"),
                                       ChatMessage(role="user", text="Two"),
                                       ChatMessage(role="character", text="Three"),
                                       ChatMessage(role="character", text="Four")])
    new, _ = with_chat(card, chat, registry=reg())
    out = reg().write([new], "backyard-byaf")
    assert any("'Odd' (4 messages): SillyTavern's BYAF import reads its 2 user and 2 "
               "character messages in another order" in w for w in out.warnings), out.warnings


def test_messages_a_scenario_cannot_give_are_kept_for_the_loss_report() -> None:
    from ..chats import messages_from_byaf

    skipped: list[list[Any]] = []
    items = [{"type": "human", "text": "Hi"}, "noise", {"type": "ai", "outputs": []},
             {"type": "system", "text": "?"}, {"type": "ai", "outputs": [{"text": "Hello"}]}]
    got = messages_from_byaf(items, "backyard-byaf", skipped)
    assert [(m.role, m.text) for m in got] == [("user", "Hi"), ("character", "Hello")]
    assert skipped == [[1, "noise"], [2, {"type": "ai", "outputs": []}],
                       [3, {"type": "system", "text": "?"}]]

"""oobabooga-chat: webui histories read row by row and write back byte for byte."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from functools import cache
from pathlib import Path

from bunzai.sdk import Alternative, Chat, ChatMessage
from bunzai.testing import Registry, as_input, conversion_problems, label, load_registry

FID = "oobabooga-chat"
SAMPLES = Path(__file__).parent / "samples"


@cache
def reg() -> Registry:
    return load_registry()


def read(name: str) -> Chat:
    handle, res, _ = reg().read(as_input(SAMPLES / name))
    assert handle.id == FID
    chat = res.entities[0]
    assert isinstance(chat, Chat)
    return chat


def test_rows_versions_and_attachments_map_to_messages() -> None:
    chat = read("oobabooga-history.json")
    greeting, user, reply, *_ = chat.messages
    assert greeting.role == "character" and greeting.time == datetime(2024, 11, 3, 21, 4,
                                                                      tzinfo=UTC)
    assert user.text == "Thanks. Is the ferry <really> cancelled?"  # raw, not the escaped view
    assert user.attachments[0].name == "tide-table.txt"
    assert user.attachments[0].text == "High tide 04:12, low tide 10:31."
    assert reply.alternatives[0].text == "It is cancelled." and reply.chosen == 1


def test_histories_round_trip_byte_for_byte() -> None:
    for path in sorted(SAMPLES.glob("*.json")):
        _, res, _ = reg().read(as_input(path))
        out = reg().write(res.entities, FID)
        assert not out.loss and out.files[0].data == path.read_bytes(), path.name


def test_a_chat_from_another_app_is_written_as_the_webui_saves_one() -> None:
    t = datetime(2024, 11, 3, 21, 4, 30, tzinfo=UTC)
    chat = Chat(messages=[
        ChatMessage(role="character", speaker="Wren", text="Hi <you>", time=t),
        ChatMessage(role="user", text="Hello", time=t, hidden=True),
        ChatMessage(role="character", text="B", chosen=1,
                    alternatives=[Alternative(text="A"), Alternative(text="B")])])
    out = reg().write([chat], FID)
    doc = json.loads(out.files[0].data)
    assert doc["internal"] == [["", "Hi <you>"], ["Hello", "B"]]
    assert doc["visible"][0] == ["", "Hi &lt;you&gt;"]
    assert doc["metadata"]["assistant_0"] == {"timestamp": "Nov 03, 2024 21:04"}
    assert doc["metadata"]["assistant_1"]["current_version_index"] == 1
    got = {(e.path, e.action) for e in out.loss}
    assert {("messages[0].speaker", "dropped"), ("messages[0].time", "approximated"),
            ("messages[1].hidden", "dropped")} <= got
    assert conversion_problems(reg(), [chat], FID) == []


def test_the_labeler_names_the_webui_and_its_history_era() -> None:
    for name, era in (("oobabooga-history.json", "(internal, visible)"),
                      ("oobabooga-history-2023.json", "before July 2023")):
        result = label(reg(), SAMPLES / name)
        assert result.app == "oobabooga text-generation-webui", result.to_dict()
        assert any(era in e for e in result.guesses[0].evidence), result.to_dict()


def test_a_row_that_is_no_pair_of_texts_is_named_kept_and_reported() -> None:
    history = {"internal": [["<|BEGIN-VISIBLE-CHAT|>", "Rain again."], [7, None],
                            ["The ferry?", "Late."]],
               "visible": [["", "Rain again."], ["7", ""], ["The ferry?", "Late."]],
               "metadata": {"assistant_0": {"timestamp": "Nov 03, 2024 21:04"},
                            "user_1": {"timestamp": "Nov 03, 2024 21:05"},
                            "user_2": {"timestamp": "Nov 03, 2024 21:06"},
                            "assistant_2": {"timestamp": "Nov 03, 2024 21:06"}}}
    data = json.dumps(history, indent=4).encode()
    _, res, _ = reg().read(as_input(data, "history.json"))
    assert [(w.path, w.message) for w in res.warnings if "skipped" in w.message] == [
        ("$.internal[1]", "not a pair of texts; skipped")]
    chat = res.entities[0]
    assert [m.text for m in chat.messages] == ["Rain again.", "The ferry?", "Late."]
    assert reg().write([chat], FID).files[0].data == data
    loss = {(e.path, e.action) for e in reg().write([chat], "sillytavern-chat").loss}
    assert ("app_data.oobabooga-chat.skipped rows", "dropped") in loss
    assert conversion_problems(reg(), [chat], "sillytavern-chat") == []


def test_two_user_turns_in_a_row_are_written_as_the_webui_does_and_the_padding_is_said() -> None:
    chat = Chat(messages=[ChatMessage(role="character", text="Rain again."),
                          ChatMessage(role="user", text="brb"),
                          ChatMessage(role="user", text="back"),
                          ChatMessage(role="character", text="The ferry is late.")])
    out = reg().write([chat], FID)
    doc = json.loads(out.files[0].data)
    # the webui's own "Send dummy message" row: the user's text and no reply
    assert doc["internal"] == [["", "Rain again."], ["brb", ""], ["back", "The ferry is late."]]
    assert out.warnings == ["messages[1]: a history row pairs each user message with a reply, "
                            "and the webui shows the reply even when it is empty, so an empty "
                            "reply bubble shows after each"]
    assert conversion_problems(reg(), [chat], FID) == []  # it reads back as the same messages
    _, res, _ = reg().read(as_input(out.files[0].data, "history.json"))
    again = reg().write(res.entities, FID)  # a row the webui wrote itself is no news
    assert again.warnings == [] and again.files[0].data == out.files[0].data

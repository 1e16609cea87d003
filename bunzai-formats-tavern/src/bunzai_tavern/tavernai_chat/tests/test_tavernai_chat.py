"""tavernai-chat: TavernAI 1.2-1.5 logs, rooms and legacy arrays; CAI Tools' Tavern export."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from bunzai.sdk import Alternative, Chat, ChatMessage, Participant
from bunzai.testing import (
    Registry,
    as_input,
    conversion_problems,
    corpus_files,
    ids,
    label,
    load_registry,
)

FID = "tavernai-chat"
FILES = corpus_files("tavernai-chat", "tavernai-legacy-chat")


@cache
def reg() -> Registry:
    return load_registry()


def read(data: bytes, name: str = "chat.jsonl") -> Chat:
    handle, res, _ = reg().read(as_input(data, name))
    assert handle.id == FID
    chat = res.entities[0]
    assert isinstance(chat, Chat)
    return chat


def skipped(res: Any) -> list[tuple[str, str]]:
    """The read warnings that name a damaged line."""
    return [(w.path, w.message) for w in res.warnings if "skipped" in w.message]


def lines(*objs: object) -> bytes:
    return "\n".join(json.dumps(o, separators=(",", ":")) for o in objs).encode()


@pytest.mark.skipif(not FILES, reason="chat corpus not available")
@pytest.mark.parametrize("path", FILES, ids=ids(FILES))
def test_real_chats_round_trip_byte_for_byte(path: Path) -> None:
    _, res, report = reg().read(as_input(path))
    assert report is not None and report.winner is not None and report.winner.format == FID
    legacy = path.suffix == ".json"  # an array of "Name: text" lines: asked for by name
    out = reg().write(res.entities, FID, {"shape": "array"} if legacy else None)
    assert not out.loss and out.files[0].data == path.read_bytes()
    assert conversion_problems(reg(), res.entities, "sillytavern-chat") == []


ROOM = [{"user_name": "You", "character_names": ["Ada", "Wren"], "create_date": 1684669029632,
         "notes": "", "notes_type": "discr", "scenario": "A lighthouse in a storm."},
        {"name": "Wren", "is_user": False, "is_name": True, "send_date": 1684669022872,
         "mes": "Rain again.", "chid": 1},
        {"name": "Ada", "is_user": False, "is_name": True, "send_date": 1684669122872,
         "mes": "The ferry is late.", "chid": 0, "swipes": ["Late.", "The ferry is late."],
         "swipe_id": 1}]


def test_a_room_names_every_character_and_keeps_its_scenario() -> None:
    chat = read(lines(*ROOM))
    assert [(p.name, p.role) for p in chat.participants] == [
        ("You", "user"), ("Ada", "character"), ("Wren", "character")]
    assert chat.scenario == "A lighthouse in a storm." and chat.notes is None
    assert chat.messages[0].time == datetime(2023, 5, 21, 11, 37, 2, 872000, tzinfo=UTC)
    assert chat.messages[1].chosen == 1 and len(chat.messages[1].alternatives) == 2
    assert reg().write([chat], FID).files[0].data == lines(*ROOM)


def test_a_damaged_line_is_named_kept_and_reported_by_other_formats() -> None:
    data = lines(*ROOM[:2]) + b'\n{"name":"Ada","mes":"The fer\n' + lines(ROOM[2])
    _, res, _ = reg().read(as_input(data, "chat.jsonl"))
    assert skipped(res) == [("line 3", "not JSON, 28 bytes "
                                                                      "skipped")]
    chat = res.entities[0]
    assert len(chat.messages) == 2
    assert reg().write([chat], FID).files[0].data == data
    loss = {(e.path, e.action) for e in reg().write([chat], "sillytavern-chat").loss}
    assert ("messages[0].app_data.tavernai-chat.skipped lines", "dropped") in loss
    assert conversion_problems(reg(), [chat], "sillytavern-chat") == []


def test_the_legacy_array_reads_names_and_writes_back() -> None:
    data = json.dumps(["Aqua: Hello there.", "You: Hi!", "Aqua: *waves*\n"],
                      separators=(",", ":")).encode()
    chat = read(data, "chat.json")
    assert [(m.role, m.speaker, m.text) for m in chat.messages] == [
        ("character", "Aqua", "Hello there."), ("user", "You", "Hi!"),
        ("character", "Aqua", "*waves*\n")]
    assert reg().write([chat], FID, {"shape": "array"}).files[0].data == data


def test_a_legacy_array_is_rewritten_as_the_json_lines_other_apps_import() -> None:
    data = json.dumps(["Aqua: Hello there.", "You: Hi!", "Aqua: *waves*"]).encode()
    chat = read(data, "chat.json")
    out = reg().write([chat], FID)
    assert out.files[0].suffix == ".jsonl"
    text = out.files[0].data.decode()
    # SillyTavern's .jsonl import needs a user_name on line 1; Agnai's and RisuAI's parse every
    # later line as a message with "mes" (RisuAI's every line: no blank one, no final newline)
    header, *lines = [json.loads(x) for x in text.split("\n")]
    assert header["user_name"] == "You" and header["character_name"] == "Aqua"
    assert [(x["name"], x["is_user"], x["mes"]) for x in lines] == [
        ("Aqua", False, "Hello there."), ("You", True, "Hi!"), ("Aqua", False, "*waves*")]
    # what the JSON Lines add is said: a date on every message, TavernAI's name for the user
    paths = {e.path for e in out.loss}
    assert {"participants", "messages[0].time", "messages[2].time"} <= paths
    assert conversion_problems(reg(), [chat], FID) == []


def test_a_sillytavern_chat_loses_what_tavernai_cannot_hold() -> None:
    chat = Chat(participants=[Participant(name="Ada", role="user"),
                              Participant(name="Wren", role="character")],
                messages=[ChatMessage(role="narrator", speaker="Storm", text="Thunder."),
                          ChatMessage(role="user", speaker="Ada", text="(ooc)", hidden=True)])
    out = reg().write([chat], FID)
    reported = {(e.path, e.action) for e in out.loss}
    assert reported == {("messages[0].role", "approximated"), ("messages[1].hidden", "dropped"),
                        ("messages[0].time", "approximated"),
                        ("messages[1].time", "approximated")}  # TavernAI needs a date
    header, *rest = (json.loads(x) for x in out.files[0].data.splitlines())
    assert all(isinstance(m["send_date"], int) for m in rest)
    assert header == {"user_name": "Ada", "character_name": "Wren", "notes": "",
                      "notes_type": "discr"}


def test_a_swipes_app_data_is_dropped_for_the_true_reason() -> None:
    """Two swipes are kept as texts: what goes is each swipe's own data, and the report says
    so, never that TavernAI "keeps swipes only when there are two or more"."""
    st = {"sillytavern-chat": {"extra.api": "openai", "extra.model": "gpt-4o"}}
    chat = Chat(messages=[ChatMessage(
        role="character", speaker="Wren", text="B", chosen=1,
        time=datetime(2024, 1, 1, tzinfo=UTC),
        alternatives=[Alternative(text="A", app_data=st), Alternative(text="B", app_data=st)])])
    out = reg().write([chat], FID)
    why = {e.path: e.reason for e in out.loss}
    for j in range(2):
        for key in ("api", "model"):
            assert why[f"messages[0].alternatives[{j}].app_data.sillytavern-chat.extra.{key}"] \
                == "a TavernAI swipe is its text alone"
    assert conversion_problems(reg(), [chat], FID) == []


def test_only_the_last_reply_keeps_its_swipes_as_tavernai_saves_them() -> None:
    """TavernAI's saveChat deletes the swipes of every reply but the chat's last: an earlier
    reply is written with its shown text and its other replies are reported dropped, so the
    file says what TavernAI keeps and the report says what goes."""
    t = datetime(2024, 1, 1, tzinfo=UTC)

    def reply(*texts: str) -> ChatMessage:
        return ChatMessage(role="character", speaker="Wren", text=texts[1], chosen=1, time=t,
                           alternatives=[Alternative(text=x) for x in texts])

    chat = Chat(messages=[reply("A", "B"), ChatMessage(role="user", speaker="Ada", text="Hi",
                                                        time=t), reply("C", "D")])
    out = reg().write([chat], FID)
    lines = [json.loads(x) for x in out.files[0].data.splitlines()][1:]
    assert "swipes" not in lines[0] and lines[0]["mes"] == "B"
    assert lines[2]["swipes"] == ["C", "D"] and lines[2]["swipe_id"] == 1
    why = {e.path: (e.action, e.reason) for e in out.loss}
    assert why["messages[0].alternatives"][0] == "dropped"
    assert "last message" in why["messages[0].alternatives"][1]
    assert "messages[2].alternatives" not in why
    assert conversion_problems(reg(), [chat], FID) == []


CAI = [{"user_name": "You", "character_name": "Wren", "create_date": 1700000000000},
       {"name": "Wren", "is_user": False, "is_name": True, "send_date": 1700000000001,
        "mes": "Hello."},
       {"name": "You", "is_user": True, "is_name": True, "send_date": 1700000000002,
        "mes": "Hi."}]


def test_the_labeler_tells_cai_tools_exports_from_tavernai() -> None:
    apps = [g.app for g in label(reg(), lines(*CAI), "x.jsonl").guesses]
    assert apps[0] == "CAI Tools"
    later = [dict(CAI[0]), dict(CAI[1], send_date=1700000900000),
             dict(CAI[2], send_date=1700000950000)]
    assert "CAI Tools" not in [g.app for g in label(reg(), lines(*later), "x.jsonl").guesses]


ERAS = {  # corpus file stem -> (app, a phrase of the evidence)
    "tavernai-chat__moving333_yjg__1673323621108": ("TavernAI", "TavernAI 1.2 to 1.3"),
    "tavernai-chat__aldozulhaq_TavernAI__1689442566015": ("TavernAI", "TavernAI 1.5"),
    "tavernai-legacy-chat__SillyTavern_SillyTavern__1673181146000": ("TavernAI", "1.1 or earlier"),
}


@pytest.mark.skipif(not FILES, reason="chat corpus not available")
@pytest.mark.parametrize("path", FILES, ids=ids(FILES))
def test_the_labeler_names_the_tavernai_that_wrote_each_real_chat(path: Path) -> None:
    app, phrase = ERAS[path.name.rsplit("__", 1)[0]]
    result = label(reg(), path)
    assert result.app == app, result.to_dict()
    assert any(phrase in e for e in result.guesses[0].evidence), result.to_dict()


PLAIN = [{"user_name": "You", "character_name": "Wren", "create_date": 1674559900991},
         {"name": "Wren", "is_user": False, "is_name": True, "send_date": 1674563153854,
          "mes": "The lamp is lit."},
         {"name": "You", "is_user": True, "is_name": True, "send_date": 1674563201130,
          "mes": "Good."},
         {"name": "Wren", "is_user": False, "is_name": True, "send_date": 1674563244002,
          "mes": "Mind the stairs.", "swipes": ["Careful.", "Mind the stairs."], "swipe_id": 1}]


def test_tavernai_1_2_and_1_3_chats_are_named_from_their_shape() -> None:
    """TavernAI's JSONL before ``chid``: a chat typed over minutes, the last reply with swipes
    (1.3); not CAI Tools, whose export stamps every line at one moment."""
    guesses = label(reg(), lines(*PLAIN), "x.jsonl").guesses
    assert [g.app for g in guesses] == ["TavernAI"]
    assert "TavernAI 1.2 to 1.3" in guesses[0].evidence[0]
    one = label(reg(), lines(*PLAIN[:2]), "x.jsonl").guesses  # a lone greeting
    assert [g.app for g in one] == ["TavernAI"]
    later = [PLAIN[0], dict(PLAIN[1], chid=0)]  # chid: a later TavernAI
    assert "TavernAI 1.2 to 1.3" not in " ".join(label(reg(), lines(*later), "x.jsonl")
                                               .guesses[0].evidence)


SAMPLES = Path(__file__).parent / "samples"


@pytest.mark.parametrize("name", ["tavernai-room-chat.jsonl", "caitools-tavern-chat.jsonl"])
def test_our_samples_round_trip_byte_for_byte(name: str) -> None:
    path = SAMPLES / name
    _, res, report = reg().read(as_input(path))
    assert report is not None and report.winner is not None and report.winner.format == FID
    out = reg().write(res.entities, FID)
    assert not out.loss and out.files[0].data == path.read_bytes()


def test_the_room_sample_reads_as_tavernai_1_5_saves_a_room() -> None:
    chat = read((SAMPLES / "tavernai-room-chat.jsonl").read_bytes())
    assert [(p.name, p.role) for p in chat.participants] == [
        ("You", "user"), ("Wren", "character"), ("Ada", "character")]
    assert chat.notes and chat.scenario == (
        "Two keepers share the Gull Point light through a winter storm.")
    assert [m.speaker for m in chat.messages] == ["Wren", "Ada", "You", "Wren", "You", "Ada"]
    *earlier, last = chat.messages
    assert last.chosen == 1 and len(last.alternatives) == 2  # swipes kept on the last reply
    assert not any(m.alternatives for m in earlier)
    assert label(reg(), SAMPLES / "tavernai-room-chat.jsonl").app == "TavernAI"


def test_the_cai_tools_sample_is_named_cai_tools_and_keeps_merged_turns() -> None:
    """CAI Tools joins a speaker's consecutive messages with a blank line and stamps every
    line with the moment of the download."""
    chat = read((SAMPLES / "caitools-tavern-chat.jsonl").read_bytes())
    assert [m.role for m in chat.messages] == ["character", "user"] * 2 + ["character"]
    assert "\n\n" in chat.messages[2].text
    result = label(reg(), SAMPLES / "caitools-tavern-chat.jsonl")
    assert result.app == "CAI Tools", result.to_dict()

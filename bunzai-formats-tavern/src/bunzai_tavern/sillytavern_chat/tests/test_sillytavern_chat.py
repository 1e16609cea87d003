"""sillytavern-chat: real SillyTavern chats round trip byte for byte; fields map as documented."""

from __future__ import annotations

import json
import os
import re
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from bunzai.sdk import (
    AdapterInput,
    Alternative,
    Attachment,
    BunzaiError,
    Chat,
    ChatMessage,
    Participant,
    get_limits,
)
from bunzai.testing import (
    Registry,
    as_input,
    conversion_problems,
    corpus_files,
    ids,
    label,
    load_registry,
)

FID = "sillytavern-chat"
FILES = [p for p in corpus_files("st-chat", "st-group-chat") if p.stat().st_size]
EMPTY = [p for p in corpus_files("st-chat") if not p.stat().st_size]


@cache
def reg() -> Registry:
    return load_registry()


def read(data: bytes, fmt: str | None = FID) -> Chat:
    _, res, _ = reg().read(as_input(data, "chat.jsonl"), format=fmt)
    chat = res.entities[0]
    assert isinstance(chat, Chat)
    return chat


def skipped(res: Any) -> list[tuple[str, str]]:
    """The read warnings that name a damaged line."""
    return [(w.path, w.message) for w in res.warnings if "skipped" in w.message]


def bare(chat: Chat) -> Chat:
    """A copy of ``chat`` with its layout (every passthrough) thrown away."""
    copy = chat.model_copy(deep=True)
    copy.passthrough = {}
    for m in copy.messages:
        m.passthrough = {}
        for item in (*m.alternatives, *m.attachments):
            item.passthrough = {}
    return copy


def jsonl(*objs: Any, eol: str = "\n") -> bytes:
    return eol.join(json.dumps(o, ensure_ascii=False, separators=(",", ":"))
                    for o in objs).encode()


@pytest.mark.skipif(not FILES, reason="chat corpus not available")
@pytest.mark.parametrize("path", FILES, ids=ids(FILES))
def test_real_chats_round_trip_byte_for_byte(path: Path) -> None:
    report = reg().detect(as_input(path))
    assert report.winner is not None and report.winner.format == FID
    _, res, _ = reg().read(as_input(path))
    out = reg().write(res.entities, FID)
    assert not out.loss, [str(e) for e in out.loss]
    assert out.files[0].data == path.read_bytes()
    assert conversion_problems(reg(), res.entities, FID) == []


@pytest.mark.skipif(not EMPTY, reason="chat corpus not available")
def test_the_zero_byte_backup_is_refused_or_read_as_an_empty_chat() -> None:
    path = EMPTY[0]
    with pytest.raises(BunzaiError, match="empty"):
        reg().read(as_input(path))
    _, res, _ = reg().read(as_input(path), format=FID)
    chat = res.entities[0]
    assert isinstance(chat, Chat) and list(chat.messages) == []
    out = reg().write(res.entities, FID)
    assert out.files[0].data == b"" and not out.loss


HEADER = {"user_name": "Ada", "character_name": "Wren", "create_date": "2024-11-03@21h04m05s",
          "chat_metadata": {"integrity": "5b0c", "note_prompt": "Keep the storm loud.",
                            "note_interval": 1, "note_position": 1, "note_depth": 4,
                            "note_role": 0, "main_chat": "Wren - 2024-11-01@10h00m00s",
                            "scenario": "A storm strands Ada.", "objective": {"tasks": 2}}}
GREETING = {"name": "Wren", "is_user": False, "is_system": False,
            "send_date": "November 3, 2024 9:04pm", "mes": "You're soaked.",
            "extra": {"reasoning": "", "token_count": 4}, "swipe_id": 1,
            "swipes": ["Who's there?", "You're soaked."],
            "swipe_info": [{"send_date": "November 3, 2024 9:04pm", "extra": {}},
                           {"send_date": "November 3, 2024 9:05pm",
                            "extra": {"reasoning": "She is wary.", "api": "custom"}}]}
USER = {"name": "Ada", "is_user": True, "is_system": True, "send_date": 1730668000000,
        "mes": "(brb)", "extra": {"isSmallSys": False,
                                  "image": "/user/images/Wren/ferry.png",
                                  "file": {"url": "/user/files/map.txt", "size": 12,
                                           "name": "map.txt", "created": 1730668000000}},
        "force_avatar": "User Avatars/ada.png"}
NARRATOR = {"name": "System", "is_user": False, "is_system": False,
            "send_date": "2024-11-03T21:07:00.000Z", "mes": "Thunder.",
            "extra": {"type": "narrator", "api": "manual", "model": "slash command",
                      "bookmark_link": "Checkpoint #1"}}
COMMENT = {"name": "Note", "is_user": False, "is_system": True,
           "send_date": "November 3, 2024 9:08pm", "mes": "remember the ferry",
           "extra": {"type": "comment", "gen_id": 1}}


def test_fields_map_to_the_canonical_chat() -> None:
    chat = read(jsonl(HEADER, GREETING, USER, NARRATOR, COMMENT))
    assert [(p.name, p.role) for p in chat.participants] == [("Ada", "user"),
                                                             ("Wren", "character")]
    assert chat.created == datetime(2024, 11, 3, 21, 4, 5, tzinfo=UTC)
    assert (chat.notes, chat.branch_of, chat.scenario) == (
        "Keep the storm loud.", "Wren - 2024-11-01@10h00m00s", "A storm strands Ada.")
    greeting, user, narrator, comment = chat.messages
    assert [a.text for a in greeting.alternatives] == ["Who's there?", "You're soaked."]
    assert greeting.chosen == 1 and greeting.alternatives[1].reasoning == "She is wary."
    assert greeting.alternatives[1].time == datetime(2024, 11, 3, 21, 5, tzinfo=UTC)
    assert greeting.reasoning is None  # an empty reasoning is no reasoning
    assert (user.role, user.hidden, user.speaker) == ("user", True, "Ada")
    assert user.time == datetime(2024, 11, 3, 21, 6, 40, tzinfo=UTC)
    assert [(a.type, a.uri, a.name) for a in user.attachments] == [
        ("image", "/user/images/Wren/ferry.png", None), ("file", "/user/files/map.txt",
                                                         "map.txt")]
    assert (narrator.role, narrator.model, narrator.bookmark) == (
        "narrator", "slash command", "Checkpoint #1")
    assert (comment.role, comment.hidden) == ("system", True)


def test_what_a_user_wrote_is_reported_when_another_format_drops_it() -> None:
    chat = read(jsonl(HEADER, GREETING, USER, NARRATOR, COMMENT))
    out = reg().write([chat], "tavernai-chat")
    paths = {e.path for e in out.loss}
    assert "app_data.sillytavern-chat.chat_metadata.objective" in paths
    assert "messages[2].app_data.sillytavern-chat.extra.api" in paths
    assert "messages[1].app_data.sillytavern-chat.force_avatar" in paths
    assert "messages[1].attachments" in paths and "messages[1].hidden" in paths
    # the greeting's swipes: TavernAI keeps swipes on the last message only
    assert "messages[0].alternatives" in paths
    # layout and defaults are never losses: integrity, note settings at their defaults,
    # counters and timings, an empty reasoning, isSmallSys false
    assert "messages[0].reasoning" not in paths
    assert not [p for p in paths if any(k in p for k in (
        "integrity", "note_interval", "token_count", "gen_id", "gen_started", "isSmallSys",
        "passthrough"))]
    assert conversion_problems(reg(), [chat], "tavernai-chat") == []


def test_what_sillytavern_keeps_for_itself_is_app_data_and_what_it_counts_is_layout() -> None:
    timed = dict(NARRATOR, gen_started="2024-11-03T21:06:58.000Z",
                 gen_finished="2024-11-03T21:07:00.000Z")
    chat = read(jsonl(HEADER, GREETING, USER, timed, COMMENT))
    assert chat.app_data[FID] == {"chat_metadata.objective": {"tasks": 2}}
    assert chat.messages[1].app_data[FID] == {"extra.isSmallSys": False,
                                              "force_avatar": "User Avatars/ada.png"}
    narrator = chat.messages[2]
    assert narrator.app_data[FID] == {"extra.api": "manual"}
    assert narrator.passthrough[FID]["keep"]["gen_started"] == timed["gen_started"]
    assert chat.messages[0].alternatives[1].app_data[FID] == {"extra.api": "custom"}
    assert chat.messages[3].app_data == {}  # a comment's type and gen_id are SillyTavern's own


def test_line_endings_blank_and_broken_lines_survive() -> None:
    data = jsonl(HEADER, GREETING, eol="\r\n") + b"\r\n\r\n{not json\r\n" + jsonl(USER)
    chat = read(data)
    assert len(chat.messages) == 2
    assert reg().write([chat], FID).files[0].data == data


DAMAGED = {
    "cut-mid-json": (b'{"name":"Ada","is_user":true,"send_date":1730668000000,"mes":"Open th',
                     "not JSON"),
    "invalid-utf8": (b'{"name":"Ada","is_user":true,"mes":"caf\xe9"}', "not valid UTF-8"),
    "nested-too-deep": (b'{"name":"Ada","mes":"x","extra":' + b"[" * 1100 + b"]" * 1100 + b"}",
                        "JSON nested deeper than the parser allows"),
    "number-beyond-float": (b'{"name":"Ada","mes":"x","extra":{"n":1e400}}',
                            "a number beyond the float range"),
    "not-an-object": (b'["Ada", "hello"]', "a JSON array, not an object"),
}
CHAT_WRITERS = ("tavernai-chat", "agnai-chat", "risu-chat", "oobabooga-chat", "backyard-chat")


@pytest.mark.parametrize("where", ["middle", "end"])
@pytest.mark.parametrize("case", list(DAMAGED), ids=list(DAMAGED))
def test_a_damaged_line_is_named_and_every_other_format_reports_it_dropped(
        case: str, where: str) -> None:
    bad, why = DAMAGED[case]
    data = jsonl(HEADER, GREETING) + b"\n" + bad + (b"\n" + jsonl(USER) if where == "middle"
                                                   else b"")
    _, res, _ = reg().read(as_input(data, "chat.jsonl"))
    assert skipped(res) == [
        ("line 3", f"{why}, {len(bad):,} bytes skipped")]
    chat = res.entities[0]
    assert isinstance(chat, Chat)
    assert len(chat.messages) == (2 if where == "middle" else 1)
    assert reg().write([chat], FID).files[0].data == data  # the same format puts it back
    for target in CHAT_WRITERS:
        loss = {(e.path, e.action) for e in reg().write([chat], target).loss}
        assert ("messages[0].app_data.sillytavern-chat.skipped lines", "dropped") in loss, target
        assert conversion_problems(reg(), [chat], target) == []
    assert conversion_problems(reg(), [bare(chat)], FID) == []


def test_damaged_lines_before_the_first_message_belong_to_the_chat() -> None:
    data = jsonl(HEADER) + b"\n{\"name\n\n" + jsonl(GREETING)
    _, res, _ = reg().read(as_input(data, "chat.jsonl"))
    assert skipped(res) == [("line 2", "not JSON, 6 bytes "
                                                                      "skipped")]
    chat = res.entities[0]
    assert chat.app_data[FID]["skipped lines"] == ['{"name']
    assert reg().write([chat], FID).files[0].data == data
    loss = {(e.path, e.action) for e in reg().write([chat], "agnai-chat").loss}
    assert ("app_data.sillytavern-chat.skipped lines", "dropped") in loss
    assert conversion_problems(reg(), [bare(chat)], FID) == []


def test_a_damaged_line_of_a_streamed_chat_is_named_when_it_is_read(tmp_path: Path) -> None:
    path = tmp_path / "chat.jsonl"
    path.write_bytes(jsonl(HEADER, GREETING) + b"\n{oops\n" + jsonl(USER))
    inp = AdapterInput.from_path(path, limits=get_limits().replace(stream_above=64))
    assert inp.streamed
    _, res, _ = reg().read(inp, format=FID)
    assert skipped(res) == [("line 3", "not JSON, 5 bytes "
                                                                      "skipped")]
    chat = res.entities[0]
    assert len(chat.messages) == 2
    assert chat.messages[0].app_data[FID]["skipped lines"] == ["{oops"]


@pytest.fixture
def in_paris() -> Iterator[None]:
    """This machine's clock in Paris (summer time, UTC+2, in August)."""
    before = os.environ.get("TZ")
    os.environ["TZ"] = "Europe/Paris"
    time.tzset()
    try:
        yield
    finally:
        if before is None:
            os.environ.pop("TZ", None)
        else:
            os.environ["TZ"] = before
        time.tzset()


WALL = jsonl({"user_name": "Ada", "character_name": "Wren", "chat_metadata": {}},
             {"name": "Wren", "is_user": False, "send_date": "August 5, 2025 9:59pm",
              "mes": "Rain again."},
             {"name": "Ada", "is_user": True, "send_date": "August 5, 2025 10:01pm",
              "mes": "The ferry is late."})


def test_times_without_a_zone_are_read_in_the_zone_the_reader_is_given(in_paris: None) -> None:
    _, res, _ = reg().read(as_input(WALL, "chat.jsonl"))
    chat = res.entities[0]
    assert isinstance(chat, Chat) and chat.time_zone == "local"
    assert chat.messages[0].time == datetime(2025, 8, 5, 19, 59, tzinfo=UTC)  # 9:59pm in Paris
    (note,) = [w for w in res.warnings if "zone" in w.message]  # said once for the chat
    assert note.path == "line 2" and "'August 5, 2025 9:59pm'" in note.message
    # the offset the machine has today, summer or winter time
    assert re.search(r"read as this machine's local time \(CES?T, UTC\+0[12]:00 now\)",
                     note.message), note.message
    _, res, _ = reg().read(as_input(WALL, "chat.jsonl"), format=FID, options={"zone": "utc"})
    chat = res.entities[0]
    assert isinstance(chat, Chat) and chat.time_zone == "utc"
    assert chat.messages[0].time == datetime(2025, 8, 5, 21, 59, tzinfo=UTC)
    (note,) = [w for w in res.warnings if "zone" in w.message]
    assert note.message.endswith("read as UTC; the reader option zone=local reads them as "
                                 "this machine's time")
    _, res, _ = reg().read(as_input(jsonl(HEADER_NO_DATES, USER), "chat.jsonl"))
    assert res.entities[0].time_zone is None  # type: ignore[attr-defined]  # instants only


HEADER_NO_DATES = {"user_name": "Ada", "character_name": "Wren", "chat_metadata": {}}


def test_a_conversion_that_makes_wall_clock_times_instants_says_so(in_paris: None) -> None:
    chat = read(WALL)
    assert reg().write([chat], FID).files[0].data == WALL  # the texts themselves come back
    for target in ("tavernai-chat", "risu-chat", "backyard-chat"):
        out = reg().write([chat], target)
        assert ("time_zone", "approximated") in {(e.path, e.action) for e in out.loss}, target
        assert conversion_problems(reg(), [chat], target) == []
    # the webui writes wall-clock times too: the same clock time, nothing to say
    out = reg().write([chat], "oobabooga-chat")
    assert json.loads(out.files[0].data)["metadata"]["assistant_0"]["timestamp"] == \
        "Aug 05, 2025 21:59"
    assert "time_zone" not in {e.path for e in out.loss}
    assert conversion_problems(reg(), [chat], "oobabooga-chat") == []


def test_edits_are_written_as_edited() -> None:
    chat = read(jsonl(HEADER, GREETING, USER))
    chat.materialize()
    greeting = chat.messages[0]
    greeting.chosen = 0
    greeting.text = "Who's there?"
    greeting.time = datetime(2024, 11, 3, 21, 30, tzinfo=UTC)
    chat.notes = None
    lines = [json.loads(x) for x in reg().write([chat], FID).files[0].data.splitlines()]
    assert lines[1]["swipe_id"] == 0 and lines[1]["mes"] == "Who's there?"
    # a chat dated in wall-clock time stays so: the edited date as SillyTavern writes one
    assert lines[1]["send_date"] == "November 3, 2024 9:30pm"
    assert "note_prompt" not in lines[0]["chat_metadata"]
    assert lines[2] == USER  # untouched messages are written as they were


def test_a_chat_from_another_app_is_written_as_sillytavern_saves_one() -> None:
    t = datetime(2024, 11, 3, 21, 4, 5, 250000, tzinfo=UTC)
    chat = Chat(participants=[Participant(name="Ada", role="user"),
                              Participant(name="Wren", role="character")],
                created=t, notes="Loud storm.",
                messages=[ChatMessage(role="character", text="You're soaked.", time=t,
                                      alternatives=[Alternative(text="Hm?"),
                                                    Alternative(text="You're soaked.")],
                                      chosen=1),
                          ChatMessage(role="user", text="Hi", id="m2",
                                      attachments=[Attachment(uri="https://x/ferry.png")])])
    out = reg().write([chat], FID)
    header, first, second = (json.loads(x) for x in out.files[0].data.splitlines())
    assert list(header) == ["user_name", "character_name", "create_date", "chat_metadata"]
    assert header["chat_metadata"] == {"note_prompt": "Loud storm."}
    assert first["name"] == "Wren" and first["send_date"] == 1730667845250
    assert first["swipes"] == ["Hm?", "You're soaked."] and first["swipe_id"] == 1
    assert second["extra"]["image"] == "https://x/ferry.png"
    assert header["create_date"] == 1730667845250  # finer than a second: epoch ms
    reported = {(e.path, e.action) for e in out.loss}
    # a name SillyTavern needs; message ids are the app's own, never a loss
    assert reported == {("messages[0].speaker", "approximated"),
                        ("messages[1].speaker", "approximated")}
    assert reg().detect(as_input(out.files[0].data, "x.jsonl")).winner.format == FID  # type: ignore[union-attr]
    assert conversion_problems(reg(), [chat], FID) == []


def test_a_chat_naming_no_one_gets_the_header_sillytavern_writes_today() -> None:
    """SillyTavern 1.15 (and its importers) write ``chat_metadata`` first with "unused" names
    and no ``create_date``; SillyTavern only keeps ``create_date`` to save it again."""
    chat = Chat(notes="Loud storm.", messages=[ChatMessage(role="user", text="Hi")])
    out = reg().write([chat], FID)
    header = json.loads(out.files[0].data.splitlines()[0])
    assert list(header) == ["chat_metadata", "user_name", "character_name"]
    assert header == {"chat_metadata": {"note_prompt": "Loud storm."},
                      "user_name": "unused", "character_name": "unused"}
    named = Chat(participants=[Participant(name="Ada", role="user")],
                 messages=[ChatMessage(role="user", text="Hi")])
    header = json.loads(reg().write([named], FID).files[0].data.splitlines()[0])
    assert header == {"user_name": "Ada", "character_name": "unused", "chat_metadata": {}}
    for c in (chat, named):
        assert conversion_problems(reg(), [c], FID) == []


def test_a_headerless_group_chat_stays_headerless() -> None:
    first = dict(NARRATOR, is_group=True, original_avatar="Wren.png")
    data = jsonl(first, USER)
    chat = read(data)
    assert chat.participants == [] and len(chat.messages) == 2
    assert reg().write([chat], FID).files[0].data == data


MERIDIEM, INTEGRITY = "from mid-2023 to 1.14", "1.12 or later"
ERAS = {  # corpus file stem -> phrases of the evidence (the version its repository shows)
    "st-chat__seoulrebel_ST_Codex__Simulator_2025_05_25_02h36m00s": (MERIDIEM, INTEGRITY),
    "st-chat__seoulrebel_ST_Codex__chat_erykah_20250520_043447": (MERIDIEM, INTEGRITY),
    "st-chat__Mrjwj34_chatBots__chat_default_assistant_20250724_123651": (MERIDIEM, INTEGRITY),
    "st-chat__Trenttouch_stupidbar__chat_20250805_151805": (MERIDIEM, INTEGRITY),  # 1.13.2
    "st-chat__amnesiavon_huggstory__Mori_2025_04_26_16h40m30s": (MERIDIEM, INTEGRITY),
    "st-chat__2208096_sillytavern_saves__Branch_19_2025_07_01_18h08m30s": (MERIDIEM,),
    "st-chat__glxiang369_sillytavern_saves__2025_04_28_23h18m07s": (MERIDIEM,),  # 1.12.9
    "st-chat__SevenvxCN_nini__chat_default_seraphina_20260111_195406": ("1.15 or later",),
    "st-chat__moving333_yjg__1673323621108": ("early-mid 2023",),  # April 2023
    "st-chat__aldozulhaq_TavernAI__1677261616514": ("early-mid 2023",),  # April 2023
    "st-group-chat__seoulrebel_ST_Codex__chat_2025_05_21_05h22m05s_20250521_05590":
        ("up to 1.13",),
    "st-group-chat__seoulrebel_ST_Codex__2025_05_29_09h15m12s": ("up to 1.13",),
    "st-group-chat__boahancuck_xiaoxie__chat_2025_03_24_18h28m28s_20250324_10315":
        ("up to 1.13",),  # 1.12.12
}


def _evidence(source: Any) -> tuple[str | None, str]:
    result = label(reg(), source, "chat.jsonl")
    return result.app, " | ".join(e for g in result.guesses for e in g.evidence)


@pytest.mark.skipif(not FILES, reason="chat corpus not available")
@pytest.mark.parametrize("path", FILES, ids=ids(FILES))
def test_the_labeler_names_the_sillytavern_era_of_each_real_chat(path: Path) -> None:
    app, evidence = _evidence(path)
    assert app == "SillyTavern", evidence
    for phrase in ERAS[path.name.rsplit("__", 1)[0]]:
        assert phrase in evidence, evidence


def test_the_labeler_names_each_era_of_our_own_chats() -> None:
    """The same eras on chats written here: one per shape SillyTavern has saved."""
    eras = {
        jsonl(HEADER, GREETING, USER): ("header with chat_metadata", MERIDIEM, INTEGRITY),
        jsonl({"chat_metadata": {"integrity": "5b0c"}, "user_name": "unused",
               "character_name": "unused"}, dict(USER, send_date="2024-11-03T21:06:40.000Z")):
            ("1.15 or later",),
        jsonl(dict(NARRATOR, is_group=True, original_avatar="Wren.png"), USER): ("up to 1.13",),
        jsonl({"user_name": "You", "character_name": "Wren",
               "create_date": "2023-3-20 @10h 31m 12s 164ms"},
              {"name": "Wren", "is_user": False, "is_name": True,
               "send_date": "2023-3-20 @10h 31m 12s 164ms", "mes": "Hello.", "extra": {}}):
            ("before 1.4",),
        jsonl({"user_name": "You", "character_name": "Wren",
               "create_date": "2023-4-20 @10h 31m 12s 164ms", "chat_metadata": {}},
              {"name": "Wren", "is_user": False, "is_name": True,
               "send_date": "2023-4-20 @10h 31m 12s 164ms", "mes": "Hello."}):
            ("early-mid 2023",),
    }
    for data, phrases in eras.items():
        app, evidence = _evidence(data)
        assert app == "SillyTavern", evidence
        assert all(p in evidence for p in phrases), (phrases, evidence)

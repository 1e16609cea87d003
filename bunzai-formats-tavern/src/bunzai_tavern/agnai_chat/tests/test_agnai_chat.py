"""agnai-chat: Agnai's chat export maps to the canonical chat and writes back byte for byte."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from functools import cache
from pathlib import Path

from bunzai.sdk import Alternative, Chat, ChatMessage
from bunzai.testing import Registry, as_input, conversion_problems, label, load_registry

FID = "agnai-chat"
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


def test_the_export_maps_to_the_canonical_chat() -> None:
    chat = read("agnai-chat-export.json")
    assert chat.title is None and chat.greeting and chat.example_dialogue  # "Exported": no title
    assert [(m.role, m.speaker) for m in chat.messages] == [
        ("character", None), ("user", "Ada"), ("character", None), ("user", "Ada")]


def test_store_fields_map_too() -> None:
    first, ooc, system = read("agnai-chat-messages.json").messages
    assert first.speaker == "Wren" and first.id == "6701a1b2c3d4e5f601234560"
    assert [a.text for a in first.alternatives] == ["The lamp is lit.", "Who's there?",
                                                    "Mind the stairs."]
    assert first.time == datetime(2024, 10, 5, 20, 11, 3, 512000, tzinfo=UTC)
    assert ooc.hidden and system.role == "system"


def test_exports_round_trip_byte_for_byte() -> None:
    for path in sorted(SAMPLES.glob("*.json")):
        _, res, _ = reg().read(as_input(path))
        out = reg().write(res.entities, FID)
        assert not out.loss and out.files[0].data == path.read_bytes(), path.name


def test_a_chat_from_another_app_is_written_as_agnai_imports_it() -> None:
    chat = Chat(messages=[
        ChatMessage(role="character", speaker="Wren", text="B", chosen=1,
                    time=datetime(2024, 1, 1, tzinfo=UTC),
                    alternatives=[Alternative(text="A"), Alternative(text="B")]),
        ChatMessage(role="user", speaker="Ada", text="Hi", hidden=True)])
    out = reg().write([chat], FID)
    doc = json.loads(out.files[0].data)
    assert list(doc) == ["name", "greeting", "sampleChat", "scenario", "messages"]
    assert doc["messages"] == [{"characterId": "imported", "msg": "B", "retries": ["A"]},
                               {"handle": "Ada", "userId": "anon", "msg": "Hi", "ooc": True}]
    got = {(e.path, e.action) for e in out.loss}
    assert {("messages[0].speaker", "dropped"), ("messages[0].time", "dropped"),
            ("messages[0].chosen", "approximated")} <= got
    assert conversion_problems(reg(), [chat], FID) == []


def test_a_reordered_reply_names_what_each_swipe_loses() -> None:
    """Moving the shown reply first changes swipe texts only: every swipe's date and other
    app's data is still named on its own path, not hidden under one "alternatives" entry."""
    when = datetime(2025, 8, 5, 21, 59, tzinfo=UTC)
    st = {"sillytavern-chat": {"extra.api": "openai", "extra.model": "gpt-4o"}}
    chat = Chat(messages=[
        ChatMessage(role="user", speaker="Ada", text="Knock knock."),
        ChatMessage(role="character", speaker="Wren", text="Who's there?", chosen=1,
                    alternatives=[Alternative(text="Go away.", time=when, app_data=st),
                                  Alternative(text="Who's there?", time=when, app_data=st),
                                  Alternative(text="Mind the stairs.", time=when,
                                              app_data=st)])])
    out = reg().write([chat], FID)
    got = {(e.path, e.action) for e in out.loss}
    alt = "messages[1].alternatives"
    assert (alt, "approximated") not in got
    assert {(f"{alt}[0].text", "approximated"), (f"{alt}[1].text", "approximated"),
            ("messages[1].chosen", "approximated")} <= got
    assert (f"{alt}[2].text", "approximated") not in got  # still the third reply
    for j in range(3):
        assert {(f"{alt}[{j}].time", "dropped"),
                (f"{alt}[{j}].app_data.sillytavern-chat.extra.api", "dropped"),
                (f"{alt}[{j}].app_data.sillytavern-chat.extra.model", "dropped")} <= got
    assert conversion_problems(reg(), [chat], FID) == []


def test_the_labeler_names_agnai_on_its_exports_and_on_ours() -> None:
    """Agnai's export (our samples, as ``ChatExport.tsx`` writes it) and a chat bunzai writes
    for Agnai both carry Agnai's evidence: the chat's four texts and ``characterId``
    "imported"."""
    written = reg().write([Chat(messages=[ChatMessage(role="character", text="Hello.")])],
                          FID).files[0].data
    for source in [*sorted(SAMPLES.glob("*.json")), written]:
        result = label(reg(), source, "chat.json")
        assert result.app == "Agnai", result.to_dict()
        assert any('characterId "imported"' in e for e in result.guesses[0].evidence)


def test_a_user_named_only_in_name_keeps_the_name() -> None:
    doc = {"name": "Exported", "greeting": "", "sampleChat": "", "scenario": "", "messages": [
        {"handle": "Ada", "userId": "u1", "name": "Ada", "msg": "Is the ferry late?"},
        {"userId": "u2", "name": "Bea", "msg": "It always is."},
        {"characterId": "imported", "name": "Wren", "msg": "Rain again."}]}
    data = json.dumps(doc, indent=2).encode()
    _, res, _ = reg().read(as_input(data, "chat.json"))
    chat = res.entities[0]
    assert [(m.role, m.speaker) for m in chat.messages] == [  # type: ignore[attr-defined]
        ("user", "Ada"), ("user", "Bea"), ("character", "Wren")]
    assert reg().write([chat], FID).files[0].data == data  # both keys come back
    out = reg().write([chat], "sillytavern-chat")
    lines = [json.loads(x) for x in out.files[0].data.splitlines()]
    assert [x.get("name") for x in lines[1:]] == ["Ada", "Bea", "Wren"]
    assert "messages[1].speaker" not in {e.path for e in out.loss}
    for target in ("risu-chat", "oobabooga-chat"):
        loss = {(e.path, e.action) for e in reg().write([chat], target).loss}
        assert ("messages[1].speaker", "dropped") in loss, target
        assert conversion_problems(reg(), [chat], target) == []

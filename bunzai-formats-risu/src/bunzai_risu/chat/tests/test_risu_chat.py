"""risu-chat: RisuAI chat exports map to the canonical chat and write back byte for byte."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from functools import cache
from pathlib import Path
from typing import Any

from bunzai.sdk import AdapterInput, Chat, ChatMessage, Participant
from bunzai.testing import conversion_problems, label, load_registry

FID = "risu-chat"
SAMPLES = Path(__file__).parent / "samples"


@cache
def reg() -> Any:
    return load_registry()


def read(path: Path) -> list[Chat]:
    handle, res, _ = reg().read(AdapterInput.from_path(path))
    assert handle.id == FID
    return list(res.entities)  # type: ignore[arg-type]


def test_fields_map_to_the_canonical_chat() -> None:
    (chat,) = read(SAMPLES / "risu-chat-export.json")
    assert (chat.title, chat.notes) == ("Storm night", "Keep the storm loud.")
    assert chat.app_data[FID] == {"fmIndex": -1, "scriptstate": {"$weather": "storm"},
                                  "modules": []}
    assert chat.passthrough[FID]["keep"]["lastDate"] == 1717250530000  # RisuAI's bookkeeping
    assert chat.messages[1].app_data == {}  # its generation counts are RisuAI's bookkeeping
    assert chat.messages[3].app_data[FID] == {"saying": "0c9a7e52-aaaa-4c1f-9d2e-0000000000ff"}
    assert chat.lorebook is not None and chat.lorebook.entries[0].keys == ["ferry"]
    user, reply, ooc, wren, comment = chat.messages
    assert user.time == datetime(2024, 6, 1, 14, 0, tzinfo=UTC)
    assert (reply.role, reply.model, reply.bookmark) == ("character", "openrouter/mistral-large",
                                                         "the lamp")
    assert ooc.hidden and wren.speaker == "Wren" and comment.role == "system"


def test_exports_round_trip_byte_for_byte() -> None:
    for path in sorted(SAMPLES.glob("*.json")):
        chats = read(path)
        out = reg().write(chats, FID)
        assert not out.loss and out.files[0].data == path.read_bytes(), path.name


def test_several_chats_are_one_all_chats_export() -> None:
    a, b = read(SAMPLES / "risu-chat-export.json")[0], read(SAMPLES / "risu-chat-export-v1.json")[0]
    out = reg().write([a, b], FID)
    doc = json.loads(out.files[0].data)
    assert doc["type"] == "risuAllChats" and [c["name"] for c in doc["data"]] == [
        "Storm night", "Old chat"]
    _, res, _ = reg().read(AdapterInput(out.files[0].data, "all.json"))
    assert [c.title for c in res.entities] == ["Storm night", "Old chat"]  # type: ignore[attr-defined]


def test_a_chat_from_another_app_is_written_as_risu_imports_it() -> None:
    chat = Chat(participants=[Participant(name="Ada", role="user")],
                messages=[ChatMessage(role="narrator", text="Rain.",
                                      time=datetime(2024, 6, 1, 14, tzinfo=UTC)),
                          ChatMessage(role="user", speaker="Ada", text="Hi", bookmark="here")])
    out = reg().write([chat], FID)
    doc = json.loads(out.files[0].data)
    assert (doc["type"], doc["ver"], doc["data"]["fmIndex"]) == ("risuChat", 2, -1)
    first, second = doc["data"]["message"]
    assert first == {"role": "char", "data": "Rain.", "time": 1717250400000}
    assert doc["data"]["bookmarks"] == [second["chatId"]]
    # the id made for the bookmark is RisuAI's own: no loss
    assert {(e.path, e.action) for e in out.loss} == {
        ("participants", "dropped"), ("messages[0].role", "approximated"),
        ("messages[1].speaker", "dropped")}
    assert conversion_problems(reg(), [chat], FID) == []


def test_the_labeler_names_risuai_and_the_export_version() -> None:
    for name, version in (("risu-chat-export.json", "ver 2"),
                          ("risu-chat-export-v1.json", "ver 1")):
        result = label(reg(), SAMPLES / name)
        assert result.app == "RisuAI", result.to_dict()
        assert any(version in e for e in result.guesses[0].evidence), result.to_dict()


def test_a_lore_item_that_is_no_entry_is_named_kept_and_reported() -> None:
    doc = json.loads((SAMPLES / "risu-chat-export.json").read_bytes())
    doc["data"]["localLore"].insert(0, "a stray note")
    data = json.dumps(doc).encode()
    _, res, _ = reg().read(AdapterInput(data, "chat.json"))
    assert [(w.path, w.message) for w in res.warnings] == [
        ("$.data.localLore[0]", "expected an entry object, got a string; skipped")]
    (chat,) = res.entities
    assert json.loads(reg().write([chat], FID).files[0].data) == doc
    loss = {(e.path, e.action) for e in reg().write([chat], "sillytavern-chat").loss}
    assert ("app_data.risu-chat.skipped localLore", "dropped") in loss
    assert conversion_problems(reg(), [chat], "sillytavern-chat") == []

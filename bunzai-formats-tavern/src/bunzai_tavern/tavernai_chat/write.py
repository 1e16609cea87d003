"""Writing TavernAI chats: the 1.5 JSONL shape (a room when several characters speak), or the
legacy array for a chat that came from one.  Output is streamed line by line."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from bunzai.chats import chat_fields_only, extra_of, layout_of, report_unkept
from bunzai.chattime import restore
from bunzai.loss import LossReport
from bunzai.types import OutputFile, WriteResult

from .._chat import Line, dumps_js, emit, ordered, restore_line
from . import FORMAT_ID
from .read import _legacy, header_fields, message

if TYPE_CHECKING:
    from bunzai.model import Chat, ChatMessage

FMT = FORMAT_ID
REASONS = {
    "title": "a TavernAI chat is named by its file",
    "participants": "a TavernAI chat names one user and its characters",
    "memory": "TavernAI chats keep no memory",
    "greeting": "a TavernAI chat starts with the card's greeting as a message",
    "example_dialogue": "example dialogue lives on the TavernAI card",
    "system_prompt": "TavernAI keeps the system prompt in its settings",
    "branch_of": "TavernAI chats have no branches",
    "lorebook": "TavernAI world info is not part of a chat",
    "hidden": "TavernAI cannot hide a message from the prompt",
    "reasoning": "TavernAI keeps no reasoning",
    "model": "TavernAI does not record the model",
    "id": "TavernAI messages have no ids",
    "participants.id": "TavernAI names the user and the characters; it keeps no ids",
    "participants.avatar": "TavernAI finds avatars by the character, not in the chat",
    "bookmark": "TavernAI has no bookmarks",
    "attachments": "TavernAI messages have no attachments",
    "role": "TavernAI has only user and character messages",
    "speaker": "TavernAI needs a name on every message",
    "time": "TavernAI dates are epoch milliseconds",
    "alternatives.time": "TavernAI swipes have no dates",
    "alternatives.reasoning": "TavernAI keeps no reasoning",
    "created": "TavernAI dates are epoch milliseconds",
    "extensions": "TavernAI has no place for other apps' extensions",
}
APPROXIMATED = frozenset({"role", "speaker", "time", "created"})


class _Lines:
    def __init__(self, chat: Chat) -> None:
        self.chat = chat

    def __iter__(self) -> Iterator[bytes]:
        return _produce(self.chat)


def write_chat(chat: Chat) -> WriteResult:
    loss = LossReport()
    layout = layout_of(chat, FMT)
    if layout.get("legacy"):
        return _write_legacy(chat, loss)
    names = _names(chat)
    header = header_obj(chat)
    fields: dict[str, Any] = {}
    from bunzai.model import Chat as ChatModel
    back = ChatModel(participants=header_fields(header, {}, {}, fields, []), **fields)
    report_unkept(loss, "", chat_fields_only(chat), back, reasons=REASONS,
                  approximated=APPROXIMATED, default="a TavernAI chat has no such field",
                  skip=("messages",))
    for i, m in enumerate(chat.iter_messages()):
        got = message(Line(b"", b"", message_obj(m, names)), [], False, b"\n")
        report_unkept(loss, f"messages[{i}].", m, got, reasons=REASONS,
                      approximated=APPROXIMATED, default="TavernAI has no place for it")
    return WriteResult([OutputFile([_Lines(chat)], ".jsonl")], loss)


def _write_legacy(chat: Chat, loss: LossReport) -> WriteResult:
    lines = [m.text if layout_of(m, FMT).get("bare") else f"{_name(m)}: {m.text}"
             for m in chat.iter_messages()]
    data = dumps_js(lines) + (b"\n" if layout_of(chat, FMT).get("newline") else b"")
    back = _legacy(lines, False).entities[0]
    report_unkept(loss, "", chat_fields_only(chat), chat_fields_only(back),  # type: ignore[arg-type]
                  reasons=REASONS, approximated=APPROXIMATED,
                  default="a legacy TavernAI chat holds only \"Name: text\" lines",
                  skip=("messages",))
    for i, (m, b) in enumerate(zip(chat.iter_messages(), back.messages, strict=True)):  # type: ignore[attr-defined]
        report_unkept(loss, f"messages[{i}].", m, b, reasons=REASONS,
                      approximated=APPROXIMATED,
                      default="a legacy TavernAI chat holds only \"Name: text\" lines")
    return WriteResult([OutputFile(data, ".json")], loss)


def _name(m: ChatMessage) -> str:
    return m.speaker or ("You" if m.role == "user" else "Character")


def _names(chat: Chat) -> dict[str, str]:
    out: dict[str, str] = {}
    for p in chat.participants:
        if p.role in ("user", "character") and p.name:
            out.setdefault(p.role, p.name)
    return out


def _produce(chat: Chat) -> Iterator[bytes]:
    layout = layout_of(chat, FMT)
    names = _names(chat)
    eol = str(layout.get("eol", "\n")).encode("ascii")
    for kept in layout.get("lead") or ():
        yield restore_line(kept)
    messages = iter(chat.iter_messages())
    first = next(messages, None)
    header_eol = layout.get("header_eol")
    end = str(header_eol).encode("ascii") if header_eol is not None else (
        eol if first is not None else b"")
    yield emit(header_obj(chat), layout) + end
    for kept in layout.get("after_header") or ():
        yield restore_line(kept)
    current = first
    while current is not None:
        following = next(messages, None)
        record = layout_of(current, FMT)
        own = record.get("eol")
        end = str(own).encode("ascii") if own is not None else (
            eol if following is not None else b"")
        yield emit(message_obj(current, names), record) + end
        for kept in record.get("gap") or ():
            yield restore_line(kept)
        current = following


def header_obj(chat: Chat) -> dict[str, Any]:
    layout = layout_of(chat, FMT)
    extra = extra_of(chat, FMT)
    users = [p.name for p in chat.participants if p.role == "user" and p.name]
    chars = [p.name for p in chat.participants if p.role == "character" and p.name]
    out: dict[str, Any] = {}
    if users:
        out["user_name"] = users[0]
    else:
        out["user_name"] = layout.get("user_name", "You")
    room = layout.get("room") or len(chars) > 1 or "character_names" in layout
    if room:
        out["character_names"] = chars if chars or "character_names" not in layout else \
            layout["character_names"]
    elif chars:
        out["character_name"] = chars[0]
    elif "character_name" in layout or "header_order" not in layout:
        out["character_name"] = layout.get("character_name", "")
    created = restore(chat.created, layout.get("create_date"), "epoch_ms")
    if created is not None:
        out["create_date"] = created
    elif "create_date" in layout:
        out["create_date"] = layout["create_date"]
    for key in ("notes", "scenario"):
        value = getattr(chat, key)
        if value:
            out[key] = value
        elif key in layout:
            out[key] = layout[key]
    if "header_order" not in layout:
        out.setdefault("notes", "")
        out.setdefault("notes_type", "discr")
    for key, value in extra.items():
        out.setdefault(key, value)
    return ordered(out, layout.get("header_order"))


def message_obj(m: ChatMessage, names: Mapping[str, str]) -> dict[str, Any]:
    layout = layout_of(m, FMT)
    extra = extra_of(m, FMT)
    raw = layout.get("raw") if isinstance(layout.get("raw"), Mapping) else {}
    absent = set(layout.get("absent") or ())
    out: dict[str, Any] = {}
    if m.speaker is not None:
        out["name"] = m.speaker
    elif "name" in raw:
        out["name"] = raw["name"]
    elif "name" not in absent:
        out["name"] = names.get("user" if m.role == "user" else "character") or (
            "You" if m.role == "user" else "Character")
    if "is_user" in raw and (m.role == "user") == (raw["is_user"] is True):
        out["is_user"] = raw["is_user"]
    elif not ("is_user" in absent and m.role != "user"):
        out["is_user"] = m.role == "user"
    if "is_name" in raw:
        out["is_name"] = raw["is_name"]
    elif "is_name" not in absent:
        out["is_name"] = True
    send_date = restore(m.time, layout.get("send_date"), "epoch_ms")
    if send_date is not None:
        out["send_date"] = send_date
    elif "send_date" in layout:
        out["send_date"] = layout["send_date"]
    out["mes"] = raw["mes"] if "mes" in raw and not m.text else m.text
    if len(m.alternatives) >= 2:
        out["swipes"] = [a.text for a in m.alternatives]
        if m.chosen is not None:
            out["swipe_id"] = m.chosen
        elif "swipe_id" in raw:
            out["swipe_id"] = raw["swipe_id"]
    elif "single" in layout and "swipes" not in extra:
        out["swipes"] = [m.text] if layout["single"] else []
        if "swipe_id" in raw:
            out["swipe_id"] = raw["swipe_id"]
    for key, value in extra.items():
        out.setdefault(key, value)
    return ordered(out, layout.get("order"))


__all__ = ["write_chat"]

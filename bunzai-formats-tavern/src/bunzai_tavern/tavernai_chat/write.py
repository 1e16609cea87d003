"""Writing TavernAI chats: the 1.5 JSONL shape (a room when several characters speak), or the
legacy array for a chat that came from one.  Output is streamed line by line."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from bunzai.chats import chat_fields_only, extra_of, layout_of, report_unkept
from bunzai.chattime import restore, to_epoch_ms
from bunzai.loss import LossReport
from bunzai.types import OutputFile, WriteResult

from .._chat import Line, Lines, dumps_js, ordered, produce, write_common
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
    "time": "TavernAI dates are epoch milliseconds, and every message needs one (a message "
            "without a date gets the previous one's)",
    "alternatives.time": "TavernAI swipes have no dates",
    "alternatives.reasoning": "TavernAI keeps no reasoning",
    "created": "TavernAI dates are epoch milliseconds",
    "extensions": "TavernAI has no place for other apps' extensions",
}
APPROXIMATED = frozenset({"role", "speaker", "time", "created"})


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
    clock = Clock(chat)
    for i, m in enumerate(chat.iter_messages()):
        got = message(Line(b"", b"", message_obj(m, names, clock)), [], False, b"\n")
        report_unkept(loss, f"messages[{i}].", m, got, reasons=REASONS,
                      approximated=APPROXIMATED, default="TavernAI has no place for it")
    return WriteResult([OutputFile([Lines(lambda: _produce(chat))], ".jsonl")], loss)


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
    names = _names(chat)
    clock = Clock(chat)
    return produce(chat, FMT, header_obj(chat), lambda m: message_obj(m, names, clock))


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


class Clock:
    """The date a message without one gets: TavernAI needs a ``send_date`` on every message,
    so the previous message's (else the chat's start, else the current time) is written."""

    def __init__(self, chat: Chat) -> None:
        self.last = chat.created

    def stamp(self, m: ChatMessage) -> int | None:
        if m.time is not None:
            self.last = m.time
            return None
        if "send_date" in layout_of(m, FMT):
            return None  # the source's own value, kept as it was
        from datetime import UTC, datetime
        return to_epoch_ms(self.last or datetime.now(UTC))


def message_obj(m: ChatMessage, names: Mapping[str, str], clock: Clock) -> dict[str, Any]:
    out, layout, raw, absent = write_common(m, FMT, names, {"user": "You",
                                                             "character": "Character"})
    stamp = clock.stamp(m)
    if stamp is not None:
        out["send_date"] = stamp
    extra = extra_of(m, FMT)
    if "is_name" in raw:
        out["is_name"] = raw["is_name"]
    elif "is_name" not in absent:
        out["is_name"] = True
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
    return ordered(out, layout.get("order") or ["name", "is_user", "is_name", "send_date",
                                                "mes"])


__all__ = ["write_chat"]

"""Reading and writing Backyard chat exports: each item is a user turn and its reply."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from bunzai.sdk import LossReport, MalformedInput, OutputFile, ReadResult, WriteResult, dumps
from bunzai.sdk.chats import (
    chat_fields_only,
    extra_of,
    layout_of,
    parse_time,
    report_messages,
    report_unkept,
    restore,
)

from . import FORMAT_ID

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput, Chat, ChatMessage
ITEM_KEYS = ("input", "output", "createdAt")
REASONS = {
    "speaker": "a Backyard chat export names no one",
    "role": "a Backyard chat export holds user inputs and character outputs only",
    "time": "a Backyard chat export has one createdAt per turn",
    "alternatives": "a Backyard chat export keeps only the shown reply",
    "chosen": "a Backyard chat export keeps only the shown reply",
    "participants": "a Backyard chat export names no one",
    "extensions": "Backyard has no place for other apps' extensions",
}
APPROXIMATED = frozenset({"role", "time"})


def read_chat(input: AdapterInput, options: Mapping[str, Any], format_id: str) -> ReadResult:
    data = input.json_mutable()
    if not isinstance(data, dict) or not isinstance(data.get("chat"), dict):
        raise MalformedInput("not a Backyard chat export: no chat object")
    return ReadResult([chat_from(data, input.data)])


def chat_from(data: dict[str, Any], raw: bytes) -> Chat:
    from bunzai.sdk import Chat

    chat = data["chat"]
    items = chat.get("ChatItems")
    if not isinstance(items, list):
        raise MalformedInput("$.chat.ChatItems: expected a list")
    layout: dict[str, Any] = {"order": list(data), "chat_order": list(chat)}
    if "version" in data:
        layout["version"] = data["version"]
    if raw.endswith(b"\n"):
        layout["newline"] = True
    extra = {k: v for k, v in data.items() if k not in ("chat", "version")}
    extra.update({f"chat.{k}": v for k, v in chat.items() if k != "ChatItems"})
    if extra:
        layout["extra"] = extra
    messages: list[ChatMessage] = []
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            raise MalformedInput(f"$.chat.ChatItems[{i}]: expected an object")
        messages += turn(item)
    return Chat(messages=messages, passthrough={FORMAT_ID: layout})


def turn(item: dict[str, Any]) -> list[ChatMessage]:
    """One item as its messages: the input (unless empty), then the output (unless empty)."""
    from bunzai.sdk import ChatMessage

    raw_time = item.get("createdAt")
    time = parse_time(raw_time)
    record: dict[str, Any] = {"item": list(item)}
    if "createdAt" in item:
        record["createdAt"] = raw_time
    raws = {k: item[k] for k in ("input", "output") if k in item and not isinstance(item[k], str)}
    if raws:
        record["raw"] = raws
    extra = {k: v for k, v in item.items() if k not in ITEM_KEYS}
    if extra:
        record["extra"] = extra
    text_in = item.get("input") if isinstance(item.get("input"), str) else ""
    text_out = item.get("output") if isinstance(item.get("output"), str) else ""
    out: list[ChatMessage] = []
    if text_in or not text_out:
        if not text_out:
            record["alone"] = True
        out.append(ChatMessage(role="user", text=text_in, time=time,
                               passthrough={FORMAT_ID: record}))
        record = {}
    if text_out:
        out.append(ChatMessage(role="character", text=text_out, time=time,
                               passthrough={FORMAT_ID: record} if record else {}))
    return out


def items(chat: Chat) -> list[dict[str, Any]]:
    """The chat's messages paired into export items, each opening message's record restored."""
    layout = layout_of(chat, FORMAT_ID)
    form = "epoch_ms"
    if isinstance(layout.get("version"), int) and layout["version"] < 2:
        form = "iso_js"
    out: list[dict[str, Any]] = []
    pending: ChatMessage | None = None
    for m in chat.iter_messages():
        if m.role == "user":
            if pending is not None:
                out.append(_item(pending, None, form))
            pending = m
            if layout_of(m, FORMAT_ID).get("alone"):
                out.append(_item(m, None, form))
                pending = None
            continue
        out.append(_item(pending, m, form))
        pending = None
    if pending is not None:
        out.append(_item(pending, None, form))
    return out


def _item(user: ChatMessage | None, reply: ChatMessage | None, form: str) -> dict[str, Any]:
    opener = user or reply
    assert opener is not None
    record = layout_of(opener, FORMAT_ID)
    raws = record.get("raw") if isinstance(record.get("raw"), Mapping) else {}
    obj: dict[str, Any] = {}
    obj["input"] = user.text if user is not None else raws.get("input", "")
    if user is not None and not user.text and "input" in raws:
        obj["input"] = raws["input"]
    obj["output"] = reply.text if reply is not None else raws.get("output", "")
    if "createdAt" in record or opener.time is not None:
        when = restore(opener.time, record.get("createdAt"), form)
        obj["createdAt"] = when if when is not None else record.get("createdAt")
    obj.update({k: v for k, v in extra_of(opener, FORMAT_ID).items() if k not in obj})
    order = record.get("item")
    if isinstance(order, list):
        obj = {**{k: obj[k] for k in order if k in obj},
               **{k: v for k, v in obj.items() if k not in order}}
    return obj


def document(chat: Chat) -> dict[str, Any]:
    layout = layout_of(chat, FORMAT_ID)
    extra = extra_of(chat, FORMAT_ID)
    inner: dict[str, Any] = {"ChatItems": items(chat)}
    for k, v in extra.items():
        if k.startswith("chat."):
            inner[k[5:]] = v
    order = layout.get("chat_order")
    if isinstance(order, list):
        inner = {**{k: inner[k] for k in order if k in inner},
                 **{k: v for k, v in inner.items() if k not in order}}
    doc: dict[str, Any] = {"chat": inner, "version": layout.get("version", 2)}
    for k, v in extra.items():
        if not k.startswith("chat."):
            doc[k] = v
    order = layout.get("order")
    if isinstance(order, list):
        doc = {**{k: doc[k] for k in order if k in doc},
               **{k: v for k, v in doc.items() if k not in order}}
    if "version" not in (order or ["version"]) and "version" not in layout:
        doc.pop("version", None)
    return doc


def write_chat(chat: Chat, options: Mapping[str, Any], format_id: str) -> WriteResult:
    doc = document(chat)
    data = dumps(doc, indent=2) + (b"\n" if layout_of(chat, FORMAT_ID).get("newline") else b"")
    back = chat_from(doc, b"")
    loss = LossReport()
    report_unkept(loss, "", chat_fields_only(chat), chat_fields_only(back), reasons=REASONS,
                  approximated=APPROXIMATED, default="a Backyard chat export holds only the "
                  "turns", skip=("messages",))
    report_messages(loss, chat.iter_messages(), back.messages, reasons=REASONS,
                    approximated=APPROXIMATED,
                    default="a Backyard chat export holds only what was typed and answered",
                    dropped="an empty message is no input or output in a Backyard export")
    return WriteResult([OutputFile(data, ".json")], loss)

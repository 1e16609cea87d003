"""Reading and writing Backyard chat exports: each item is a user turn and its reply.

Keys bunzai has no field for are app data: the file's and the ``chat`` object's (as
``chat.<key>``) on the chat, an item's on the message that opens it.  The writer pairs each
user message with the reply after it and reports what an item cannot hold as it was: a reply
dated with its turn, a narrator written as the character, a message an item has no place for.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from bunzai.sdk import LossReport, MalformedInput, ReadResult, WriteResult
from bunzai.sdk.chats import (
    data_of,
    held_or_lazy,
    json_file,
    json_object,
    layout_of,
    parse_time,
    stored,
)

from . import FORMAT_ID, WRITER_REASONS

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput, Chat, ChatMessage

WHY = WRITER_REASONS
ITEM_KEYS = ("input", "output", "createdAt")
NOT_AN_EXPORT = "not a Backyard chat export: no chat object"


def read_chat(input: AdapterInput, options: Any = None, format_id: str = FORMAT_ID) -> ReadResult:
    data, layout = json_object(input, NOT_AN_EXPORT, 2)
    if not isinstance(data.get("chat"), dict):
        raise MalformedInput(NOT_AN_EXPORT)
    return ReadResult([chat_from(data, layout)])


def chat_from(data: dict[str, Any], file_layout: Mapping[str, Any]) -> Chat:
    from bunzai.sdk import Chat

    chat = data["chat"]
    items = chat.get("ChatItems")
    if not isinstance(items, list):
        raise MalformedInput("$.chat.ChatItems: expected a list")
    layout: dict[str, Any] = {"order": list(data), "chat_order": list(chat)}
    if "version" in data:
        layout["version"] = data["version"]
    layout.update(file_layout)
    own = {k: v for k, v in data.items() if k not in ("chat", "version")}
    own.update({f"chat.{k}": v for k, v in chat.items() if k != "ChatItems"})
    for i, item in enumerate(items):
        if not isinstance(item, dict):
            raise MalformedInput(f"$.chat.ChatItems[{i}]: expected an object")
    return Chat(messages=held_or_lazy(lambda: (m for item in items for m in turn(item))),
                passthrough={FORMAT_ID: layout}, app_data={FORMAT_ID: own} if own else {})


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
    own = {k: v for k, v in item.items() if k not in ITEM_KEYS}
    text_in = item.get("input") if isinstance(item.get("input"), str) else ""
    text_out = item.get("output") if isinstance(item.get("output"), str) else ""
    out: list[ChatMessage] = []
    if text_in or not text_out:
        if not text_out:
            record["alone"] = True
        out.append(ChatMessage(role="user", text=text_in, time=time,
                               passthrough={FORMAT_ID: record},
                               app_data={FORMAT_ID: own} if own else {}))
        record, own = {}, {}
    if text_out:
        out.append(ChatMessage(role="character", text=text_out, time=time,
                               passthrough={FORMAT_ID: record} if record else {},
                               app_data={FORMAT_ID: own} if own else {}))
    return out


class _Pairs:
    """The chat's messages paired into items, with what reading them back will find."""

    def __init__(self, chat: Chat, loss: LossReport | None) -> None:
        self.loss = loss
        self.kept: list[int] = []
        self.count = 0
        layout = layout_of(chat, FORMAT_ID)
        self.form = "epoch_ms"
        if isinstance(layout.get("version"), int) and layout["version"] < 2:
            self.form = "iso_js"

    def items(self, chat: Chat) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        pending: tuple[int, ChatMessage] | None = None
        for n, m in enumerate(chat.iter_messages()):
            self.count += 1
            if m.role in ("narrator", "system") and self.loss is not None:
                self.loss.approximated(f"messages[{n}].role", WHY["role"])
            if m.role == "user":
                if pending is not None:
                    out.append(self._item(pending, None))
                pending = (n, m)
                if layout_of(m, FORMAT_ID).get("alone"):
                    out.append(self._item(pending, None))
                    pending = None
                continue
            out.append(self._item(pending, (n, m)))
            pending = None
        if pending is not None:
            out.append(self._item(pending, None))
        if self.loss is not None:
            self._report_left_out()
        return out

    def _item(self, user: tuple[int, ChatMessage] | None,
              reply: tuple[int, ChatMessage] | None) -> dict[str, Any]:
        opener = user or reply
        assert opener is not None
        at, first = opener
        record = layout_of(first, FORMAT_ID)
        raws = record.get("raw") if isinstance(record.get("raw"), Mapping) else {}
        obj: dict[str, Any] = {}
        obj["input"] = user[1].text if user is not None else raws.get("input", "")
        if user is not None and not user[1].text and "input" in raws:
            obj["input"] = raws["input"]
        obj["output"] = reply[1].text if reply is not None else raws.get("output", "")
        stamp = None
        if "createdAt" in record or first.time is not None:
            when, exact = stored(first.time, record.get("createdAt"), self.form)
            obj["createdAt"] = when if when is not None else record.get("createdAt")
            stamp = parse_time(obj["createdAt"])
            if not exact and self.loss is not None:
                self.loss.approximated(f"messages[{at}].time", WHY["time"])
        obj.update({k: v for k, v in data_of(first, FORMAT_ID).items() if k not in obj})
        order = record.get("item")
        if isinstance(order, list):
            obj = {**{k: obj[k] for k in order if k in obj},
                   **{k: v for k, v in obj.items() if k not in order}}
        self._read_back(obj, user, reply, stamp)
        return obj

    def _read_back(self, obj: Mapping[str, Any], user: tuple[int, ChatMessage] | None,
                   reply: tuple[int, ChatMessage] | None, stamp: Any) -> None:
        """Which messages reading ``obj`` finds (see :func:`turn`), and what it finds
        otherwise than they were."""
        text_in = obj["input"] if isinstance(obj["input"], str) else ""
        text_out = obj["output"] if isinstance(obj["output"], str) else ""
        if text_in or not text_out:
            if user is not None:
                self.kept.append(user[0])
            elif reply is not None:  # an empty reply on its own reads as the user's
                self.kept.append(reply[0])
                if self.loss is not None:
                    self.loss.approximated(f"messages[{reply[0]}].role", WHY["empty"])
        if text_out and reply is not None:
            self.kept.append(reply[0])
            if user is not None and reply[1].time != stamp and self.loss is not None:
                self.loss.approximated(f"messages[{reply[0]}].time", WHY["reply_time"])

    def _report_left_out(self) -> None:
        assert self.loss is not None
        kept = set(self.kept)
        self.loss.left_out("messages", {i: WHY["empty"] for i in range(self.count)
                                        if i not in kept}, self.count)


def items(chat: Chat) -> list[dict[str, Any]]:
    """The chat's messages paired into export items, each opening message's record restored."""
    return _Pairs(chat, None).items(chat)


def document(chat: Chat, loss: LossReport | None = None) -> dict[str, Any]:
    layout = layout_of(chat, FORMAT_ID)
    own = data_of(chat, FORMAT_ID)
    inner: dict[str, Any] = {"ChatItems": _Pairs(chat, loss).items(chat)}
    for k, v in own.items():
        if k.startswith("chat."):
            inner[k[5:]] = v
    order = layout.get("chat_order")
    if isinstance(order, list):
        inner = {**{k: inner[k] for k in order if k in inner},
                 **{k: v for k, v in inner.items() if k not in order}}
    doc: dict[str, Any] = {"chat": inner, "version": layout.get("version", 2)}
    for k, v in own.items():
        if not k.startswith("chat."):
            doc[k] = v
    order = layout.get("order")
    if isinstance(order, list):
        doc = {**{k: doc[k] for k in order if k in doc},
               **{k: v for k, v in doc.items() if k not in order}}
    if "version" not in (order or ["version"]) and "version" not in layout:
        doc.pop("version", None)
    return doc


def write_chat(chat: Chat, options: Mapping[str, Any] | None = None,
               format_id: str = FORMAT_ID) -> WriteResult:
    loss = LossReport()
    doc = document(chat, loss)
    if chat.time_zone:
        loss.approximated("time_zone", WHY["time_zone"])
    return WriteResult([json_file(doc, layout_of(chat, FORMAT_ID), 2)], loss)

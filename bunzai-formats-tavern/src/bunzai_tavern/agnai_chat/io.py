"""Reading and writing Agnai chat exports.

A chat from another app is written as Agnai's "Export Chat" writes one: the chat's texts and
``{handle, userId | characterId, msg, retries, ooc}`` per message.  ``_id``, ``createdAt``,
``name`` and ``parent`` (messages copied from Agnai's own store) are written only for a file
that had them: Agnai's importer takes none of them.  Ids, ``parent`` links and
``treeLeafId`` are layout; any other key is the chat's or the message's app data.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from bunzai.sdk import LossReport, MalformedInput, ReadResult, WriteResult
from bunzai.sdk.chats import (
    check_alternatives,
    data_of,
    held_or_lazy,
    json_file,
    json_object,
    layout_of,
    lone_alternative,
    put_kept,
    record,
    stored,
    take_text,
    take_time,
)
from bunzai.sdk.fields import reorder

from . import FORMAT_ID, WRITER_REASONS

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput, Chat, ChatMessage

WHY = WRITER_REASONS
EXPORTED = "Exported"
"""The name Agnai's export gives every chat: no title of the user's."""
TEXTS = (("name", "title"), ("greeting", "greeting"), ("sampleChat", "example_dialogue"),
         ("scenario", "scenario"))
LAYOUT_KEYS = ("treeLeafId",)
MESSAGE_KEYS = ("_id", "createdAt", "handle", "userId", "characterId", "name", "msg", "retries",
                "ooc", "system", "parent")


def read_chat(input: AdapterInput, options: Any = None, format_id: str = FORMAT_ID) -> ReadResult:
    return ReadResult([chat_from(*json_object(input, "not an Agnai chat export", 2))])


def chat_from(data: dict[str, Any], layout: Mapping[str, Any]) -> Chat:
    from bunzai.sdk import Chat

    messages = data.get("messages")
    if not isinstance(messages, list):
        raise MalformedInput("$.messages: expected a list of messages")
    rec: dict[str, Any] = {"order": list(data), **layout}
    fields: dict[str, Any] = {}
    raw: dict[str, Any] = {}
    for key, field in TEXTS:
        if key in data:
            if isinstance(data[key], str) and data[key] and not (
                    key == "name" and data[key] == EXPORTED):
                fields[field] = data[key]
            else:
                raw[key] = data[key]
    if raw:
        rec["raw"] = raw
    keep = {k: data[k] for k in LAYOUT_KEYS if k in data}
    if keep:
        rec["keep"] = keep
    own = {k: v for k, v in data.items()
           if k not in ("messages", *LAYOUT_KEYS) and k not in dict(TEXTS)}
    for i, m in enumerate(messages):
        if not isinstance(m, dict):
            raise MalformedInput(f"$.messages[{i}]: expected a message object")
        retries = m.get("retries")
        if isinstance(retries, list):
            check_alternatives(len(retries) + 1, f"$.messages[{i}]")
    chat = Chat(passthrough={FORMAT_ID: rec},
                app_data={FORMAT_ID: own} if own else {},
                **fields)
    chat.messages = held_or_lazy(lambda: (message_from(m) for m in messages))
    return chat


def message_from(obj: dict[str, Any]) -> ChatMessage:
    from bunzai.sdk import Alternative, ChatMessage

    rec: dict[str, Any] = {"order": list(obj)}
    fields: dict[str, Any] = {}
    raw: dict[str, Any] = {}
    if "userId" in obj:
        fields["role"] = "user"
        raw["userId"] = obj["userId"]
    elif "characterId" in obj:
        fields["role"] = "character"
        raw["characterId"] = obj["characterId"]
    else:
        fields["role"] = "system" if obj.get("system") is True else "narrator"
    if "system" in obj and not (obj["system"] is True and fields["role"] == "system"):
        raw["system"] = obj["system"]
    # a user is named by ``handle``; a message from Agnai's store may name its user only in
    # ``name``, which Agnai's import keeps beside the handle
    speaker = "name" if fields["role"] != "user" or not isinstance(obj.get("handle"), str) \
        else "handle"
    if fields["role"] == "user" and speaker == "name" and isinstance(obj.get("name"), str):
        rec["speaker"] = "name"
    for key in ("handle", "name"):
        if key not in obj:
            continue
        if key == speaker and isinstance(obj[key], str):
            fields["speaker"] = obj[key]
        else:
            raw[key] = obj[key]
    text = obj.get("msg")
    if isinstance(text, str):
        fields["text"] = text
    else:
        raw["msg"] = text
    take_text(obj, "_id", fields, "id", raw)
    take_time(obj, "createdAt", rec, fields)
    retries = obj.get("retries")
    own: dict[str, Any] = {k: v for k, v in obj.items() if k not in MESSAGE_KEYS}
    if isinstance(retries, list) and retries and all(isinstance(r, str) for r in retries) \
            and isinstance(text, str):
        fields["alternatives"] = [Alternative(text=text), *(Alternative(text=r)
                                                            for r in retries)]
        fields["chosen"] = 0
    elif "retries" in obj:
        if isinstance(retries, list) and not retries:
            raw["retries"] = retries
        else:
            own["retries"] = retries
    if obj.get("ooc") is True:
        fields["hidden"] = True
    elif "ooc" in obj:
        raw["ooc"] = obj["ooc"]
    if "parent" in obj:
        raw["parent"] = obj["parent"]
    if raw:
        rec["raw"] = raw
    return ChatMessage(passthrough={FORMAT_ID: rec},
                       app_data={FORMAT_ID: own} if own else {}, **fields)


def message_obj(m: ChatMessage, loss: LossReport | None = None, path: str = ""
                ) -> dict[str, Any]:
    """One message as Agnai writes it; with ``loss``, what it does not keep is reported."""
    rec = layout_of(m, FORMAT_ID)
    raw = record(rec, "raw")
    data = data_of(m, FORMAT_ID)
    out: dict[str, Any] = {}
    put_kept(out, "_id", m.id, raw)
    if "createdAt" in rec:
        when, exact = stored(m.time, rec["createdAt"], "iso_js")
        out["createdAt"] = when if when is not None else rec["createdAt"]
        if not exact and loss is not None:
            loss.approximated(f"{path}time", WHY["time_ms"])
    elif m.time is not None and loss is not None:
        loss.dropped(f"{path}time", WHY["time"])
    named = m.speaker is not None and "name" in (rec.get("order") or ())
    if m.role == "user":
        by_name = rec.get("speaker") == "name"
        if m.speaker is not None and not by_name:
            out["handle"] = m.speaker
        elif "handle" in raw:
            out["handle"] = raw["handle"]
        out["userId"] = raw.get("userId", "anon")
        if m.speaker is not None and by_name:
            out["name"] = m.speaker
        elif "name" in raw:
            out["name"] = raw["name"]
    elif m.role == "character":
        out["characterId"] = raw.get("characterId", "imported")
        if named:
            out["name"] = m.speaker
        elif "name" in raw:
            out["name"] = raw["name"]
    elif m.role == "system":
        out["system"] = True
    if m.role != "user" and m.speaker and not (m.role == "character" and named) \
            and loss is not None:
        loss.dropped(f"{path}speaker", WHY["speaker"])
    if "system" in raw and "system" not in out:
        out["system"] = raw["system"]
    retries: list[str] | None = None
    if len(m.alternatives) >= 2:
        chosen = m.chosen if m.chosen is not None and 0 <= m.chosen < len(
            m.alternatives) else 0
        retries = [a.text for i, a in enumerate(m.alternatives) if i != chosen]
        if loss is not None:
            # Only the texts move (the shown one first): each alternative's date and app
            # data stay unreported here, so the loss rule names them one by one.
            for j, (was, now) in enumerate(zip(m.alternatives, [m.text, *retries],
                                               strict=True)):
                if was.text != now:
                    loss.approximated(f"{path}alternatives[{j}].text", WHY["alternatives"])
            if m.chosen != 0:
                loss.approximated(f"{path}chosen", WHY["chosen"])
    elif loss is not None and lone_alternative(m):
        loss.dropped(f"{path}alternatives", WHY["single"])
    out["msg"] = raw["msg"] if "msg" in raw and not m.text else m.text
    put_kept(out, "retries", retries, raw)
    put_kept(out, "ooc", m.hidden, raw)
    if "parent" in raw:
        out["parent"] = raw["parent"]
    for key, value in data.items():
        out.setdefault(key, value)
    order = rec.get("order")
    return reorder(out, order if isinstance(order, list) else [
        "handle", "userId", "characterId", "msg", "state"])


def document(chat: Chat, loss: LossReport | None = None) -> dict[str, Any]:
    rec = layout_of(chat, FORMAT_ID)
    raw = record(rec, "raw")
    out: dict[str, Any] = {}
    for key, field in TEXTS:
        value = getattr(chat, field)
        if value:
            out[key] = value
        elif key in raw:
            out[key] = raw[key]
        elif "order" not in rec:
            out[key] = EXPORTED if key == "name" else ""
    if chat.title == EXPORTED and loss is not None:
        loss.dropped("title", WHY["title"])
    out.update(record(rec, "keep"))
    out["messages"] = [message_obj(m, loss, f"messages[{i}].")
                       for i, m in enumerate(chat.iter_messages())]
    for key, value in data_of(chat, FORMAT_ID).items():
        out.setdefault(key, value)
    order = rec.get("order")
    return reorder(out, order if isinstance(order, list) else None)


def write_chat(chat: Chat, options: Mapping[str, Any] | None = None,
               format_id: str = FORMAT_ID) -> WriteResult:
    loss = LossReport()
    doc = document(chat, loss)
    return WriteResult([json_file(doc, layout_of(chat, FORMAT_ID), 2)], loss)

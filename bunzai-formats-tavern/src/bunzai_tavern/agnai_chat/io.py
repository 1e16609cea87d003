"""Reading and writing Agnai chat exports."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from bunzai.chats import chat_fields_only, extra_of, layout_of, report_messages, report_unkept
from bunzai.chattime import parse_time, restore
from bunzai.errors import MalformedInput
from bunzai.loss import LossReport
from bunzai.types import OutputFile, ReadResult, WriteResult

from .._chat import ordered
from .._options import sniff_layout
from . import FORMAT_ID

if TYPE_CHECKING:
    from bunzai.input import AdapterInput
    from bunzai.model import Chat, ChatMessage

FMT = FORMAT_ID
EXPORTED = "Exported"
"""The name Agnai's export gives every chat: no title of the user's."""
TEXTS = (("name", "title"), ("greeting", "greeting"), ("sampleChat", "example_dialogue"),
         ("scenario", "scenario"))
LAYOUT_KEYS = ("treeLeafId",)
MESSAGE_KEYS = ("_id", "createdAt", "handle", "userId", "characterId", "name", "msg", "retries",
                "ooc", "system", "parent")
REASONS = {
    "time": "Agnai's export carries no dates",
    "speaker": "Agnai names a character message after the chat's character",
    "alternatives": "Agnai keeps the shown reply first and the others as retries",
    "chosen": "Agnai shows the first reply",
    "alternatives.time": "Agnai keeps retries as bare texts",
    "alternatives.text": "Agnai keeps the shown reply first and the others as retries",
    "alternatives.reasoning": "Agnai keeps retries as bare texts",
    "reasoning": "Agnai's export keeps no reasoning",
    "model": "Agnai's export does not record the model",
    "bookmark": "Agnai has no bookmarks",
    "attachments": "Agnai's export holds text only",
    "role": "Agnai messages are the user's, the character's or the system's",
    "participants": "an Agnai export names no participants",
    "created": "an Agnai export carries no dates",
    "extensions": "Agnai has no place for other apps' extensions",
}
APPROXIMATED = frozenset({"alternatives", "alternatives.text", "chosen", "role"})


def read_chat(input: AdapterInput) -> ReadResult:
    data = input.json_mutable()
    if not isinstance(data, dict):
        raise MalformedInput("not an Agnai chat export")
    return ReadResult([chat_from(data, sniff_layout(input.data, default_indent=2))])


def chat_from(data: dict[str, Any], layout: Mapping[str, Any]) -> Chat:
    from bunzai.model import Chat

    messages = data.get("messages")
    if not isinstance(messages, list):
        raise MalformedInput("$.messages: expected a list of messages")
    record: dict[str, Any] = {"order": list(data), **layout}
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
        record["raw"] = raw
    keep = {k: data[k] for k in LAYOUT_KEYS if k in data}
    if keep:
        record["keep"] = keep
    extra = {k: v for k, v in data.items()
             if k not in ("messages", *LAYOUT_KEYS) and k not in dict(TEXTS)}
    if extra:
        record["extra"] = extra
    out = []
    for i, m in enumerate(messages):
        if not isinstance(m, dict):
            raise MalformedInput(f"$.messages[{i}]: expected a message object")
        out.append(message_from(m))
    return Chat(messages=out, passthrough={FMT: record}, **fields)


def message_from(obj: dict[str, Any]) -> ChatMessage:
    from bunzai.model import Alternative, ChatMessage

    record: dict[str, Any] = {"order": list(obj)}
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
    own = "handle" if fields["role"] == "user" else "name"
    for key in ("handle", "name"):
        if key not in obj:
            continue
        if key == own and isinstance(obj[key], str):
            fields["speaker"] = obj[key]
        else:
            raw[key] = obj[key]
    text = obj.get("msg")
    if isinstance(text, str):
        fields["text"] = text
    else:
        raw["msg"] = text
    if isinstance(obj.get("_id"), str):
        fields["id"] = obj["_id"]
    elif "_id" in obj:
        raw["_id"] = obj["_id"]
    if "createdAt" in obj:
        record["createdAt"] = obj["createdAt"]
        fields["time"] = parse_time(obj["createdAt"])
    retries = obj.get("retries")
    if isinstance(retries, list) and retries and all(isinstance(r, str) for r in retries) \
            and isinstance(text, str):
        fields["alternatives"] = [Alternative(text=text), *(Alternative(text=r)
                                                            for r in retries)]
        fields["chosen"] = 0
    elif "retries" in obj:
        raw["retries"] = retries
    if obj.get("ooc") is True:
        fields["hidden"] = True
    elif "ooc" in obj:
        raw["ooc"] = obj["ooc"]
    if "parent" in obj:
        raw["parent"] = obj["parent"]
    if raw:
        record["raw"] = raw
    extra = {k: v for k, v in obj.items() if k not in MESSAGE_KEYS}
    if extra:
        record["extra"] = extra
    return ChatMessage(passthrough={FMT: record}, **fields)


def message_obj(m: ChatMessage) -> dict[str, Any]:
    record = layout_of(m, FMT)
    raw = record.get("raw") if isinstance(record.get("raw"), Mapping) else {}
    out: dict[str, Any] = {}
    if m.id:
        out["_id"] = m.id
    elif "_id" in raw:
        out["_id"] = raw["_id"]
    when = restore(m.time, record.get("createdAt"), "iso_js") if "createdAt" in record else None
    if when is not None:
        out["createdAt"] = when
    elif "createdAt" in record:
        out["createdAt"] = record["createdAt"]
    if m.role == "user":
        if m.speaker is not None:
            out["handle"] = m.speaker
        elif "handle" in raw:
            out["handle"] = raw["handle"]
        out["userId"] = raw.get("userId", "anon")
    elif m.role == "character":
        out["characterId"] = raw.get("characterId", "imported")
        if m.speaker is not None and "name" in record.get("order", []):
            out["name"] = m.speaker
        elif "name" in raw:
            out["name"] = raw["name"]
    elif m.role == "system":
        out["system"] = True
    if "system" in raw and "system" not in out:
        out["system"] = raw["system"]
    shown = m.text
    retries: list[str] | None = None
    if len(m.alternatives) >= 2:
        chosen = m.chosen if m.chosen is not None and 0 <= m.chosen < len(
            m.alternatives) else 0
        retries = [a.text for i, a in enumerate(m.alternatives) if i != chosen]
    out["msg"] = raw["msg"] if "msg" in raw and not shown else shown
    if retries is not None:
        out["retries"] = retries
    elif "retries" in raw:
        out["retries"] = raw["retries"]
    if m.hidden:
        out["ooc"] = True
    elif "ooc" in raw:
        out["ooc"] = raw["ooc"]
    if "parent" in raw:
        out["parent"] = raw["parent"]
    for key, value in extra_of(m, FMT).items():
        out.setdefault(key, value)
    order = record.get("order")
    return ordered(out, order if isinstance(order, list) else [
        "handle", "userId", "characterId", "msg", "state"])


def document(chat: Chat) -> dict[str, Any]:
    record = layout_of(chat, FMT)
    raw = record.get("raw") if isinstance(record.get("raw"), Mapping) else {}
    out: dict[str, Any] = {}
    for key, field in TEXTS:
        value = getattr(chat, field)
        if value:
            out[key] = value
        elif key in raw:
            out[key] = raw[key]
        elif "order" not in record:
            out[key] = EXPORTED if key == "name" else ""
    keep = record.get("keep") if isinstance(record.get("keep"), Mapping) else {}
    out.update(keep)
    out["messages"] = [message_obj(m) for m in chat.iter_messages()]
    for key, value in extra_of(chat, FMT).items():
        out.setdefault(key, value)
    order = record.get("order")
    return ordered(out, order if isinstance(order, list) else None)


def write_chat(chat: Chat) -> WriteResult:
    from bunzai.jsonio import dumps

    from .._options import layout_of as json_layout

    doc = document(chat)
    indent, newline = json_layout({}, layout_of(chat, FMT), default=2)
    data = dumps(doc, indent=indent) + (b"\n" if newline else b"")
    back = chat_from(doc, {})
    loss = LossReport()
    report_unkept(loss, "", chat_fields_only(chat), chat_fields_only(back), reasons=REASONS,
                  approximated=APPROXIMATED,
                  default="an Agnai export holds the chat's texts and messages only",
                  skip=("messages",))
    report_messages(loss, chat.iter_messages(), back.messages, reasons=REASONS,
                    approximated=APPROXIMATED, default="Agnai has no place for it",
                    dropped="Agnai did not keep this message")
    return WriteResult([OutputFile(data, ".json")], loss)

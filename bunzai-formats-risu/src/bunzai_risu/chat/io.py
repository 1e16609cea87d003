"""Reading and writing RisuAI chat exports."""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from bunzai.sdk import Issue, LossReport, MalformedInput, OutputFile, ReadResult, WriteResult
from bunzai.sdk.chats import (
    chat_fields_only,
    extra_of,
    layout_of,
    parse_time,
    report_messages,
    report_unkept,
    restore,
)

from .._common import lore
from .._common.jsonfmt import dump, layout
from . import FORMAT_ID

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput, Chat, ChatMessage, Entity

CHAT_KEYS = ("message", "note", "name", "localLore", "bookmarks", "bookmarkNames")
LAYOUT_KEYS = ("id", "lastDate", "isStreaming")
"""RisuAI's own bookkeeping on a chat: a fresh id on every import, the last activity."""
MESSAGE_KEYS = ("role", "data", "time", "chatId", "name", "generationInfo", "disabled",
                "isComment")
REASONS = {
    "participants": "RisuAI names the user and the character from its settings",
    "speaker": "RisuAI shows its own names for the user and the character",
    "role": "RisuAI messages are the user's or the character's",
    "alternatives": "RisuAI keeps one text per message",
    "chosen": "RisuAI keeps one text per message",
    "reasoning": "RisuAI keeps no reasoning with a message",
    "attachments": "RisuAI chat messages hold text only",
    "time": "RisuAI times are epoch milliseconds",
    "created": "a RisuAI chat records no start time",
    "extensions": "RisuAI has no place for other apps' extensions",
}
APPROXIMATED = frozenset({"role", "time"})


def read(input: AdapterInput, options: Mapping[str, Any], format_id: str) -> ReadResult:
    doc = input.json_mutable()
    if not isinstance(doc, dict) or doc.get("type") not in ("risuChat", "risuAllChats"):
        raise MalformedInput("not a RisuAI chat export (type risuChat or risuAllChats)")
    warnings: list[Issue] = []
    top = {"order": list(doc), **layout(input.data)}
    top.update({k: doc[k] for k in ("type", "ver") if k in doc})
    folders = doc.get("folders", None)
    inner = doc.get("data")
    if doc["type"] == "risuChat":
        if not isinstance(inner, dict):
            raise MalformedInput("$.data: expected a RisuAI chat object")
        chats = [chat_from(inner, "$.data", warnings)]
    else:
        if not isinstance(inner, list):
            raise MalformedInput("$.data: expected a list of RisuAI chats")
        chats = []
        for i, item in enumerate(inner):
            if not isinstance(item, dict):
                raise MalformedInput(f"$.data[{i}]: expected a RisuAI chat object")
            chats.append(chat_from(item, f"$.data[{i}]", warnings))
    for i, chat in enumerate(chats):
        record = chat.passthrough[FORMAT_ID]
        record["file"] = dict(top, index=i, count=len(chats))
        if folders not in (None, []):
            record.setdefault("extra", {})["folders"] = folders
        elif "folders" in doc:
            record["file"]["folders"] = folders
    return ReadResult(list(chats), warnings)


def chat_from(obj: dict[str, Any], path: str, warnings: list[Issue]) -> Chat:
    from bunzai.sdk import Chat, Lorebook

    record: dict[str, Any] = {"order": list(obj)}
    fields: dict[str, Any] = {}
    raw: dict[str, Any] = {}
    for key, field in (("name", "title"), ("note", "notes")):
        if key in obj:
            if isinstance(obj[key], str) and obj[key]:
                fields[field] = obj[key]
            else:
                raw[key] = obj[key]
    lore_raw = obj.get("localLore")
    if isinstance(lore_raw, list) and lore_raw:
        fields["lorebook"] = Lorebook(entries=lore.read_entries(lore_raw, f"{path}.localLore",
                                                                warnings, FORMAT_ID))
    elif "localLore" in obj:
        raw["localLore"] = lore_raw
    marks = obj.get("bookmarks")
    names = obj.get("bookmarkNames") if isinstance(obj.get("bookmarkNames"), dict) else {}
    marked: dict[str, str] = {}
    if isinstance(marks, list) and all(isinstance(m, str) for m in marks):
        marked = {m: names.get(m) if isinstance(names.get(m), str) else "" for m in marks}
        record["bookmarks"] = marks
        if "bookmarkNames" in obj:
            record["bookmark_names"] = list(names)
    else:
        for key in ("bookmarks", "bookmarkNames"):
            if key in obj:
                record.setdefault("extra", {})[key] = obj[key]
    messages = obj.get("message")
    if not isinstance(messages, list):
        raise MalformedInput(f"{path}.message: expected a list of messages")
    fields["messages"] = [message_from(m, f"{path}.message[{i}]", marked)
                          for i, m in enumerate(messages)]
    keep = {k: obj[k] for k in LAYOUT_KEYS if k in obj}
    if keep:
        record["keep"] = keep
    extra = {k: v for k, v in obj.items() if k not in CHAT_KEYS and k not in LAYOUT_KEYS}
    if extra:
        record.setdefault("extra", {}).update(extra)
    if raw:
        record["raw"] = raw
    return Chat(passthrough={FORMAT_ID: record}, **fields)


def message_from(obj: Any, path: str, marked: Mapping[str, str]) -> ChatMessage:
    from bunzai.sdk import ChatMessage

    if not isinstance(obj, dict):
        raise MalformedInput(f"{path}: expected a message object")
    record: dict[str, Any] = {"order": list(obj)}
    fields: dict[str, Any] = {}
    raw: dict[str, Any] = {}
    role = obj.get("role")
    if role not in ("user", "char"):
        raw["role"] = role
    fields["role"] = "user" if role == "user" else "character"
    if obj.get("isComment") is True:
        fields["role"] = "system"
    elif "isComment" in obj:
        raw["isComment"] = obj["isComment"]
    if isinstance(obj.get("data"), str):
        fields["text"] = obj["data"]
    elif "data" in obj:
        raw["data"] = obj["data"]
    if "time" in obj:
        record["time"] = obj["time"]
        fields["time"] = parse_time(obj["time"])
    chat_id = obj.get("chatId")
    if isinstance(chat_id, str) and chat_id:
        fields["id"] = chat_id
        if chat_id in marked:
            fields["bookmark"] = marked[chat_id] or "bookmark"
            if not marked[chat_id]:
                record["unnamed"] = True
    elif "chatId" in obj:
        raw["chatId"] = chat_id
    if isinstance(obj.get("name"), str) and obj["name"]:
        fields["speaker"] = obj["name"]
    elif "name" in obj:
        raw["name"] = obj["name"]
    info = obj.get("generationInfo")
    extra = {k: v for k, v in obj.items() if k not in MESSAGE_KEYS}
    if isinstance(info, dict):
        if isinstance(info.get("model"), str) and info["model"]:
            fields["model"] = info["model"]
        record["info_order"] = list(info)
        rest = {k: v for k, v in info.items() if not (k == "model" and "model" in fields)}
        if rest:
            extra["generationInfo"] = rest
    elif "generationInfo" in obj:
        extra["generationInfo"] = info
    disabled = obj.get("disabled")
    if disabled is True:
        fields["hidden"] = True
    elif "disabled" in obj:
        if disabled is False:
            raw["disabled"] = disabled
        else:
            extra["disabled"] = disabled
    if raw:
        record["raw"] = raw
    if extra:
        record["extra"] = extra
    return ChatMessage(passthrough={FORMAT_ID: record}, **fields)


# -- writing -----------------------------------------------------------------------------------


def chat_obj(chat: Chat, loss: LossReport | None = None) -> dict[str, Any]:
    record = layout_of(chat, FORMAT_ID)
    extra = extra_of(chat, FORMAT_ID)
    raw = record.get("raw") if isinstance(record.get("raw"), Mapping) else {}
    out: dict[str, Any] = {}
    out["message"] = [message_obj(m) for m in chat.iter_messages()]
    out["note"] = chat.notes if chat.notes else raw.get("note", "")
    out["name"] = chat.title if chat.title else raw.get("name", "")
    if chat.lorebook is not None and chat.lorebook.entries:
        out["localLore"] = lore.write_entries(chat.lorebook.entries, FORMAT_ID, loss,
                                              "lorebook.entries")
        if loss is not None:
            lore.report_unheld(chat.lorebook.entries, FORMAT_ID, loss, "lorebook.")
            from bunzai.sdk import Lorebook
            report_unkept(loss, "lorebook.", chat.lorebook.model_copy(update={"entries": []}),
                          Lorebook(), default="a RisuAI chat's lorebook is a list of entries")
    else:
        out["localLore"] = raw.get("localLore", [])
        if chat.lorebook is not None and loss is not None:
            loss.dropped("lorebook", "a RisuAI chat's lorebook is its list of entries: an "
                                     "empty one is none")
    if "order" not in record:
        out["fmIndex"] = -1
    marks, names = _bookmarks(chat, record)
    if marks or "bookmarks" in record:
        out["bookmarks"] = marks
    if names or "bookmark_names" in record:
        out["bookmarkNames"] = names
    keep = record.get("keep") if isinstance(record.get("keep"), Mapping) else {}
    for key, value in keep.items():
        out.setdefault(key, value)
    for key, value in extra.items():
        if key != "folders":
            out.setdefault(key, value)
    return _ordered(out, record.get("order"))


def _bookmarks(chat: Chat, record: Mapping[str, Any]) -> tuple[list[str], dict[str, str]]:
    marks: list[str] = []
    names: dict[str, str] = {}
    for i, m in enumerate(chat.iter_messages()):
        if m.bookmark is None:
            continue
        ident = m.id or _message_id(i)
        marks.append(ident)
        if not layout_of(m, FORMAT_ID).get("unnamed") or m.bookmark != "bookmark":
            names[ident] = m.bookmark
    kept = record.get("bookmarks")
    if isinstance(kept, list) and sorted(kept) == sorted(marks):
        marks = list(kept)
    return marks, names


def _message_id(index: int) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"bunzai:risu-chat:{index}"))


def message_obj(m: ChatMessage, index: int | None = None) -> dict[str, Any]:
    record = layout_of(m, FORMAT_ID)
    extra = extra_of(m, FORMAT_ID)
    raw = record.get("raw") if isinstance(record.get("raw"), Mapping) else {}
    out: dict[str, Any] = {}
    if "role" in raw and m.role == "character":
        out["role"] = raw["role"]
    else:
        out["role"] = "user" if m.role == "user" else "char"
    out["data"] = raw["data"] if "data" in raw and not m.text else m.text
    when = restore(m.time, record.get("time"), "epoch_ms")
    if when is not None:
        out["time"] = when
    elif "time" in record:
        out["time"] = record["time"]
    if m.id:
        out["chatId"] = m.id
    elif "chatId" in raw:
        out["chatId"] = raw["chatId"]
    elif m.bookmark is not None and index is not None:
        out["chatId"] = _message_id(index)
    if m.speaker and "name" in record.get("order", []):
        out["name"] = m.speaker
    elif "name" in raw:
        out["name"] = raw["name"]
    info = dict(extra.get("generationInfo") or {}) if isinstance(
        extra.get("generationInfo"), Mapping) else None
    if m.model:
        info = {"model": m.model, **(info or {})}
    if info is not None:
        out["generationInfo"] = _ordered(info, record.get("info_order")) if isinstance(
            extra.get("generationInfo"), Mapping) or m.model else extra["generationInfo"]
    elif "generationInfo" in extra:
        out["generationInfo"] = extra["generationInfo"]
    if m.hidden:
        out["disabled"] = True
    elif "disabled" in raw:
        out["disabled"] = raw["disabled"]
    elif "disabled" in extra:
        out["disabled"] = extra["disabled"]
    if m.role == "system":
        out["isComment"] = True
    elif "isComment" in raw:
        out["isComment"] = raw["isComment"]
    for key, value in extra.items():
        out.setdefault(key, value)
    return _ordered(out, record.get("order"))


def _ordered(obj: dict[str, Any], order: Any) -> dict[str, Any]:
    if not isinstance(order, list):
        return obj
    out = {k: obj[k] for k in order if isinstance(k, str) and k in obj}
    out.update((k, v) for k, v in obj.items() if k not in out)
    return out


def write(entities: Sequence[Entity], options: Mapping[str, Any], format_id: str
          ) -> WriteResult:
    chats: list[Chat] = list(entities)  # type: ignore[arg-type]
    loss = LossReport()
    many = len(chats) > 1
    docs = []
    for i, chat in enumerate(chats):
        part = LossReport()
        obj = chat_obj(chat, part)
        obj["message"] = [message_obj(m, j) for j, m in enumerate(chat.iter_messages())]
        docs.append(obj)
        back = chat_from(obj, "$", [])
        report_unkept(part, "", chat_fields_only(chat), chat_fields_only(back), reasons=REASONS,
                      approximated=APPROXIMATED, default="a RisuAI chat has no such field",
                      skip=("messages", "lorebook"))
        report_messages(part, chat.iter_messages(), back.messages, reasons=REASONS,
                        approximated=APPROXIMATED, default="RisuAI has no place for it",
                        dropped="RisuAI did not keep this message")
        loss.extend(part, f"[{i}]." if many else "")
    first = layout_of(chats[0], FORMAT_ID).get("file") if chats else None
    file = first if isinstance(first, Mapping) else {}
    all_chats = many or file.get("type") == "risuAllChats"
    doc: dict[str, Any] = {"type": "risuAllChats" if all_chats else "risuChat",
                           "ver": file.get("ver", 2) if file.get("type") == (
                               "risuAllChats" if all_chats else "risuChat") else 2,
                           "data": docs if all_chats else docs[0]}
    folders = extra_of(chats[0], FORMAT_ID).get("folders") if chats else None
    if folders is not None:
        doc["folders"] = folders
    elif "folders" in file:
        doc["folders"] = file["folders"]
    elif doc["ver"] == 2:
        doc["folders"] = []
    data = dump(_ordered(doc, file.get("order")), file or None)
    return WriteResult([OutputFile(data, ".json")], loss)

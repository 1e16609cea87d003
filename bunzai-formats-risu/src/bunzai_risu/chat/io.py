"""Reading and writing RisuAI chat exports.

RisuAI's own bookkeeping (a chat's id, last activity and streaming flag; what a message's
``generationInfo`` counts besides the model) and the raw values of fields bunzai holds are
layout; every other key of the chat or a message (``scriptstate``, ``hypaV2Data``,
``modules``, ``saying``, a ``risuChat`` export's ``folders``) is RisuAI's app data.  The
writer reports what RisuAI reads otherwise (a narrator as the character, a name it keeps only
where the source had one).
"""

from __future__ import annotations

import uuid
from collections.abc import Mapping, Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

from bunzai.sdk import Issue, LossReport, MalformedInput, ReadResult, WriteResult
from bunzai.sdk.chats import (
    data_of,
    held_or_lazy,
    json_file,
    json_object,
    layout_of,
    put_kept,
    put_time,
    take_text,
    take_time,
)
from bunzai.sdk.chats import record as inner
from bunzai.sdk.fields import reorder

from . import FORMAT_ID, WRITER_REASONS

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput, Chat, ChatMessage, Entity, Lorebook, Neutrality

WHY = WRITER_REASONS
CHAT_KEYS = ("message", "note", "name", "localLore", "bookmarks", "bookmarkNames")
LAYOUT_KEYS = ("id", "lastDate", "isStreaming")
"""RisuAI's own bookkeeping on a chat: a fresh id on every import, the last activity."""
MESSAGE_KEYS = ("role", "data", "time", "chatId", "name", "generationInfo", "disabled",
                "isComment")
NOT_AN_EXPORT = "not a RisuAI chat export (type risuChat or risuAllChats)"
SKIPPED_LORE = "skipped localLore"
"""Chat app-data key of the ``localLore`` items that are no entry object: ``[[index, value],
…]``.  The same format puts each back at its place, every other format reports them
dropped."""


def read_export(input: AdapterInput, options: Any = None, format_id: str = FORMAT_ID) -> ReadResult:
    doc, layout = json_object(input, NOT_AN_EXPORT)
    if doc.get("type") not in ("risuChat", "risuAllChats"):
        raise MalformedInput(NOT_AN_EXPORT)
    warnings: list[Issue] = []
    top = {"order": list(doc), **layout}
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
            chat.app_data.setdefault(FORMAT_ID, {})["folders"] = folders
        elif "folders" in doc:
            record["file"]["folders"] = folders
    return ReadResult(list(chats), warnings)


def _read_lore(raw: list[Any], path: str, warnings: list[Issue]) -> Lorebook:
    from bunzai.sdk import Lorebook

    from .._common import lore

    return Lorebook(entries=lore.read_entries(raw, path, warnings, FORMAT_ID))


def chat_from(obj: dict[str, Any], path: str, warnings: list[Issue]) -> Chat:
    from bunzai.sdk import Chat

    record: dict[str, Any] = {"order": list(obj)}
    fields: dict[str, Any] = {}
    raw: dict[str, Any] = {}
    own: dict[str, Any] = {}
    for key, field in (("name", "title"), ("note", "notes")):
        if key in obj:
            if isinstance(obj[key], str) and obj[key]:
                fields[field] = obj[key]
            else:
                raw[key] = obj[key]
    lore_raw = obj.get("localLore")
    if isinstance(lore_raw, list) and lore_raw:
        fields["lorebook"] = _read_lore(lore_raw, f"{path}.localLore", warnings)
        strays = [[i, item] for i, item in enumerate(lore_raw) if not isinstance(item, dict)]
        if strays:
            own[SKIPPED_LORE] = strays
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
                own[key] = obj[key]
    messages = obj.get("message")
    if not isinstance(messages, list):
        raise MalformedInput(f"{path}.message: expected a list of messages")
    for i, m in enumerate(messages):
        if not isinstance(m, dict):
            raise MalformedInput(f"{path}.message[{i}]: expected a message object")
    fields["messages"] = held_or_lazy(lambda: (message_from(m, f"{path}.message[{i}]", marked)
                                               for i, m in enumerate(messages)))
    keep = {k: obj[k] for k in LAYOUT_KEYS if k in obj}
    if keep:
        record["keep"] = keep
    own.update({k: v for k, v in obj.items() if k not in CHAT_KEYS and k not in LAYOUT_KEYS})
    if raw:
        record["raw"] = raw
    return Chat(passthrough={FORMAT_ID: record}, app_data={FORMAT_ID: own} if own else {}, **fields)


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
    take_text(obj, "data", fields, "text", raw)
    take_time(obj, "time", record, fields)
    chat_id = obj.get("chatId")
    if isinstance(chat_id, str) and chat_id:
        fields["id"] = chat_id
        if chat_id in marked:
            fields["bookmark"] = marked[chat_id] or "bookmark"
            if not marked[chat_id]:
                record["unnamed"] = True
    elif "chatId" in obj:
        raw["chatId"] = chat_id
    take_text(obj, "name", fields, "speaker", raw, empty=False)
    info = obj.get("generationInfo")
    own = {k: v for k, v in obj.items() if k not in MESSAGE_KEYS}
    if isinstance(info, dict):
        if isinstance(info.get("model"), str) and info["model"]:
            fields["model"] = info["model"]
        record["info_order"] = list(info)
        rest = {k: v for k, v in info.items() if not (k == "model" and "model" in fields)}
        if rest:
            record["info"] = rest
    elif "generationInfo" in obj:
        raw["generationInfo"] = info
    disabled = obj.get("disabled")
    if disabled is True:
        fields["hidden"] = True
    elif "disabled" in obj:
        if disabled is False:
            raw["disabled"] = disabled
        else:
            own["disabled"] = disabled
    if raw:
        record["raw"] = raw
    return ChatMessage(passthrough={FORMAT_ID: record}, app_data={FORMAT_ID: own} if own else {},
                       **fields)


# -- writing -----------------------------------------------------------------------------------


def chat_obj(chat: Chat, loss: LossReport | None = None) -> dict[str, Any]:
    """One RisuAI chat object; with ``loss``, what RisuAI reads otherwise is reported."""
    record = layout_of(chat, FORMAT_ID)
    own = data_of(chat, FORMAT_ID)
    raw = inner(record, "raw")
    out: dict[str, Any] = {}
    out["message"] = [message_obj(m, j, loss, f"messages[{j}].")
                      for j, m in enumerate(chat.iter_messages())]
    out["note"] = chat.notes if chat.notes else raw.get("note", "")
    out["name"] = chat.title if chat.title else raw.get("name", "")
    if chat.lorebook is not None and chat.lorebook.entries:
        from .._common import lore
        out["localLore"] = lore.write_entries(chat.lorebook.entries, FORMAT_ID, loss,
                                              "lorebook.entries")
        if loss is not None:
            lore.report_unheld(chat.lorebook.entries, FORMAT_ID, loss, "lorebook.")
    else:
        out["localLore"] = raw.get("localLore", [])
        if chat.lorebook is not None and loss is not None and not _neutral().neutral(
                "lorebook", chat.lorebook, chat, "chat"):
            loss.dropped("lorebook", WHY["lorebook"])
    strays = own.get(SKIPPED_LORE)
    if isinstance(strays, list) and strays:
        out["localLore"] = lore_list = list(out["localLore"])
        for item in strays:
            if isinstance(item, list) and len(item) == 2 and isinstance(item[0], int):
                lore_list.insert(min(item[0], len(lore_list)), item[1])
    if "order" not in record:
        out["fmIndex"] = -1
    marks, names = _bookmarks(chat, record)
    if marks or "bookmarks" in record:
        out["bookmarks"] = marks
    if names or "bookmark_names" in record:
        out["bookmarkNames"] = names
    for key, value in inner(record, "keep").items():
        out.setdefault(key, value)
    for key, value in own.items():
        if key not in ("folders", SKIPPED_LORE):
            out.setdefault(key, value)
    return reorder(out, record.get("order"))


def _bookmarks(chat: Chat, record: Mapping[str, Any]) -> tuple[list[str], dict[str, str]]:
    marks: list[str] = []
    names: dict[str, str] = {}
    for i, m in enumerate(chat.iter_messages()):
        if not m.bookmark:
            continue
        ident = m.id or _message_id(i)
        marks.append(ident)
        if not layout_of(m, FORMAT_ID).get("unnamed") or m.bookmark != "bookmark":
            names[ident] = m.bookmark
    kept_marks = record.get("bookmarks")
    if isinstance(kept_marks, list) and sorted(kept_marks) == sorted(marks):
        marks = list(kept_marks)
    return marks, names


def _message_id(index: int) -> str:
    return str(uuid.uuid5(uuid.NAMESPACE_URL, f"bunzai:risu-chat:{index}"))


def message_obj(m: ChatMessage, index: int | None = None, loss: LossReport | None = None,
                path: str = "") -> dict[str, Any]:
    record = layout_of(m, FORMAT_ID)
    own = data_of(m, FORMAT_ID)
    raw = inner(record, "raw")
    out: dict[str, Any] = {}
    if "role" in raw and m.role == "character":
        out["role"] = raw["role"]
    else:
        out["role"] = "user" if m.role == "user" else "char"
    if m.role == "narrator" and loss is not None:
        loss.approximated(f"{path}role", WHY["role"])
    out["data"] = raw["data"] if "data" in raw and not m.text else m.text
    put_time(out, "time", m.time, record, "epoch_ms", loss, f"{path}time", WHY["time"])
    if m.id:
        out["chatId"] = m.id
    elif "chatId" in raw:
        out["chatId"] = raw["chatId"]
    elif m.bookmark and index is not None:
        out["chatId"] = _message_id(index)
    if m.speaker and "name" in record.get("order", []):
        out["name"] = m.speaker
    elif "name" in raw:
        out["name"] = raw["name"]
    elif m.speaker and loss is not None:
        loss.dropped(f"{path}speaker", WHY["speaker"])
    info = dict(record["info"]) if isinstance(record.get("info"), Mapping) else None
    if m.model:
        info = {"model": m.model, **(info or {})}
    if info is not None:
        out["generationInfo"] = reorder(info, record.get("info_order"))
    elif "generationInfo" in raw:
        out["generationInfo"] = raw["generationInfo"]
    if m.hidden:
        out["disabled"] = True
    elif "disabled" in raw:
        out["disabled"] = raw["disabled"]
    elif "disabled" in own:
        out["disabled"] = own["disabled"]
    put_kept(out, "isComment", m.role == "system", raw)
    for key, value in own.items():
        out.setdefault(key, value)
    return reorder(out, record.get("order"))


@cache
def _neutral() -> Neutrality:
    from bunzai.sdk import Neutrality
    return Neutrality()



def write_export(entities: Sequence[Entity], options: Any = None,
                 format_id: str = FORMAT_ID) -> WriteResult:
    chats: list[Chat] = list(entities)  # type: ignore[arg-type]
    loss = LossReport()
    many = len(chats) > 1
    docs = []
    for i, chat in enumerate(chats):
        part = LossReport()
        docs.append(chat_obj(chat, part))
        if chat.time_zone:
            part.approximated("time_zone", WHY["time_zone"])
        loss.extend(part, f"[{i}]." if many else "")
    first = layout_of(chats[0], FORMAT_ID).get("file") if chats else None
    file = first if isinstance(first, Mapping) else {}
    all_chats = many or file.get("type") == "risuAllChats"
    doc: dict[str, Any] = {"type": "risuAllChats" if all_chats else "risuChat",
                           "ver": file.get("ver", 2) if file.get("type") == (
                               "risuAllChats" if all_chats else "risuChat") else 2,
                           "data": docs if all_chats else docs[0]}
    folders = data_of(chats[0], FORMAT_ID).get("folders") if chats else None
    if folders is not None:
        doc["folders"] = folders
    elif "folders" in file:
        doc["folders"] = file["folders"]
    elif doc["ver"] == 2:
        doc["folders"] = []
    shared = doc.get("folders") or None  # what reading gives every chat of the file
    for i, chat in enumerate(chats):
        if data_of(chat, FORMAT_ID).get("folders") != shared:
            loss.approximated(f"[{i}].app_data.{FORMAT_ID}.folders" if many else
                              f"app_data.{FORMAT_ID}.folders", WHY["folders"])
    return WriteResult([json_file(reorder(doc, file.get("order")), file)], loss)

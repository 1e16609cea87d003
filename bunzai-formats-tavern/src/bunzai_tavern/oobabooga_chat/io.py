"""Reading and writing text-generation-webui histories, row by row."""

from __future__ import annotations

import html
import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from bunzai.chats import chat_fields_only, extra_of, layout_of, report_messages, report_unkept
from bunzai.chattime import parse_time, restore
from bunzai.errors import MalformedInput
from bunzai.loss import LossReport
from bunzai.types import OutputFile, ReadResult, WriteResult

from .._chat import ordered
from . import FORMAT_ID

if TYPE_CHECKING:
    from bunzai.input import AdapterInput
    from bunzai.model import Alternative, Attachment, Chat, ChatMessage

FMT = FORMAT_ID
BEGIN = "<|BEGIN-VISIBLE-CHAT|>"
"""The user side of the greeting row (``start_new_chat``)."""
META_KEYS = ("timestamp", "versions", "current_version_index", "attachments")
REASONS = {
    "speaker": "the history names no one: the names come from the webui's settings",
    "participants": "the history names no one",
    "role": "a history row holds the user's message and the reply",
    "time": "the webui stamps messages to the minute",
    "alternatives.time": "the webui stamps versions to the minute",
    "alternatives.reasoning": "the webui keeps a version's text only",
    "hidden": "the webui cannot hide a message",
    "reasoning": "the webui keeps reasoning inside the reply's text",
    "model": "the history does not record the model",
    "id": "history messages have no ids",
    "bookmark": "the webui has no bookmarks",
    "attachments": "the webui keeps embedded images and text files only",
    "extensions": "the webui has no place for other apps' extensions",
}
APPROXIMATED = frozenset({"role", "time", "alternatives.time"})


def read_chat(input: AdapterInput) -> ReadResult:
    data = input.json_mutable()
    if not isinstance(data, dict):
        raise MalformedInput("not a text-generation-webui history")
    return ReadResult([chat_from(data, _json_layout(input.data))])


def _json_layout(raw: bytes) -> dict[str, Any]:
    head = raw[:4096]
    indent = 4
    nl = head.find(b"\n")
    if nl >= 0:
        rest = head[nl + 1:]
        indent = len(rest) - len(rest.lstrip(b" "))
    out: dict[str, Any] = {"indent": indent}
    if raw.isascii() and b"\\u" in raw:
        out["ascii"] = True
    if raw.endswith(b"\n"):
        out["newline"] = True
    return out


def chat_from(data: dict[str, Any], layout: Mapping[str, Any]) -> Chat:
    from bunzai.model import Chat

    legacy = "internal" not in data
    key, vkey = ("data", "data_visible") if legacy else ("internal", "visible")
    rows, shown = data.get(key), data.get(vkey)
    if not isinstance(rows, list) or not isinstance(shown, list):
        raise MalformedInput(f"$.{key} and $.{vkey}: expected lists of [user, reply] rows")
    meta = data.get("metadata") if isinstance(data.get("metadata"), dict) else {}
    record: dict[str, Any] = {"order": list(data), **layout}
    if legacy:
        record["legacy"] = True
    if "metadata" in data:
        record["meta_order"] = list(meta) if isinstance(data["metadata"], dict) else None
        if not isinstance(data["metadata"], dict):
            record["metadata"] = data["metadata"]
    if len(shown) != len(rows):
        record["visible"] = shown  # out of step: kept as it was
        shown = []
    extra = {k: v for k, v in data.items() if k not in (key, vkey, "metadata")}
    if extra:
        record["extra"] = extra
    messages: list[ChatMessage] = []
    empty: list[int] = []
    for i, row in enumerate(rows):
        if not isinstance(row, list) or len(row) != 2:
            raise MalformedInput(f"$.{key}[{i}]: expected a [user, reply] pair")
        vis = shown[i] if i < len(shown) and isinstance(shown[i], list) else [None, None]
        made = 0
        user, reply = row
        if isinstance(user, str) and user and user != BEGIN:
            messages.append(_message("user", user, vis[0], meta.get(f"user_{i}"),
                                     alone=not reply))
            made += 1
        if isinstance(reply, str) and reply:
            messages.append(_message("character", reply, vis[1], meta.get(f"assistant_{i}"),
                                     begin=user == BEGIN, blank=user == "", index=i))
            made += 1
        if not made:
            empty.append(i)
            record.setdefault("rows", {})[str(i)] = {"row": row, "visible": vis}
    if empty:
        record["empty"] = empty
    return Chat(messages=messages, passthrough={FMT: record})


def _message(role: str, text: str, visible: Any, meta: Any, *, alone: bool = False,
             begin: bool = False, blank: bool = False, index: int = 0) -> ChatMessage:
    from bunzai.model import ChatMessage

    record: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    if alone:
        record["alone"] = True
    if begin:
        record["begin"] = True
    if visible != html.escape(text):
        if isinstance(visible, str):
            extra["visible"] = visible
        else:
            record["visible"] = visible
    fields: dict[str, Any] = {"role": role, "text": text}
    if isinstance(meta, dict):
        record["meta"] = list(meta)
        if "timestamp" in meta:
            record["timestamp"] = meta["timestamp"]
            fields["time"] = parse_time(meta["timestamp"])
        versions = meta.get("versions")
        if isinstance(versions, list) and len(versions) >= 2 and all(
                isinstance(v, dict) and isinstance(v.get("content"), str) for v in versions):
            fields["alternatives"] = [_version(v) for v in versions]
            cvi = meta.get("current_version_index")
            if isinstance(cvi, int) and not isinstance(cvi, bool) and 0 <= cvi < len(versions):
                fields["chosen"] = cvi
            elif "current_version_index" in meta:
                extra["current_version_index"] = cvi
        else:
            for k in ("versions", "current_version_index"):
                if k in meta:
                    extra[k] = meta[k]
        attachments = meta.get("attachments")
        if isinstance(attachments, list) and all(isinstance(a, dict) for a in attachments):
            fields["attachments"] = [_attachment(a) for a in attachments]
        elif "attachments" in meta:
            extra["attachments"] = attachments
        extra.update({f"metadata.{k}": v for k, v in meta.items() if k not in META_KEYS})
    elif meta is not None:
        record["meta_raw"] = meta
    if extra:
        record["extra"] = extra
    return ChatMessage(passthrough={FMT: record}, **fields)


def _version(v: dict[str, Any]) -> Alternative:
    from bunzai.model import Alternative

    record: dict[str, Any] = {"order": list(v)}
    if "timestamp" in v:
        record["timestamp"] = v["timestamp"]
    if v.get("visible_content") != html.escape(v["content"]):
        record["visible_content"] = v.get("visible_content")
    rest = {k: x for k, x in v.items() if k not in ("content", "visible_content", "timestamp")}
    if rest:
        record["extra"] = rest
    return Alternative(text=v["content"], time=parse_time(v.get("timestamp")),
                       passthrough={FMT: record})


def _attachment(a: dict[str, Any]) -> Attachment:
    from bunzai.model import Attachment

    kind = a.get("type")
    record: dict[str, Any] = {"order": list(a)}
    rest = {k: v for k, v in a.items() if k not in ("name", "type", "image_data", "content")}
    if rest:
        record["extra"] = rest
    name = a.get("name") if isinstance(a.get("name"), str) else None
    if kind == "image":
        return Attachment(type="image", name=name, uri=a.get("image_data") if isinstance(
            a.get("image_data"), str) else None, passthrough={FMT: record})
    return Attachment(type="file", name=name, media_type=kind if isinstance(kind, str) else None,
                      text=a.get("content") if isinstance(a.get("content"), str) else None,
                      passthrough={FMT: record})


# -- writing -----------------------------------------------------------------------------------


def document(chat: Chat) -> dict[str, Any]:
    record = layout_of(chat, FMT)
    rows: list[list[Any]] = []
    shown: list[list[Any]] = []
    meta: dict[str, Any] = {}
    empty = {int(k): v for k, v in (record.get("rows") or {}).items()}

    def add(user: ChatMessage | None, reply: ChatMessage | None) -> None:
        while len(rows) in empty:
            kept = empty[len(rows)]
            rows.append(kept["row"])
            shown.append(kept["visible"])
        i = len(rows)
        begin = reply is not None and layout_of(reply, FMT).get("begin")
        u = user.text if user is not None else (BEGIN if begin else "")
        r = reply.text if reply is not None else ""
        rows.append([u, r])
        uv = _visible(user) if user is not None else ""
        rv = _visible(reply) if reply is not None else ""
        shown.append([uv, rv])
        for side, m in (("user", user), ("assistant", reply)):
            if m is not None:
                entry = _meta(m)
                if entry is not None:
                    meta[f"{side}_{i}"] = entry

    pending: ChatMessage | None = None
    for m in chat.iter_messages():
        if m.role == "user":
            if pending is not None:
                add(pending, None)
            pending = m
            if layout_of(m, FMT).get("alone"):
                add(m, None)
                pending = None
            continue
        add(pending, m)
        pending = None
    if pending is not None:
        add(pending, None)
    while len(rows) in empty:
        kept = empty[len(rows)]
        rows.append(kept["row"])
        shown.append(kept["visible"])
    if "visible" in record:
        shown = record["visible"]
    if record.get("legacy"):
        doc: dict[str, Any] = {"data": rows, "data_visible": shown}
    else:
        doc = {"internal": rows, "visible": shown}
        if "metadata" in record:
            doc["metadata"] = record["metadata"]
        elif record.get("meta_order") is not None or "order" not in record or meta:
            order = record.get("meta_order")
            doc["metadata"] = {k: meta[k] for k in order if k in meta} if isinstance(
                order, list) else {}
            doc["metadata"].update((k, v) for k, v in meta.items() if k not in doc["metadata"])
    for key, value in extra_of(chat, FMT).items():
        doc.setdefault(key, value)
    doc = ordered(doc, record.get("order"))
    return doc


def _visible(m: ChatMessage) -> Any:
    record = layout_of(m, FMT)
    extra = extra_of(m, FMT)
    if "visible" in extra:
        return extra["visible"]
    if "visible" in record:
        return record["visible"]
    return html.escape(m.text)


def _meta(m: ChatMessage) -> dict[str, Any] | None:
    record = layout_of(m, FMT)
    extra = extra_of(m, FMT)
    if "meta_raw" in record:
        return record["meta_raw"]  # type: ignore[no-any-return]
    out: dict[str, Any] = {}
    when = restore(m.time, record.get("timestamp"), "ooba")
    if when is not None:
        out["timestamp"] = when
    elif "timestamp" in record:
        out["timestamp"] = record["timestamp"]
    if len(m.alternatives) >= 2:
        out["versions"] = [_version_obj(a) for a in m.alternatives]
        if m.chosen is not None:
            out["current_version_index"] = m.chosen
    for key in ("versions", "current_version_index", "attachments"):
        if key in extra:
            out.setdefault(key, extra[key])
    kept = [_attachment_obj(a) for a in m.attachments]
    if [a for a in kept if a is not None]:
        out["attachments"] = [a for a in kept if a is not None]
    for key, value in extra.items():
        if key.startswith("metadata."):
            out[key[9:]] = value
    if not out and "meta" not in record:
        return None
    out = ordered(out, record.get("meta"))
    return out


def _version_obj(a: Alternative) -> dict[str, Any]:
    record = layout_of(a, FMT)
    out: dict[str, Any] = {"content": a.text,
                           "visible_content": record.get("visible_content",
                                                         html.escape(a.text))}
    when = restore(a.time, record.get("timestamp"), "ooba")
    if when is not None:
        out["timestamp"] = when
    elif "timestamp" in record:
        out["timestamp"] = record["timestamp"]
    for key, value in extra_of(a, FMT).items():
        out.setdefault(key, value)
    out = ordered(out, record.get("order"))
    return out


def _attachment_obj(a: Attachment) -> dict[str, Any] | None:
    record = layout_of(a, FMT)
    out: dict[str, Any] = {}
    if a.type == "image" and a.uri and a.uri.startswith("data:"):
        out = {"name": a.name, "type": "image", "image_data": a.uri}
    elif a.type == "image" and a.data is not None:
        import base64
        out = {"name": a.name, "type": "image", "image_data": f"data:{a.media_type or 'image/png'}"
               f";base64,{base64.b64encode(a.data).decode('ascii')}"}
    elif a.text is not None:
        out = {"name": a.name, "type": a.media_type or "text/plain", "content": a.text}
    else:
        return None
    for key, value in extra_of(a, FMT).items():
        out.setdefault(key, value)
    out = ordered(out, record.get("order"))
    return out


def write_chat(chat: Chat) -> WriteResult:
    doc = document(chat)
    record = layout_of(chat, FMT)
    indent = record.get("indent", 4)
    data = json.dumps(doc, indent=indent if isinstance(indent, int) and indent else None,
                      ensure_ascii=bool(record.get("ascii"))).encode("utf-8")
    if record.get("newline"):
        data += b"\n"
    back = chat_from(doc, {})
    loss = LossReport()
    report_unkept(loss, "", chat_fields_only(chat), chat_fields_only(back), reasons=REASONS,
                  approximated=APPROXIMATED,
                  default="a webui history holds only the exchanges", skip=("messages",))
    report_messages(loss, chat.iter_messages(), back.messages, reasons=REASONS,
                    approximated=APPROXIMATED, default="the webui has no place for it",
                    dropped="an empty message has no place in a webui row")
    return WriteResult([OutputFile(data, ".json")], loss)

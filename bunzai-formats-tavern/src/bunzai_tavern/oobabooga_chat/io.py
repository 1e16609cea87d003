"""Reading and writing text-generation-webui histories, row by row.

A message's HTML text (``visible``) is layout while it is the escaped raw text, the message's
app data when it says something else; metadata keys bunzai has no field for are app data too
(``metadata.<key>``).  The writer reports what a row cannot hold as it was (a narrator written
as a reply, a time to the minute, an empty message with no row of its own).
"""

from __future__ import annotations

import html
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from bunzai.sdk import Issue, LossReport, MalformedInput, ReadResult, WriteResult
from bunzai.sdk.chats import (
    check_alternatives,
    data_of,
    held_or_lazy,
    json_file,
    json_object,
    layout_of,
    lone_alternative,
    parse_time,
    put_time,
    take_time,
    wall_note,
    zone_note,
)
from bunzai.sdk.fields import reorder

from . import FORMAT_ID, WRITER_REASONS

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput, Alternative, Attachment, Chat, ChatMessage

BEGIN = "<|BEGIN-VISIBLE-CHAT|>"
"""The user side of the greeting row (``start_new_chat``)."""
META_KEYS = ("timestamp", "versions", "current_version_index", "attachments")
SKIPPED = "skipped rows"
"""App-data key of the rows that are no pair of texts: ``[[index, row, visible row, their
metadata entries], …]``.
The same format puts each back at its place, every other format reports them dropped."""
WHY = WRITER_REASONS


def read_chat(input: AdapterInput, options: Any = None, format_id: str = FORMAT_ID) -> ReadResult:
    data, layout = json_object(input, "not a text-generation-webui history", 4)
    warnings: list[Issue] = []
    zone = (options or {}).get("zone") or "local"
    return ReadResult([chat_from(data, layout, warnings, zone)], warnings)


def chat_from(data: dict[str, Any], layout: Mapping[str, Any],
              warnings: list[Issue] | None = None, zone: str = "local") -> Chat:
    from bunzai.sdk import Chat

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
    own = {k: v for k, v in data.items() if k not in (key, vkey, "metadata")}
    kept: list[int] = []  # the rows that give messages, made when the messages are iterated
    wall: list[tuple[str, Any]] = []  # where the first time without a zone is, and its text
    empty: list[int] = []
    skipped: list[list[Any]] = []
    for i, row in enumerate(rows):
        if not isinstance(row, list) or len(row) != 2:
            raise MalformedInput(f"$.{key}[{i}]: expected a [user, reply] pair")
        vis = shown[i] if i < len(shown) and isinstance(shown[i], list) else [None, None]
        if not all(isinstance(cell, str) for cell in row):
            if warnings is not None:
                warnings.append(Issue(f"$.{key}[{i}]", "not a pair of texts; skipped"))
            skipped.append([i, row, vis, {k: meta[k] for k in (f"user_{i}", f"assistant_{i}")
                                           if k in meta}])
            continue
        user, reply = row
        for side in ("user", "assistant"):
            entry = meta.get(f"{side}_{i}")
            versions = entry.get("versions") if isinstance(entry, dict) else None
            if isinstance(versions, list):
                check_alternatives(len(versions), f"$.metadata.{side}_{i}")
            if not wall and isinstance(entry, dict):
                text = wall_note(entry, ("timestamp",)) or next(
                    (t for v in versions or () if isinstance(v, dict)
                     and (t := wall_note(v, ("timestamp",))) is not None), None)
                if text is not None:
                    wall.append((f"$.metadata.{side}_{i}", text))
        if (user and user != BEGIN) or reply:
            kept.append(i)
        else:
            empty.append(i)
            record.setdefault("rows", {})[str(i)] = {"row": row, "visible": vis}
    if empty:
        record["empty"] = empty
    if skipped:
        own[SKIPPED] = skipped

    def make() -> Iterator[ChatMessage]:
        for i in kept:
            user, reply = rows[i]
            vis = shown[i] if i < len(shown) and isinstance(shown[i], list) else [None, None]
            if user and user != BEGIN:
                yield _message("user", user, vis[0], meta.get(f"user_{i}"), alone=not reply,
                               zone=zone)
            if reply:
                yield _message("character", reply, vis[1], meta.get(f"assistant_{i}"),
                               begin=user == BEGIN, blank=user == "", index=i, zone=zone)

    chat = Chat(messages=held_or_lazy(make), passthrough={FORMAT_ID: record},
                app_data={FORMAT_ID: own} if own else {})
    if wall:  # said once: every time of the history was read in this zone
        chat.time_zone = zone
        if warnings is not None:
            warnings.append(Issue(wall[0][0], zone_note(zone, wall[0][1])))
    return chat


def _message(role: str, text: str, visible: Any, meta: Any, *, alone: bool = False,
             begin: bool = False, blank: bool = False, index: int = 0,
             zone: str | None = None) -> ChatMessage:
    from bunzai.sdk import ChatMessage

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
        take_time(meta, "timestamp", record, fields, zone=zone)
        versions = meta.get("versions")
        if isinstance(versions, list) and len(versions) >= 2 and all(
                isinstance(v, dict) and isinstance(v.get("content"), str) for v in versions):
            fields["alternatives"] = [_version(v, zone) for v in versions]
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
    return ChatMessage(passthrough={FORMAT_ID: record},
                       app_data={FORMAT_ID: extra} if extra else {},
                       **fields)


def _version(v: dict[str, Any], zone: str | None = None) -> Alternative:
    from bunzai.sdk import Alternative

    record: dict[str, Any] = {"order": list(v)}
    if "timestamp" in v:
        record["timestamp"] = v["timestamp"]
    if v.get("visible_content") != html.escape(v["content"]):
        record["visible_content"] = v.get("visible_content")
    rest = {k: x for k, x in v.items() if k not in ("content", "visible_content", "timestamp")}
    return Alternative(text=v["content"], time=parse_time(v.get("timestamp"), zone),
                       passthrough={FORMAT_ID: record}, app_data={FORMAT_ID: rest} if rest else {})


def _attachment(a: dict[str, Any]) -> Attachment:
    from bunzai.sdk import Attachment

    kind = a.get("type")
    record: dict[str, Any] = {"order": list(a)}
    rest = {k: v for k, v in a.items() if k not in ("name", "type", "image_data", "content")}
    own = {FORMAT_ID: rest} if rest else {}
    name = a.get("name") if isinstance(a.get("name"), str) else None
    if kind == "image":
        return Attachment(type="image", name=name, uri=a.get("image_data") if isinstance(
            a.get("image_data"), str) else None, passthrough={FORMAT_ID: record}, app_data=own)
    return Attachment(type="file", name=name, media_type=kind if isinstance(kind, str) else None,
                      text=a.get("content") if isinstance(a.get("content"), str) else None,
                      passthrough={FORMAT_ID: record}, app_data=own)


# -- writing -----------------------------------------------------------------------------------


def document(chat: Chat, loss: LossReport | None = None,
             warnings: list[str] | None = None) -> dict[str, Any]:
    """The history for ``chat``; with ``loss``, what its rows cannot hold is reported, and
    with ``warnings``, where the webui will show an empty reply the source did not have."""
    record = layout_of(chat, FORMAT_ID)
    rows: list[list[Any]] = []
    shown: list[list[Any]] = []
    meta: dict[str, Any] = {}
    empty = {int(k): v for k, v in (record.get("rows") or {}).items()}
    for item in data_of(chat, FORMAT_ID).get(SKIPPED) or ():
        if isinstance(item, list) and len(item) == 4 and isinstance(item[0], int):
            empty[item[0]] = {"row": item[1], "visible": item[2]}
            if isinstance(item[3], dict):
                meta.update(item[3])
    kept: list[int] = []  # the messages reading will find, in order
    zone = chat.time_zone or "local"  # the webui writes the clock time of the machine it runs on
    timed: list[bool] = []  # whether a time was written, which then carries no zone

    def add(user: tuple[int, ChatMessage] | None, reply: tuple[int, ChatMessage] | None
            ) -> None:
        while len(rows) in empty:
            saved = empty[len(rows)]
            rows.append(saved["row"])
            shown.append(saved["visible"])
        i = len(rows)
        begin = reply is not None and layout_of(reply[1], FORMAT_ID).get("begin")
        u = user[1].text if user is not None else (BEGIN if begin else "")
        r = reply[1].text if reply is not None else ""
        rows.append([u, r])
        shown.append([_visible(user[1]) if user is not None else "",
                      _visible(reply[1]) if reply is not None else ""])
        if user is not None and u and u != BEGIN:
            kept.append(user[0])
        if reply is not None and r:
            kept.append(reply[0])
        for side, m in (("user", user), ("assistant", reply)):
            if m is not None:
                entry = _meta(m[1], loss, f"messages[{m[0]}].", zone)
                if entry is not None:
                    meta[f"{side}_{i}"] = entry
                    if not timed and (m[1].time is not None or any(
                            a.time is not None for a in m[1].alternatives)):
                        timed.append(True)

    pending: tuple[int, ChatMessage] | None = None
    count = 0
    padded: list[int] = []  # user messages that get an empty reply the source did not have

    def alone(user: tuple[int, ChatMessage]) -> None:
        if user[1].text and not layout_of(user[1], FORMAT_ID).get("alone"):
            padded.append(user[0])
        add(user, None)

    for n, m in enumerate(chat.iter_messages()):
        count += 1
        if loss is not None and m.role in ("narrator", "system"):
            loss.approximated(f"messages[{n}].role", WHY["role"])
        if m.role == "user":
            if pending is not None:
                alone(pending)
            pending = (n, m)
            if layout_of(m, FORMAT_ID).get("alone"):
                add(pending, None)
                pending = None
            continue
        add(pending, (n, m))
        pending = None
    if pending is not None:
        alone(pending)
    if warnings is not None and padded:
        warnings.append(_padding(padded))
    if loss is not None and timed and chat.time_zone is None:
        loss.approximated("time_zone", WHY["time_zone"])
    if loss is not None and not timed and chat.time_zone is not None:
        loss.dropped("time_zone", "no message carries a time: the history has none to tell "
                                  "the zone by")
    while len(rows) in empty:
        saved = empty[len(rows)]
        rows.append(saved["row"])
        shown.append(saved["visible"])
    if loss is not None:
        _report_left_out(kept, count, loss)
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
    for key, value in data_of(chat, FORMAT_ID).items():
        if key != SKIPPED:
            doc.setdefault(key, value)
    return reorder(doc, record.get("order"))


def _padding(padded: list[int]) -> str:
    """The warning for user messages the webui will show followed by an empty reply bubble
    (two user messages in a row, or a last one without a reply).

    The row is the webui's own shape for a user message with no reply (its "Send dummy
    message" writes ``[text, ""]``), and it reads back as the same messages, so nothing is
    lost: but the webui draws the empty reply, and the user should know."""
    shown = ", ".join(f"messages[{i}]" for i in padded[:5])
    more = f" and {len(padded) - 5} more" if len(padded) > 5 else ""
    return f"{shown}{more}: {WHY['padded']}, so an empty reply bubble shows after each"


def _report_left_out(kept: list[int], count: int, loss: LossReport) -> None:
    """Messages no row holds (an empty one, or a user message reading as the greeting's
    marker)."""
    held = set(kept)
    loss.left_out("messages", {i: WHY["empty"] for i in range(count) if i not in held}, count)


def _visible(m: ChatMessage) -> Any:
    record = layout_of(m, FORMAT_ID)
    data = data_of(m, FORMAT_ID)
    if "visible" in data:
        return data["visible"]
    if "visible" in record:
        return record["visible"]
    return html.escape(m.text)


def _meta(m: ChatMessage, loss: LossReport | None, path: str,
          zone: str) -> dict[str, Any] | None:
    record = layout_of(m, FORMAT_ID)
    data = data_of(m, FORMAT_ID)
    if "meta_raw" in record:
        return record["meta_raw"]  # type: ignore[no-any-return]
    out: dict[str, Any] = {}
    put_time(out, "timestamp", m.time, record, "ooba", loss, f"{path}time", WHY["time"], zone)
    if len(m.alternatives) >= 2:
        out["versions"] = [_version_obj(a, loss, f"{path}alternatives[{j}].", zone)
                           for j, a in enumerate(m.alternatives)]
        if m.chosen is not None:
            out["current_version_index"] = m.chosen
    elif loss is not None and lone_alternative(m):
        loss.dropped(f"{path}alternatives", WHY["single"])
    for key in ("versions", "current_version_index", "attachments"):
        if key in data:
            out.setdefault(key, data[key])
    written = [(j, _attachment_obj(a, loss, f"{path}attachments[{j}]"))
               for j, a in enumerate(m.attachments)]
    kept = [obj for _, obj in written if obj is not None]
    if kept:
        out["attachments"] = kept
    if loss is not None:
        loss.left_out(f"{path}attachments", {j: WHY["attachment"] for j, obj in written
                                             if obj is None}, len(m.attachments))
    for key, value in data.items():
        if key.startswith("metadata."):
            out[key[9:]] = value
    if not out and "meta" not in record:
        return None
    return reorder(out, record.get("meta"))


def _version_obj(a: Alternative, loss: LossReport | None, path: str,
                 zone: str) -> dict[str, Any]:
    record = layout_of(a, FORMAT_ID)
    out: dict[str, Any] = {"content": a.text,
                           "visible_content": record.get("visible_content",
                                                         html.escape(a.text))}
    put_time(out, "timestamp", a.time, record, "ooba", loss, f"{path}time", WHY["time"], zone)
    for key, value in data_of(a, FORMAT_ID).items():
        out.setdefault(key, value)
    return reorder(out, record.get("order"))


def _attachment_obj(a: Attachment, loss: LossReport | None, path: str
                    ) -> dict[str, Any] | None:
    """An image as its data URL, a file as its name, type and text; anything else has no
    place in the webui's metadata (None)."""
    record = layout_of(a, FORMAT_ID)
    out: dict[str, Any] = {}
    exact = False
    if a.type == "image" and a.uri and a.uri.startswith("data:"):
        out = {"name": a.name, "type": "image", "image_data": a.uri}
        exact = a.media_type is None and a.text is None and a.data is None
    elif a.type == "image" and a.data is not None:
        import base64
        out = {"name": a.name, "type": "image", "image_data": f"data:{a.media_type or 'image/png'}"
               f";base64,{base64.b64encode(a.data).decode('ascii')}"}
    elif a.text is not None:
        out = {"name": a.name, "type": a.media_type or "text/plain", "content": a.text}
        exact = (a.type == "file" and a.media_type not in (None, "image") and a.uri is None
                 and a.data is None)
    else:
        return None
    if not exact and loss is not None:
        loss.approximated(path, WHY["attachment_shape"])
    for key, value in data_of(a, FORMAT_ID).items():
        out.setdefault(key, value)
    return reorder(out, record.get("order"))


def write_chat(chat: Chat, options: Mapping[str, Any] | None = None,
               format_id: str = FORMAT_ID) -> WriteResult:
    loss = LossReport()
    warnings: list[str] = []
    doc = document(chat, loss, warnings)
    return WriteResult([json_file(doc, layout_of(chat, FORMAT_ID), 4)], loss, warnings)

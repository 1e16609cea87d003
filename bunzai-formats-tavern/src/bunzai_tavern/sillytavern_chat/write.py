"""Writing a SillyTavern chat: the header, then one message per line, streamed.

A chat read from SillyTavern comes back byte for byte: key order, the original date text, the
``extra`` object as it was, line endings and even blank lines are restored from passthrough
while the canonical values still match them.  A chat from another app is written the way
SillyTavern 1.13 saves one (header with ``chat_metadata``, messages with ``is_system`` and
``extra``), with epoch-millisecond dates, which every SillyTavern version parses exactly.

The loss report comes from reading each written record back with this format's own reader and
comparing it with the canonical message, one message at a time, before anything is written.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from bunzai.chats import chat_fields_only, extra_of, layout_of, report_unkept
from bunzai.chattime import restore
from bunzai.loss import LossReport
from bunzai.types import OutputFile, WriteResult

from .._chat import Line, Lines, dumps_js, ordered, produce, write_common
from . import FORMAT_ID
from .read import SYSTEM_TYPES, _header, message

if TYPE_CHECKING:
    from bunzai.model import Alternative, Attachment, Chat, ChatMessage, Participant

FMT = FORMAT_ID
REASONS = {
    "title": "a SillyTavern chat is named by its file, not by a field",
    "participants": "a SillyTavern chat names one user and one character",
    "memory": "SillyTavern keeps summaries per message (Summarize extension), not per chat",
    "greeting": "a SillyTavern chat starts with the card's greeting as a message",
    "example_dialogue": "example dialogue lives on the card in SillyTavern",
    "system_prompt": "the system prompt lives on the card or preset in SillyTavern",
    "lorebook": "a SillyTavern chat links a lorebook by name, it cannot hold one",
    "id": "SillyTavern messages have no ids",
    "participants.id": "SillyTavern names the user and the character; it keeps no ids",
    "participants.avatar": "SillyTavern finds avatars by the character, not in the chat",
    "speaker": "SillyTavern needs a name on every message: the chat's user or character "
               "name is written",
    "time": "SillyTavern dates keep milliseconds",
    "created": "SillyTavern's create_date keeps seconds",
    "extensions": "SillyTavern has no place for other apps' extensions",
    "media_type": "SillyTavern attachments are references (URL or data URL)",
    "data": "embedded bytes are written as a data URL",
    "uri": "embedded bytes are written as a data URL",
    "text": "SillyTavern keeps no extracted text for an attachment",
}
APPROXIMATED = frozenset({"speaker", "time", "created", "data", "uri"})
FALLBACK_NAMES = {"user": "User", "character": "Assistant", "narrator": "System",
                  "system": "System"}
"""Names for messages without a speaker in a chat that declares no user or character."""
NATURAL = ["name", "is_user", "is_system", "send_date", "mes", "extra"]


def write_chat(chat: Chat) -> WriteResult:
    loss = LossReport()
    names = _names(chat)
    header = _header_obj(chat, names)
    _report_header(chat, header, loss)
    for i, m in enumerate(chat.iter_messages()):
        obj = message_obj(m, names)
        back = message(Line(b"", b"", obj), [], False, b"\n", i)
        report_unkept(loss, f"messages[{i}].", m, back, reasons=REASONS,
                      approximated=APPROXIMATED,
                      default="SillyTavern has no place for it")
    return WriteResult([OutputFile([Lines(lambda: _produce(chat))], ".jsonl")], loss)


def _produce(chat: Chat) -> Iterator[bytes]:
    layout = layout_of(chat, FMT)
    if layout.get("empty") and not chat.messages and header_is_empty(chat):
        return iter(())
    names = _names(chat)
    return produce(chat, FMT, _header_obj(chat, names), lambda m: message_obj(m, names))


def header_is_empty(chat: Chat) -> bool:
    return not (chat.participants or chat.created or chat.notes or chat.branch_of
                or chat.scenario or extra_of(chat, FMT))


# -- the header ------------------------------------------------------------------------------------


def _names(chat: Chat) -> dict[str, str]:
    """The user and character names messages without a speaker get."""
    out: dict[str, str] = {}
    for p in chat.participants:
        if p.role in ("user", "character") and p.name and p.role not in out:
            out[p.role] = p.name
    return out


def _first(chat: Chat, role: str) -> Participant | None:
    return next((p for p in chat.participants if p.role == role and p.name), None)


def _header_obj(chat: Chat, names: Mapping[str, str]) -> dict[str, Any] | None:
    layout = layout_of(chat, FMT)
    if layout.get("headerless") and header_is_empty(chat):
        return None
    extra = extra_of(chat, FMT)
    out: dict[str, Any] = {}
    for key, role in (("user_name", "user"), ("character_name", "character")):
        if role in names:
            out[key] = names[role]
        elif key in layout:
            out[key] = layout[key]
        elif "header_order" not in layout:
            out[key] = "unused"
    created = restore(chat.created, layout.get("create_date"), "st_humanized")
    if created is not None:
        out["create_date"] = created
    elif "create_date" in layout:
        out["create_date"] = layout["create_date"]
    for key, value in extra.items():
        if key != "chat_metadata":
            out[key] = value
    meta = _metadata(chat, layout, extra)
    if meta is not None:
        out["chat_metadata"] = meta
    return ordered(out, layout.get("header_order"))


def _metadata(chat: Chat, layout: Mapping[str, Any], extra: Mapping[str, Any]
              ) -> Any:
    record = layout.get("chat_metadata")
    if record is not None and not isinstance(record, Mapping):
        return record  # not an object in the source: kept as it was
    rec = record if isinstance(record, Mapping) else {}
    keep = rec.get("keep") if isinstance(rec.get("keep"), Mapping) else {}
    out: dict[str, Any] = {}
    if chat.notes:
        out["note_prompt"] = chat.notes
    elif "note_prompt" in keep:
        out["note_prompt"] = keep["note_prompt"]
    if chat.branch_of:
        out["main_chat"] = chat.branch_of
    if chat.scenario:
        out["scenario"] = chat.scenario
    for key, value in keep.items():
        if key != "note_prompt":
            out[key] = value
    own = extra.get("chat_metadata")
    if isinstance(own, Mapping):
        for key, value in own.items():
            out.setdefault(key, value)
    if record is None and not out and "header_order" in layout:
        return None  # the source header had no chat_metadata
    return ordered(out, rec.get("order"))


def _report_header(chat: Chat, header: dict[str, Any] | None, loss: LossReport) -> None:
    from bunzai.model import Chat as ChatModel
    from bunzai.model import Participant

    if header is not None:
        fields: dict[str, Any] = {}
        participants: list[Any] = []
        _header(header, {}, {}, fields, participants, Participant, [])
        back = ChatModel(participants=participants, **fields)
    else:
        back = ChatModel()
    report_unkept(loss, "", chat_fields_only(chat), back, reasons=REASONS,
                  approximated=APPROXIMATED, default="SillyTavern chats have no such field",
                  skip=("messages",))


# -- messages ---------------------------------------------------------------------------------


def message_obj(m: ChatMessage, names: Mapping[str, str]) -> dict[str, Any]:
    """The JSON object of one message line."""
    out, layout, raw, absent = write_common(m, FMT, names, FALLBACK_NAMES)
    extra = extra_of(m, FMT)
    if "is_system" in raw and not m.hidden:
        out["is_system"] = raw["is_system"]
    elif not ("is_system" in absent and not m.hidden):
        out["is_system"] = m.hidden
    ext = _extra_obj(m, layout, extra, raw)
    if ext is not None:
        out["extra"] = ext
    _swipe_keys(m, layout, extra, out)
    for key, value in extra.items():
        if key != "extra":
            out.setdefault(key, value)
    keep = layout.get("keep")
    if isinstance(keep, Mapping):
        for key, value in keep.items():
            out.setdefault(key, value)
    return ordered(out, layout.get("order") or NATURAL)


def _extra_obj(m: ChatMessage, layout: Mapping[str, Any], extra: Mapping[str, Any],
               raw: Mapping[str, Any]) -> Any:
    if "extra" in raw:
        return raw["extra"]
    record = layout.get("extra_obj") if isinstance(layout.get("extra_obj"), Mapping) else {}
    xraw = record.get("raw") if isinstance(record.get("raw"), Mapping) else {}
    own = extra.get("extra") if isinstance(extra.get("extra"), Mapping) else {}
    out: dict[str, Any] = {}
    if m.reasoning:
        out["reasoning"] = m.reasoning
    elif "reasoning" in xraw:
        out["reasoning"] = xraw["reasoning"]
    if m.model:
        out["model"] = m.model
    if m.bookmark:
        out["bookmark_link"] = m.bookmark
    kind = own.get("type")
    if m.role == "narrator":
        out["type"] = "narrator"
    elif m.role == "system":
        out["type"] = kind if kind in SYSTEM_TYPES else "generic"
    _attachments(m.attachments, out)
    for key, value in own.items():
        out.setdefault(key, value)
    counters = record.get("keep")
    if isinstance(counters, Mapping):
        for key, value in counters.items():
            out.setdefault(key, value)
    if m.role not in ("narrator", "system") and out.get("type") in (*SYSTEM_TYPES, "narrator"):
        del out["type"]  # the message is no longer a system message
    if not out and "extra" in set(layout.get("absent") or ()):
        return None
    return ordered(out, record.get("order"))


def _attachments(items: list[Attachment], out: dict[str, Any]) -> None:
    groups: dict[str, list[Any]] = {}
    fresh = [a for a in items if not layout_of(a, FMT).get("from")]
    images = [a for a in fresh if a.type == "image"]
    files = [a for a in fresh if a.type != "image"]
    for a in items:
        record = layout_of(a, FMT)
        where = record.get("from")
        if where is None:
            if len(images) == 1 and a is images[0] and not a.title and not a.name:
                where = "image"
            elif len(files) == 1 and a is files[0] and a.type == "file" and not a.title:
                where = "file"
            else:
                where = "media"
        if where == "image":
            out["image"] = _uri(a)
            continue
        item: dict[str, Any] = {"url": _uri(a)}
        if where == "media" and (a.type != "image" or not record.get("no_type")):
            item["type"] = a.type
        if a.name is not None:
            item["name"] = a.name
        if a.title is not None:
            item["title"] = a.title
        for key, value in extra_of(a, FMT).items():
            item.setdefault(key, value)
        groups.setdefault(where, []).append(ordered(item, record.get("order")))
    for where, group in groups.items():
        out[where] = group[0] if where == "file" and len(group) == 1 else group


def _uri(a: Attachment) -> str:
    if a.uri is not None:
        return a.uri
    if a.data is not None:
        import base64
        return f"data:{a.media_type or 'application/octet-stream'};base64," + \
            base64.b64encode(a.data).decode("ascii")
    return ""


def _swipe_keys(m: ChatMessage, layout: Mapping[str, Any], extra: Mapping[str, Any],
                out: dict[str, Any]) -> None:
    record = layout.get("swipes") if isinstance(layout.get("swipes"), Mapping) else {}
    if len(m.alternatives) >= 2:
        out["swipes"] = [a.text for a in m.alternatives]
        if m.chosen is not None:
            out["swipe_id"] = m.chosen
        elif "swipe_id" in record:
            out["swipe_id"] = record["swipe_id"]
        if record.get("info") is False:
            if "swipe_info" in extra:
                out["swipe_info"] = extra["swipe_info"]
        else:
            out["swipe_info"] = [_info(a) for a in m.alternatives]
        return
    if "single" in record and not any(k in extra for k in ("swipes",)):
        count = record["single"]
        out["swipes"] = [m.text] if count else []
        if "swipe_id" in record:
            out["swipe_id"] = record["swipe_id"]
    for key in ("swipes", "swipe_id", "swipe_info"):
        if key in extra:
            out[key] = extra[key]


def _info(a: Alternative) -> dict[str, Any]:
    record = layout_of(a, FMT)
    own = extra_of(a, FMT)
    out: dict[str, Any] = {}
    send_date = restore(a.time, record.get("send_date"), "epoch_ms")
    if send_date is not None:
        out["send_date"] = send_date
    elif "send_date" in record:
        out["send_date"] = record["send_date"]
    xrecord = record.get("extra_obj") if isinstance(record.get("extra_obj"), Mapping) else None
    inner = own.get("extra") if isinstance(own.get("extra"), Mapping) else {}
    ext: dict[str, Any] = {}
    if a.reasoning:
        ext["reasoning"] = a.reasoning
    elif xrecord is not None and "reasoning" in xrecord:
        ext["reasoning"] = xrecord["reasoning"]
    for key, value in inner.items():
        ext.setdefault(key, value)
    counters = xrecord.get("keep") if xrecord is not None else None
    if isinstance(counters, Mapping):
        for key, value in counters.items():
            ext.setdefault(key, value)
    for key, value in own.items():
        if key != "extra":
            out.setdefault(key, value)
    if ext or xrecord is not None or not record:
        out["extra"] = ordered(ext, xrecord.get("order") if xrecord else None)
    return ordered(out, record.get("order"))


__all__ = ["dumps_js", "message_obj", "write_chat"]

"""Writing a SillyTavern chat: the header, then one message per line, streamed.

A chat read from SillyTavern comes back byte for byte: key order, the original date text, the
``extra`` object as it was, line endings and even blank lines are restored from passthrough
while the canonical values still match them.  A chat from another app is written the way
SillyTavern saves one: a header naming the chat's user and character as 1.13 does (1.15's
header, ``chat_metadata`` first and ``"unused"`` names, when the chat names no one), with
``create_date`` only when the chat has a start date (SillyTavern just keeps it, and 1.15 writes
none), then messages with ``is_system`` and ``extra`` and epoch-millisecond dates, which every
SillyTavern version parses exactly.

What the file cannot hold is declared by the adapter (``carries``); the writer reports only
what it writes differently (a name a message lacks, a time rounded to the millisecond, an
attachment's bytes as a data URL), one pass over the messages before the file is produced.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from bunzai.sdk import LossReport, OutputFile, WriteResult
from bunzai.sdk.chats import (
    data_of,
    exact_in,
    layout_of,
    lone_alternative,
    put_kept,
    record,
    report_participants,
)
from bunzai.sdk.fields import reorder

from .._common.chat import (
    SKIPPED,
    Lines,
    WallTimes,
    dumps_js,
    nested,
    produce,
    put_swipes,
    write_common,
)
from . import FORMAT_ID, WRITER_REASONS
from .read import EXTRA_TEXTS, METADATA_TEXTS, SWIPE_TEXTS, SYSTEM_TYPES

if TYPE_CHECKING:
    from bunzai.sdk import Alternative, Attachment, Chat, ChatMessage

FALLBACK_NAMES = {"user": "User", "character": "Assistant", "narrator": "System",
                  "system": "System"}
"""Names for messages without a speaker in a chat that declares no user or character."""
NATURAL = ["name", "is_user", "is_system", "send_date", "mes", "extra"]
NAMELESS_HEADER = ["chat_metadata", "user_name", "character_name"]
"""SillyTavern 1.15's header (``public/script.js`` ``saveChat``, and its importers in
``src/endpoints/chats.js``): ``chat_metadata`` first, ``"unused"`` for both names."""
WHY = WRITER_REASONS
WALL = ("st_meridiem", "st_humanized_ms")
"""The forms SillyTavern dates a message in, local time both: ``getMessageTimeStamp``'s, to
the minute, and the older humanized one, to the millisecond.  A message of a chat whose dates
are wall-clock ones gets the first that holds its time when it has no date text of its own."""


def write_chat(chat: Chat, options: Any = None, format_id: str = FORMAT_ID) -> WriteResult:
    fmt = format_id
    loss = LossReport()
    names = _names(chat)
    walls = WallTimes(chat.time_zone, WALL)
    report_participants(chat, _kept_participants(chat), loss, WHY["participants"])
    _header_obj(chat, names, fmt, loss, walls)
    for i, m in enumerate(chat.iter_messages()):
        message_obj(m, names, fmt, loss, f"messages[{i}].", walls)
    walls.report(chat, loss, WHY["time_zone"])
    return WriteResult([OutputFile([Lines(lambda: _produce(chat, fmt))], ".jsonl")], loss)


def _produce(chat: Chat, fmt: str) -> Iterator[bytes]:
    layout = layout_of(chat, fmt)
    if layout.get("empty") and not chat.messages and header_is_empty(chat, fmt):
        return iter(())
    names = _names(chat)
    walls = WallTimes(chat.time_zone, WALL)
    return produce(chat, fmt, _header_obj(chat, names, fmt, None, walls),
                   lambda m: message_obj(m, names, fmt, None, "", walls))


def header_is_empty(chat: Chat, fmt: str) -> bool:
    return not (chat.participants or chat.created or chat.notes or chat.branch_of
                or chat.scenario or data_of(chat, fmt).keys() - {SKIPPED})


# -- the header ------------------------------------------------------------------------------------


def _usable(name: str) -> bool:
    return bool(name) and name != "unused"  # "unused" is SillyTavern's "no name"


def _kept_participants(chat: Chat) -> list[int]:
    """Which participants the header names, in the order reading finds them: the first user,
    then the first character."""
    out: list[int] = []
    for role in ("user", "character"):
        found = next((i for i, p in enumerate(chat.participants)
                      if p.role == role and _usable(p.name)), None)
        if found is not None:
            out.append(found)
    return out


def _names(chat: Chat) -> dict[str, str]:
    """The user and character names messages without a speaker get."""
    return {chat.participants[i].role: chat.participants[i].name
            for i in _kept_participants(chat)}


def _header_obj(chat: Chat, names: Mapping[str, str], fmt: str,
                loss: LossReport | None = None,
                walls: WallTimes | None = None) -> dict[str, Any] | None:
    layout = layout_of(chat, fmt)
    if layout.get("headerless") and header_is_empty(chat, fmt):
        return None
    data = data_of(chat, fmt)
    out: dict[str, Any] = {}
    for key, role in (("user_name", "user"), ("character_name", "character")):
        if role in names:
            out[key] = names[role]
        elif key in layout:
            out[key] = layout[key]
        elif "header_order" not in layout:
            out[key] = "unused"
    # SillyTavern's own form (a wall-clock time) for a chat whose times are wall-clock ones;
    # else, or when it would round the time, epoch milliseconds, which SillyTavern also reads
    # (TavernAI chats carry them)
    zone = chat.time_zone
    form = "st_humanized" if zone is not None and (
        chat.created is None or exact_in(chat.created, "st_humanized", zone)) else "epoch_ms"
    (walls or WallTimes(zone)).put(out, "create_date", chat.created, layout, form, loss,
                                   "created", WHY["created"])
    for key, value in data.items():
        if not key.startswith("chat_metadata.") and key not in ("chat_metadata", SKIPPED):
            out[key] = value
    meta = _metadata(chat, layout, data)
    if meta is not None:
        out["chat_metadata"] = meta
    order = layout.get("header_order")
    if order is None and not names:
        order = NAMELESS_HEADER  # no one to name: the header SillyTavern writes today
    return reorder(out, order)


def _metadata(chat: Chat, layout: Mapping[str, Any], data: Mapping[str, Any]) -> Any:
    if "chat_metadata" in data:
        return data["chat_metadata"]  # not an object in the source: kept as it was
    rec = record(layout, "chat_metadata")
    keep = record(rec, "keep")
    out = _texts(chat, METADATA_TEXTS, keep)
    for key, value in keep.items():
        if key not in METADATA_TEXTS:
            out[key] = value
    for key, value in nested(data, "chat_metadata.").items():
        out.setdefault(key, value)
    if "chat_metadata" not in layout and not out and "header_order" in layout:
        return None  # the source header had no chat_metadata
    return reorder(out, rec.get("order"))


def _texts(obj: Any, texts: Mapping[str, str], kept: Mapping[str, Any]) -> dict[str, Any]:
    """``obj``'s fields ``texts`` names, under their SillyTavern keys: what the reader took
    (``read._take_text``), empty ones as the source had them."""
    out: dict[str, Any] = {}
    for key, field in texts.items():
        put_kept(out, key, getattr(obj, field), kept)
    return out


# -- messages ---------------------------------------------------------------------------------


def message_obj(m: ChatMessage, names: Mapping[str, str], fmt: str = FORMAT_ID,
                loss: LossReport | None = None, path: str = "",
                walls: WallTimes | None = None) -> dict[str, Any]:
    """The JSON object of one message line; with ``loss``, what it changes is reported."""
    walls = walls or WallTimes(None)
    out, layout, raw, absent = write_common(m, fmt, names, FALLBACK_NAMES, loss, path, WHY,
                                            walls)
    data = data_of(m, fmt)
    if "is_system" in raw and not m.hidden:
        out["is_system"] = raw["is_system"]
    elif not ("is_system" in absent and not m.hidden):
        out["is_system"] = m.hidden
    ext = _extra_obj(m, layout, data, raw, fmt, loss, path)
    if ext is not None:
        out["extra"] = ext
    _swipe_keys(m, layout, data, out, fmt, loss, path, walls)
    for key, value in data.items():
        if not key.startswith("extra.") and key != SKIPPED:
            out.setdefault(key, value)
    keep = layout.get("keep")
    if isinstance(keep, Mapping):
        for key, value in keep.items():
            out.setdefault(key, value)
    return reorder(out, layout.get("order") or NATURAL)


def _extra_obj(m: ChatMessage, layout: Mapping[str, Any], data: Mapping[str, Any],
               raw: Mapping[str, Any], fmt: str, loss: LossReport | None, path: str) -> Any:
    if "extra" in raw:
        return raw["extra"]
    rec = record(layout, "extra_obj")
    xraw = record(rec, "raw")
    out = _texts(m, EXTRA_TEXTS, xraw)
    kind = xraw.get("type")
    if m.role == "narrator":
        out["type"] = "narrator"
    elif m.role == "system":
        out["type"] = kind if kind in SYSTEM_TYPES else "generic"
    placed = _attachments(m.attachments, out, fmt, loss, f"{path}attachments")
    for key, value in nested(data, "extra.").items():
        out.setdefault(key, value)
    counters = rec.get("keep")
    if isinstance(counters, Mapping):
        for key, value in counters.items():
            out.setdefault(key, value)
    if m.role not in ("narrator", "system") and out.get("type") in (*SYSTEM_TYPES, "narrator"):
        del out["type"]  # the message is no longer a system message
    if not out and "extra" in set(layout.get("absent") or ()):
        return None
    out = reorder(out, rec.get("order"))
    if loss is not None and m.attachments:
        _report_attachments(m, out, placed, loss, f"{path}attachments")
    return out


def _attachments(items: list[Attachment], out: dict[str, Any], fmt: str,
                 loss: LossReport | None, path: str) -> dict[str, list[int]]:
    """``extra.image`` / ``file`` / ``files`` / ``media``: a fresh attachment goes to the
    single-image or single-file key SillyTavern has always shown, else to ``media``.  Returns
    which attachments went under which key."""
    groups: dict[str, list[tuple[int, Any]]] = {}
    fresh = [a for a in items if not layout_of(a, fmt).get("from")]
    images = [a for a in fresh if a.type == "image"]
    files = [a for a in fresh if a.type != "image"]
    placed: dict[str, list[int]] = {}
    for j, a in enumerate(items):
        rec = layout_of(a, fmt)
        where = rec.get("from")
        if where is None:
            if len(images) == 1 and a is images[0] and not a.title and not a.name:
                where = "image"
            elif len(files) == 1 and a is files[0] and a.type == "file" and not a.title:
                where = "file"
            else:
                where = "media"
        uri = _uri(a)
        if loss is not None and a.uri is None and a.data is not None:
            loss.approximated(f"{path}[{j}]", WHY["attachments[*].data"])
        if where == "image":
            out["image"] = uri
            if uri:  # an empty image key is no attachment
                placed["image"] = [j]
            continue
        item: dict[str, Any] = {"url": uri}
        if where == "media" and (a.type != "image" or not rec.get("no_type")):
            item["type"] = a.type
        if a.name is not None:
            item["name"] = a.name
        if a.title is not None:
            item["title"] = a.title
        for key, value in data_of(a, fmt).items():
            item.setdefault(key, value)
        groups.setdefault(where, []).append((j, reorder(item, rec.get("order"))))
        placed.setdefault(where, []).append(j)
    for where, group in groups.items():
        out[where] = group[0][1] if where == "file" and len(group) == 1 else [g for _, g in group]
    return placed


def _report_attachments(m: ChatMessage, ext: Mapping[str, Any], placed: Mapping[str, list[int]],
                        loss: LossReport, path: str) -> None:
    """Attachments that read back elsewhere: reading finds them key by key in the order of
    the ``extra`` object, so a mixed list comes back grouped, and one with no address is
    gone."""
    order = [j for key in ext if key in placed for j in placed[key]]
    if order == list(range(len(order))):
        for j in range(len(order), len(m.attachments)):
            loss.dropped(f"{path}[{j}]", WHY["attachments[*].uri"])
    else:
        loss.approximated(path, WHY["attachments"])


def _uri(a: Attachment) -> str:
    if a.uri is not None:
        return a.uri
    if a.data is not None:
        import base64
        return f"data:{a.media_type or 'application/octet-stream'};base64," + \
            base64.b64encode(a.data).decode("ascii")
    return ""


def _swipe_keys(m: ChatMessage, layout: Mapping[str, Any], data: Mapping[str, Any],
                out: dict[str, Any], fmt: str, loss: LossReport | None, path: str,
                walls: WallTimes) -> None:
    rec = record(layout, "swipes")
    if len(m.alternatives) >= 2:
        put_swipes(m, out, rec)
        if rec.get("info") is False:
            if "swipe_info" in data:
                out["swipe_info"] = data["swipe_info"]
        else:
            out["swipe_info"] = [_info(a, fmt, loss, f"{path}alternatives[{j}].", walls)
                                 for j, a in enumerate(m.alternatives)]
        return
    if loss is not None and lone_alternative(m):
        loss.dropped(f"{path}alternatives", WHY["alternatives"])
    if "single" in rec and "swipes" not in data:
        count = rec["single"]
        out["swipes"] = [m.text] if count else []
        for key in ("swipe_id", "swipe_info"):
            if key in rec:
                out[key] = rec[key]
    for key in ("swipes", "swipe_id", "swipe_info"):
        if key in data:
            out[key] = data[key]


def _info(a: Alternative, fmt: str, loss: LossReport | None, path: str,
          walls: WallTimes) -> dict[str, Any]:
    rec = layout_of(a, fmt)
    data = data_of(a, fmt)
    out: dict[str, Any] = {}
    walls.put(out, "send_date", a.time, rec, walls.form(a.time), loss, f"{path}time",
              WHY["time"])
    xrec = rec.get("extra_obj") if isinstance(rec.get("extra_obj"), Mapping) else None
    ext = _texts(a, SWIPE_TEXTS, xrec or {})
    for key, value in nested(data, "extra.").items():
        ext.setdefault(key, value)
    counters = xrec.get("keep") if xrec is not None else None
    if isinstance(counters, Mapping):
        for key, value in counters.items():
            ext.setdefault(key, value)
    for key, value in data.items():
        if not key.startswith("extra."):
            out.setdefault(key, value)
    keep = rec.get("keep")
    if isinstance(keep, Mapping):
        for key, value in keep.items():
            out.setdefault(key, value)
    if "extra" not in out and (ext or xrec is not None or not rec):
        out["extra"] = reorder(ext, xrec.get("order") if xrec else None)
    return reorder(out, rec.get("order"))


__all__ = ["dumps_js", "message_obj", "write_chat"]

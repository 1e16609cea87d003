"""Reading a SillyTavern chat: a header line (or none), then one message per line.

Message fields (front end ``public/script.js``, 1.10-1.15): ``name``, ``is_user``,
``is_system`` (hidden from the prompt), ``send_date`` (``"June 19, 2023 2:20pm"``, older
``"2023-4-21 @20h 02m 47s 124ms"``, 1.15 ISO 8601 or epoch ms), ``mes``, ``extra`` (reasoning,
model, api, token_count, bookmark_link, image/file/files/media attachments, the system message
``type``), ``swipes``/``swipe_id``/``swipe_info`` (alternatives with their own dates and extra),
``gen_started``/``gen_finished``, ``force_avatar``/``original_avatar`` (group chats) and
whatever extensions add.  The header's ``chat_metadata`` holds the author's note
(``note_prompt`` and its settings), the branch parent (``main_chat``), a chat scenario
override, chat variables and extension state.

What the model has no field for is the chat's app data, under the key it had (a message's
``force_avatar``; ``extra.api`` and ``chat_metadata.objective`` one level down); SillyTavern's
own bookkeeping (token counts, generation timings, save integrity) is layout.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bunzai.sdk import Issue, MalformedInput, ReadResult
from bunzai.sdk.chats import parse_time, wall_note

from .._common.chat import ABSENT, Line, finish, read_body, read_common, scan_head
from . import FORMAT_ID, is_header

if TYPE_CHECKING:
    from collections.abc import Mapping

    from bunzai.sdk import AdapterInput, Alternative, Attachment, ChatMessage

SYSTEM_TYPES = frozenset({"help", "welcome", "group", "empty", "generic", "comment",
                          "slash_commands", "formatting", "hotkeys", "macros",
                          "welcome_prompt", "assistant_note"})
"""SillyTavern's ``system_message_types`` other than ``narrator``: the app's own messages."""

BOOKKEEPING = frozenset({"integrity", "chat_id_hash", "tainted", "lastInContextMessageId",
                         "timedWorldInfo"})
"""``chat_metadata`` keys that are SillyTavern's own bookkeeping (save integrity, prompt
state), not anything a user wrote: layout."""

NOTE_SETTINGS = {"note_interval": 1, "note_position": 1, "note_depth": 4, "note_role": 0}
"""The author's-note settings, at the values a new chat gets.  At those values, or while the
note is empty (they then place nothing), they are layout; otherwise the user's data."""

COUNTERS = frozenset({"token_count", "gen_id", "time_to_first_token", "reasoning_duration"})
"""Message ``extra`` values SillyTavern computes for itself (token counts, generation ids,
latency): layout."""

TIMINGS = frozenset({"gen_started", "gen_finished"})
"""When SillyTavern started and finished generating a message: its bookkeeping, layout."""

METADATA_TEXTS = {"note_prompt": "notes", "main_chat": "branch_of", "scenario": "scenario"}
"""The ``chat_metadata`` texts a chat holds: SillyTavern's key -> the chat's field."""

EXTRA_TEXTS = {"reasoning": "reasoning", "model": "model", "bookmark_link": "bookmark"}
"""The ``extra`` texts a message holds: SillyTavern's key -> the message's field."""

SWIPE_TEXTS = {"reasoning": "reasoning"}
"""The ``extra`` text a swipe (an alternative) holds."""

EMPTY_KEPT = frozenset({"note_prompt", "reasoning"})
"""Texts SillyTavern writes empty on its own (a chat without an author's note, a reply without
reasoning): layout.  Another text left empty is the user's data."""

MESSAGE_KEYS = ("name", "is_user", "is_system", "send_date", "mes", "extra", "swipes",
                "swipe_id", "swipe_info")
LAYOUT_KEYS = ("is_name",)
"""TavernAI's always-true display flag, still written by early SillyTavern: layout."""


def read_chat(input: AdapterInput, options: Any = None, format_id: str = FORMAT_ID
              ) -> ReadResult:
    from bunzai.sdk import Chat, Participant

    fmt = format_id
    zone = (options or {}).get("zone") or "local"
    warnings: list[Issue] = []
    if input.size == 0:
        return ReadResult([Chat(passthrough={fmt: {"empty": True}})])
    layout: dict[str, Any] = {}
    data: dict[str, Any] = {}
    head = scan_head(input, is_header, layout)
    header, first_message = head.header, head.first_message
    if header is None and first_message < 0:
        raise MalformedInput("no SillyTavern chat header or message line")
    fields: dict[str, Any] = {}
    participants: list[Any] = []
    if header is None:
        layout["headerless"] = True
    else:
        assert isinstance(header.value, dict)
        header_fields(header.value, layout, data, fields, participants, Participant, warnings,
                      zone)
    default_eol = head.eol

    def make(line: Line, gap: list[Line], last: bool) -> ChatMessage:
        return message(line, gap, last, default_eol, fmt, zone)

    return read_body(input, head, fmt, zone, layout=layout, data=data, fields=fields,
                     participants=participants, warnings=warnings, make=make,
                     wall_text=_wall_text)


def _wall_text(obj: dict[str, Any]) -> Any:
    """A message's first wall-clock date (its own ``send_date``, a swipe's), else None."""
    found = wall_note(obj, ("send_date",))
    info = obj.get("swipe_info")
    for item in info if found is None and isinstance(info, list) else ():
        if isinstance(item, dict) and (found := wall_note(item, ("send_date",))) is not None:
            break
    return found


def header_fields(obj: dict[str, Any], layout: dict[str, Any], data: dict[str, Any],
                  fields: dict[str, Any], participants: list[Any], participant: Any,
                  warnings: list[Issue], zone: str | None = None) -> None:
    layout["header_order"] = list(obj)
    for key, role in (("user_name", "user"), ("character_name", "character")):
        if key not in obj:
            continue
        value = obj[key]
        if isinstance(value, str) and value and value != "unused":
            participants.append(participant(name=value, role=role))
        else:
            layout[key] = value
    if "create_date" in obj:
        raw = obj["create_date"]
        layout["create_date"] = raw
        fields["created"] = parse_time(raw, zone)
        if fields["created"] is None and raw not in ("", None):
            warnings.append(Issue("$[0].create_date", f"not a date: {raw!r}; kept as it was"))
    for key, value in obj.items():
        if key not in ("user_name", "character_name", "create_date", "chat_metadata"):
            data[key] = value
    meta = obj.get("chat_metadata", ABSENT)
    if meta is ABSENT:
        return
    if not isinstance(meta, dict):
        data["chat_metadata"] = meta
        warnings.append(Issue("$[0].chat_metadata", "chat_metadata is not an object; kept"))
        return
    record: dict[str, Any] = {"order": list(meta)}
    keep: dict[str, Any] = {}
    note = meta.get("note_prompt")
    for key, value in meta.items():
        if _take_text(key, value, METADATA_TEXTS, fields, keep):
            continue
        if key in BOOKKEEPING or (key in NOTE_SETTINGS and (
                NOTE_SETTINGS[key] == value or not (isinstance(note, str) and note))):
            keep[key] = value
        else:
            data[f"chat_metadata.{key}"] = value
    if keep:
        record["keep"] = keep
    layout["chat_metadata"] = record


def _take_text(key: str, value: Any, texts: Mapping[str, str], fields: dict[str, Any],
              kept: dict[str, Any]) -> bool:
    """Whether ``value`` under ``key`` is one of ``texts``, taken: a text into its field, an
    empty one SillyTavern writes on its own (:data:`EMPTY_KEPT`) into ``kept`` as it was.
    The writer puts both back with ``put_kept``."""
    field = texts.get(key)
    if field is None or not isinstance(value, str) or not (value or key in EMPTY_KEPT):
        return False
    if value:
        fields[field] = value
    else:
        kept[key] = value
    return True


def message(line: Line, gap: list[Line], last: bool, default_eol: bytes,
            fmt: str = FORMAT_ID, zone: str | None = None) -> ChatMessage:
    """One message line as a canonical message (layout in passthrough, data in app data);
    wall-clock dates are read in ``zone``."""
    from bunzai.sdk import ChatMessage

    obj: dict[str, Any] = line.value
    rec = read_common(obj, ("name", "is_user", "is_system", "send_date", "mes", "extra"), zone)
    fields, layout, raw, data = rec.fields, rec.layout, rec.raw, rec.data
    is_system = obj.get("is_system")
    if isinstance(is_system, bool):
        fields["hidden"] = is_system
    elif "is_system" in obj:
        raw["is_system"] = is_system

    role = fields["role"]
    ext = obj.get("extra", ABSENT)
    attachments: list[Attachment] = []
    if isinstance(ext, dict):
        role = _extra(ext, role, layout, data, fields, attachments, fmt)
    elif ext is not ABSENT:
        raw["extra"] = ext
    fields["role"] = role
    if attachments:
        fields["attachments"] = attachments

    _swipes(obj, fields, layout, data, fmt, zone)
    for key, value in obj.items():
        if key in MESSAGE_KEYS:
            continue
        if key in LAYOUT_KEYS or key in TIMINGS:
            layout.setdefault("keep", {})[key] = value
        else:
            data[key] = value
    finish(rec, line, gap, last, default_eol)
    return ChatMessage(**fields, passthrough={fmt: layout},
                       app_data={fmt: data} if data else {})


def _extra(ext: dict[str, Any], role: str, layout: dict[str, Any], data: dict[str, Any],
           fields: dict[str, Any], attachments: list[Attachment], fmt: str) -> str:
    """The message's ``extra`` object: canonical fields out, SillyTavern's data as
    ``extra.<key>``, its counters and the kind of its own system messages as layout."""
    xlayout: dict[str, Any] = {"order": list(ext)}
    xraw: dict[str, Any] = {}
    for key, value in ext.items():
        if _take_text(key, value, EXTRA_TEXTS, fields, xraw):
            continue
        if key == "type" and isinstance(value, str) and (
                value == "narrator" or value in SYSTEM_TYPES):
            role = "narrator" if value == "narrator" else "system"
            xraw[key] = value
        elif key in ("image", "file", "files", "media") and _attach(key, value, attachments,
                                                                    fmt):
            continue
        elif key in COUNTERS:
            xlayout.setdefault("keep", {})[key] = value
        else:
            data[f"extra.{key}"] = value
    if xraw:
        xlayout["raw"] = xraw
    layout["extra_obj"] = xlayout
    return role


def _attach(key: str, value: Any, out: list[Attachment], fmt: str) -> bool:
    """Attachments from ``extra.image`` / ``file`` / ``files`` / ``media``; False to keep the
    value as it is (a shape this reader does not know)."""
    from bunzai.sdk import Attachment

    if key == "image":
        if not isinstance(value, str) or not value:
            return False
        out.append(Attachment(type="image", uri=value, passthrough={fmt: {"from": "image"}}))
        return True
    items = [value] if key == "file" else value
    if not isinstance(items, list) or not items or not all(
            isinstance(i, dict) and isinstance(i.get("url"), str) for i in items):
        return False
    for item in items:
        rest = {k: v for k, v in item.items() if k not in ("url", "name", "title", "type")}
        record: dict[str, Any] = {"from": key, "order": list(item)}
        kind = "file"
        if key == "media":
            kind = item["type"] if isinstance(item.get("type"), str) else "image"
            if "type" not in item:
                record["no_type"] = True
        elif "type" in item:
            rest["type"] = item["type"]
        name = item.get("name")
        title = item.get("title")
        for k in ("name", "title"):
            if k in item and not isinstance(item[k], str):
                rest[k] = item[k]
        out.append(Attachment(type=kind, uri=item["url"],
                              name=name if isinstance(name, str) else None,
                              title=title if isinstance(title, str) else None,
                              passthrough={fmt: record}, app_data={fmt: rest} if rest else {}))
    return True


def _swipes(obj: dict[str, Any], fields: dict[str, Any], layout: dict[str, Any],
            data: dict[str, Any], fmt: str, zone: str | None = None) -> None:
    """``swipes``/``swipe_id``/``swipe_info`` as alternatives and the chosen index."""
    present = {k: obj[k] for k in ("swipes", "swipe_id", "swipe_info") if k in obj}
    if not present:
        return
    swipes = obj.get("swipes")
    text = fields.get("text")
    info = obj.get("swipe_info")
    if not isinstance(swipes, list) or not all(isinstance(s, str) for s in swipes):
        data.update(present)  # Chub's nested swipes or other shapes: kept as they are
        return
    if len(swipes) < 2:
        if swipes and swipes[0] != text:
            data.update(present)  # a lone swipe that is not the message: data, kept
            return
        # the message's one swipe: its info repeats the message's own generation details
        record: dict[str, Any] = {"single": len(swipes)}
        if "swipe_id" in obj:
            record["swipe_id"] = obj["swipe_id"]
        if "swipe_info" in obj:
            record["swipe_info"] = info
        layout["swipes"] = record
        return
    alts: list[Alternative] = []
    aligned = isinstance(info, list) and len(info) == len(swipes) and all(
        isinstance(i, dict) for i in info)
    for i, s in enumerate(swipes):
        alts.append(_alternative(s, info[i] if aligned else None, fmt,  # type: ignore[index]
                                 zone))
    fields["alternatives"] = alts
    sid = obj.get("swipe_id")
    if isinstance(sid, int) and not isinstance(sid, bool) and 0 <= sid < len(swipes):
        fields["chosen"] = sid
    record = {}
    if "swipe_id" in obj and fields.get("chosen") is None:
        record["swipe_id"] = obj["swipe_id"]
    if not aligned:
        if "swipe_info" in obj:
            data["swipe_info"] = info
        record["info"] = False
    if record:
        layout["swipes"] = record


def _alternative(text: str, info: dict[str, Any] | None, fmt: str,
                 zone: str | None = None) -> Alternative:
    from bunzai.sdk import Alternative

    if info is None:
        return Alternative(text=text)
    record: dict[str, Any] = {"order": list(info)}
    data: dict[str, Any] = {}
    fields: dict[str, Any] = {}
    for key, value in info.items():
        if key == "send_date":
            record["send_date"] = value
            fields["time"] = parse_time(value, zone)
        elif key == "extra" and isinstance(value, dict):
            xrecord: dict[str, Any] = {"order": list(value)}
            for k, v in value.items():
                if _take_text(k, v, SWIPE_TEXTS, fields, xrecord):
                    continue
                if k in COUNTERS:
                    xrecord.setdefault("keep", {})[k] = v
                else:
                    data[f"extra.{k}"] = v
            record["extra_obj"] = xrecord
        elif key in TIMINGS:
            record.setdefault("keep", {})[key] = value
        else:
            data[key] = value
    return Alternative(text=text, passthrough={fmt: record},
                       app_data={fmt: data} if data else {}, **fields)


__all__ = ["header_fields", "message", "read_chat"]

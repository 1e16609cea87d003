"""Reading TavernAI chats: JSONL logs and rooms (1.2-1.5) and legacy arrays (up to 1.1).

Keys bunzai has no field for (a 1.5 header's ``notes_type`` and ``mode``, keys other tools
add) are the chat's or the message's app data; ``chid`` (the character's place in TavernAI's
list, re-linked on every load) and ``is_name`` are layout.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bunzai.sdk import Issue, MalformedInput, ReadResult
from bunzai.sdk.chats import held_or_lazy, parse_time

from .._common.chat import Line, finish, read_body, read_common, scan_head
from ..sillytavern_chat import is_header
from . import FORMAT_ID, LEGACY_LINE

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput, ChatMessage

MESSAGE_KEYS = ("name", "is_user", "is_name", "send_date", "mes", "swipes", "swipe_id")
LAYOUT_KEYS = ("chid",)
HEADER_KEYS = ("user_name", "character_name", "character_names", "create_date", "notes",
               "scenario")


def read_chat(input: AdapterInput, options: Any = None, format_id: str = FORMAT_ID) -> ReadResult:
    zone = (options or {}).get("zone") or "local"
    if input.container == "json":
        data = input.json_mutable()
        if isinstance(data, list):
            return _legacy(data, input.data.endswith(b"\n"))
        if not isinstance(data, dict):
            raise MalformedInput("not a TavernAI chat")
    return _jsonl(input, [], zone)


def _legacy(lines: list[Any], newline: bool) -> ReadResult:
    from bunzai.sdk import Chat, Participant

    names: dict[str, None] = {}
    for i, line in enumerate(lines):
        if not isinstance(line, str):
            raise MalformedInput(f"$[{i}]: expected a \"Name: text\" string, got "
                                 f"{type(line).__name__}")
        m = LEGACY_LINE.match(line)
        if m is not None and m.group(0)[:-2] != "You":
            names.setdefault(m.group(0)[:-2], None)
    layout: dict[str, Any] = {"legacy": True}
    if newline:
        layout["newline"] = True
    participants = [Participant(name=n, role="character") for n in names]
    return ReadResult([Chat(participants=participants,
                            messages=held_or_lazy(lambda: (_legacy_line(x) for x in lines)),
                            passthrough={FORMAT_ID: layout})])


def _legacy_line(line: str) -> ChatMessage:
    """One ``"Name: text"`` line (``You`` is the user), or a line without a name, kept bare."""
    from bunzai.sdk import ChatMessage

    m = LEGACY_LINE.match(line)
    if m is None:
        return ChatMessage(text=line, passthrough={FORMAT_ID: {"bare": True}})
    name = m.group(0)[:-2]
    return ChatMessage(role="user" if name == "You" else "character", speaker=name,
                       text=line[m.end():])


def _jsonl(input: AdapterInput, warnings: list[Issue], zone: str = "local") -> ReadResult:
    layout: dict[str, Any] = {}
    head = scan_head(input, is_header, layout)
    header, eol = head.header, head.eol
    if header is None:
        raise MalformedInput("no TavernAI chat header line (user_name, character_name)")
    assert isinstance(header.value, dict)
    fields: dict[str, Any] = {}
    data: dict[str, Any] = {}
    participants = header_fields(header.value, layout, data, fields, warnings, zone)

    def make(line: Line, gap: list[Line], last: bool) -> ChatMessage:
        return message(line, gap, last, eol, zone)

    return read_body(input, head, FORMAT_ID, zone, layout=layout, data=data, fields=fields,
                     participants=participants, warnings=warnings, make=make)


def header_fields(obj: dict[str, Any], layout: dict[str, Any], data: dict[str, Any],
                  fields: dict[str, Any], warnings: list[Issue],
                  zone: str | None = None) -> list[Any]:
    from bunzai.sdk import Participant

    layout["header_order"] = list(obj)
    participants: list[Any] = []
    user = obj.get("user_name")
    if isinstance(user, str) and user:
        participants.append(Participant(name=user, role="user"))
    elif "user_name" in obj:
        layout["user_name"] = user
    if "character_name" in obj:
        name = obj["character_name"]
        if isinstance(name, str) and name:
            participants.append(Participant(name=name, role="character"))
        else:
            layout["character_name"] = name
    if "character_names" in obj:
        names = obj["character_names"]
        if isinstance(names, list) and all(isinstance(n, str) and n for n in names):
            participants += [Participant(name=n, role="character") for n in names]
            layout["room"] = True
        else:
            layout["character_names"] = names
    if "create_date" in obj:
        layout["create_date"] = obj["create_date"]
        fields["created"] = parse_time(obj["create_date"], zone)
        if fields["created"] is None and obj["create_date"] not in ("", None):
            warnings.append(Issue("$[0].create_date", "not a date; kept as it was"))
    for key in ("notes", "scenario"):
        if key in obj:
            value = obj[key]
            if isinstance(value, str) and value:
                fields[key] = value
            else:
                layout[key] = value
    for key, value in obj.items():
        if key not in HEADER_KEYS:
            data[key] = value
    return participants


def message(line: Line, gap: list[Line], last: bool, default_eol: bytes,
            zone: str | None = None) -> ChatMessage:
    from bunzai.sdk import Alternative, ChatMessage

    obj: dict[str, Any] = line.value
    rec = read_common(obj, ("name", "is_user", "is_name", "send_date", "mes"), zone)
    fields, layout, raw, data = rec.fields, rec.layout, rec.raw, rec.data
    if "is_name" in obj and obj["is_name"] is not True:
        raw["is_name"] = obj["is_name"]
    swipes = obj.get("swipes")
    if isinstance(swipes, list) and len(swipes) >= 2 and all(isinstance(s, str)
                                                            for s in swipes):
        fields["alternatives"] = [Alternative(text=s) for s in swipes]
        sid = obj.get("swipe_id")
        if isinstance(sid, int) and not isinstance(sid, bool) and 0 <= sid < len(swipes):
            fields["chosen"] = sid
        elif "swipe_id" in obj:
            raw["swipe_id"] = sid
    elif isinstance(swipes, list) and len(swipes) < 2 and (
            not swipes or swipes[0] == fields.get("text")):
        layout["single"] = len(swipes)
        if "swipe_id" in obj:
            raw["swipe_id"] = obj["swipe_id"]
    else:
        for key in ("swipes", "swipe_id"):
            if key in obj:
                data[key] = obj[key]
    for key, value in obj.items():
        if key in LAYOUT_KEYS:
            layout.setdefault("keep", {})[key] = value
        elif key not in MESSAGE_KEYS:
            data[key] = value
    finish(rec, line, gap, last, default_eol)
    return ChatMessage(**fields, passthrough={FORMAT_ID: layout},
                       app_data={FORMAT_ID: data} if data else {})


__all__ = ["read_chat"]

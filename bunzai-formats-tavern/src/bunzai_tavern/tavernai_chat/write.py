"""Writing TavernAI chats: the 1.5 JSONL shape (a room when several characters speak), or, on
request (``shape=array``), the legacy array.  Output is streamed line by line.

A chat read from a legacy array is written as JSON Lines too unless the array is asked for:
SillyTavern's chat import takes a ``.json`` only as a CAI Tools, webui or Agnai export
(``src/endpoints/chats.js``), Agnai's (``web/pages/Character/ImportChat.tsx``) an Agnai export
or TavernAI JSON Lines, RisuAI's (``src/ts/characters.ts`` ``importChat``) a RisuAI export or
JSON Lines: none of them imports the array.

The adapter declares what a TavernAI chat holds; the writer reports what it writes otherwise
(a name or date TavernAI needs and the message lacks, a narrator written as a character), in
one pass over the messages before the file is produced.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from bunzai.sdk import LossReport, OutputFile, WriteResult
from bunzai.sdk.chats import (
    data_of,
    layout_of,
    lone_alternative,
    put_kept,
    record,
    report_participants,
    to_epoch_ms,
)
from bunzai.sdk.fields import reorder

from .._common.chat import (
    SKIPPED,
    Lines,
    WallTimes,
    dumps_js,
    produce,
    put_swipes,
    write_common,
)
from . import FORMAT_ID, LEGACY_CARRIES, LEGACY_LINE, WRITER_REASONS

if TYPE_CHECKING:
    from bunzai.sdk import Chat, ChatMessage

WHY = WRITER_REASONS
DEFAULT_USER = "You"
"""TavernAI's own name for the user, written when a chat names none."""


def write_chat(chat: Chat, options: Any = None, format_id: str = FORMAT_ID) -> WriteResult:
    loss = LossReport()
    if (options or {}).get("shape") == "array":
        return _write_legacy(chat, loss)
    names = _names(chat)
    walls = WallTimes(chat.time_zone)
    _report_participants(chat, loss)
    header_obj(chat, loss, walls)
    clock = Clock(chat)
    count = 0
    for i, m in enumerate(chat.iter_messages()):
        count += 1
        message_obj(m, names, clock, loss, f"messages[{i}].", last=None, walls=walls)
    walls.report(chat, loss, WHY["time_zone"])
    last = count - 1
    if last >= 0:  # the report's pass did not know which message is the last one
        _report_earlier_swipes(chat, last, loss)
    return WriteResult([OutputFile([Lines(lambda: _produce(chat, last))], ".jsonl")], loss)


def _report_earlier_swipes(chat: Chat, last: int, loss: LossReport) -> None:
    for i, m in enumerate(chat.iter_messages()):
        if i != last and _swipes_left_out(m, False):
            loss.dropped(f"messages[{i}].alternatives", WHY["earlier_swipes"])
            if m.chosen is not None:
                loss.dropped(f"messages[{i}].chosen", WHY["earlier_swipes"])


def _swipes_left_out(m: ChatMessage, last: bool) -> bool:
    """TavernAI keeps a reply's swipes only on the chat's last message (its ``saveChat`` deletes
    them from every earlier reply), so earlier replies are written with their shown text alone;
    a message that carried swipes in a TavernAI file keeps them, as the file had them."""
    return (not last and len(m.alternatives) >= 2 and m.role != "user"
            and "swipes" not in (layout_of(m, FORMAT_ID).get("order") or ()))


def _report_participants(chat: Chat, loss: LossReport) -> None:
    users = [i for i, p in enumerate(chat.participants) if p.role == "user" and p.name]
    chars = [i for i, p in enumerate(chat.participants) if p.role == "character" and p.name]
    if not users and "user_name" not in layout_of(chat, FORMAT_ID):
        loss.approximated("participants", WHY["user_name"])
    else:
        report_participants(chat, users[:1] + chars, loss, WHY["participants"])


# -- legacy arrays ---------------------------------------------------------------------------------


def _write_legacy(chat: Chat, loss: LossReport) -> WriteResult:
    """The array of ``"Name: text"`` lines TavernAI up to 1.1 kept a chat as.

    Reading such a line takes the name up to the first ``": "``; the user is ``You``, every
    other name a character, listed as the chat's participants in order of appearance."""
    lines: list[str] = []
    names: dict[str, None] = {}
    for i, m in enumerate(chat.iter_messages()):
        if layout_of(m, FORMAT_ID).get("bare"):
            lines.append(m.text)
            if m.role != "character" or m.speaker is not None or LEGACY_LINE.match(m.text):
                loss.approximated(f"messages[{i}]", WHY["legacy"])
            continue
        name = _name(m)
        lines.append(f"{name}: {m.text}")
        match = LEGACY_LINE.match(lines[-1])
        if match is None or match.group(0)[:-2] != name:
            loss.approximated(f"messages[{i}]", WHY["legacy"])
            if match is not None and match.group(0)[:-2] != DEFAULT_USER:
                names.setdefault(match.group(0)[:-2], None)
            continue
        if m.speaker is None:
            loss.approximated(f"messages[{i}].speaker", WHY["legacy_speaker"])
        if (m.role == "user") != (name == DEFAULT_USER) or m.role not in ("user", "character"):
            loss.approximated(f"messages[{i}].role", WHY["legacy_role"])
        if name != DEFAULT_USER:
            names.setdefault(name, None)
    if [(p.name, p.role) for p in chat.participants] != [(n, "character") for n in names]:
        loss.approximated("participants", WHY["legacy_participants"])
    data = dumps_js(lines) + (b"\n" if layout_of(chat, FORMAT_ID).get("newline") else b"")
    return WriteResult([OutputFile(data, ".json")], loss, carries=LEGACY_CARRIES)


def _name(m: ChatMessage) -> str:
    return m.speaker or (DEFAULT_USER if m.role == "user" else "Character")


# -- JSON Lines ------------------------------------------------------------------------------------


def _names(chat: Chat) -> dict[str, str]:
    out: dict[str, str] = {}
    for p in chat.participants:
        if p.role in ("user", "character") and p.name:
            out.setdefault(p.role, p.name)
    return out


def _produce(chat: Chat, last: int) -> Iterator[bytes]:
    names = _names(chat)
    clock = Clock(chat)
    walls = WallTimes(chat.time_zone)
    index = iter(range(last + 1))
    return produce(chat, FORMAT_ID, header_obj(chat, None, walls),
                   lambda m: message_obj(m, names, clock, last=next(index) == last, walls=walls))


def header_obj(chat: Chat, loss: LossReport | None = None,
               walls: WallTimes | None = None) -> dict[str, Any]:
    layout = layout_of(chat, FORMAT_ID)
    data = data_of(chat, FORMAT_ID)
    users = [p.name for p in chat.participants if p.role == "user" and p.name]
    chars = [p.name for p in chat.participants if p.role == "character" and p.name]
    out: dict[str, Any] = {}
    if users:
        out["user_name"] = users[0]
    else:
        out["user_name"] = layout.get("user_name", DEFAULT_USER)
    room = layout.get("room") or len(chars) > 1 or "character_names" in layout
    if room:
        out["character_names"] = chars if chars or "character_names" not in layout else \
            layout["character_names"]
    elif chars:
        out["character_name"] = chars[0]
    elif "character_name" in layout or "header_order" not in layout:
        out["character_name"] = layout.get("character_name", "")
    (walls or WallTimes(chat.time_zone)).put(out, "create_date", chat.created, layout,
                                             "epoch_ms", loss, "created", WHY["created"])
    for key in ("notes", "scenario"):
        put_kept(out, key, getattr(chat, key), layout)
    if "header_order" not in layout:
        out.setdefault("notes", "")
        out.setdefault("notes_type", "discr")
    for key, value in data.items():
        if key != SKIPPED:
            out.setdefault(key, value)
    return reorder(out, layout.get("header_order"))


class Clock:
    """The date a message without one gets: TavernAI needs a ``send_date`` on every message,
    so the previous message's (else the chat's start, else the current time) is written."""

    def __init__(self, chat: Chat) -> None:
        self.last = chat.created

    def stamp(self, m: ChatMessage) -> int | None:
        if m.time is not None:
            self.last = m.time
            return None
        if "send_date" in layout_of(m, FORMAT_ID):
            return None  # the source's own value, kept as it was
        from datetime import UTC, datetime
        return to_epoch_ms(self.last or datetime.now(UTC))


def message_obj(m: ChatMessage, names: Mapping[str, str], clock: Clock,
                loss: LossReport | None = None, path: str = "", *,
                last: bool | None = True, walls: WallTimes | None = None) -> dict[str, Any]:
    """One message line; ``last`` says whether it ends the chat (None: not known, in the
    report's pass, which reports earlier replies' swipes after it)."""
    out, layout, raw, absent = write_common(m, FORMAT_ID, names, {"user": DEFAULT_USER,
                                                             "character": "Character"},
                                            loss, path, WHY, walls)
    stamp = clock.stamp(m)
    if stamp is not None:
        out["send_date"] = stamp
        if loss is not None:
            loss.approximated(f"{path}time", WHY["send_date"])
    if m.role in ("narrator", "system") and loss is not None:
        loss.approximated(f"{path}role", WHY["role"])
    data = data_of(m, FORMAT_ID)
    if "is_name" in raw:
        out["is_name"] = raw["is_name"]
    elif "is_name" not in absent:
        out["is_name"] = True
    if len(m.alternatives) >= 2 and last is not None and _swipes_left_out(m, last):
        pass  # an earlier reply: its shown text alone (reported by write_chat)
    elif len(m.alternatives) >= 2:
        put_swipes(m, out, raw)
    else:
        if loss is not None and lone_alternative(m):
            loss.dropped(f"{path}alternatives", WHY["alternatives"])
        if "single" in layout and "swipes" not in data:
            out["swipes"] = [m.text] if layout["single"] else []
            if "swipe_id" in raw:
                out["swipe_id"] = raw["swipe_id"]
    for key, value in data.items():
        if key != SKIPPED:
            out.setdefault(key, value)
    for key, value in record(layout, "keep").items():
        out.setdefault(key, value)
    return reorder(out, layout.get("order") or ["name", "is_user", "is_name", "send_date",
                                                "mes"])


__all__ = ["write_chat"]

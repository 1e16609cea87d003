"""What the JSON Lines chat formats share (SillyTavern, TavernAI): lines in, lines out.

A chat file is one JSON object per line: an optional header, then one message per line.  To
rewrite a file byte for byte, each message remembers its own line ending when it is not the
file's usual one, the blank or broken lines that follow it, and its exact text when the JSON
serializer would not reproduce it.  Messages are produced one at a time from
``AdapterInput.lines()``, so a reader never holds more than one message of a large file.

Each message keeps its layout (key order, raw values, its line) in ``passthrough[format_id]``
and the app's own data (keys bunzai has no field for) in ``app_data[format_id]``.  Writers say
what they change while they build each line: the loss report is made in one pass over the
messages, before the file is produced, and nothing is read back.

A line that is neither blank nor a JSON object (cut off mid-message, not UTF-8, nested deeper
than the parser goes, a number beyond the float range) is damaged: the reader names it in a
warning (``line 3: not JSON, 41 bytes skipped``) and keeps its text as app data
(:data:`SKIPPED`) of the message before it, or of the chat when no message comes before it.
The same format writes it back where it was; every other format reports it dropped.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import orjson

from bunzai.sdk import BunzaiError, json_equal, loads
from bunzai.sdk.chats import data_of, layout_of, record

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput, ChatMessage, Issue, LossReport, ReadResult

ABSENT: Any = object()

SKIPPED = "skipped lines"
"""App-data key of the damaged lines that follow a message (or open the chat): their texts in
order, each a string, or ``{"base64": …}`` when it is not UTF-8.  SillyTavern's and
TavernAI's own keys have no spaces, so it does not meet theirs."""


@dataclass(slots=True)
class Line:
    """One physical line: its text without the terminator, the terminator, the parsed value."""

    body: bytes
    eol: bytes
    value: Any = ABSENT
    """The parsed JSON object, or ABSENT for a blank, broken or non-object line."""
    number: int = 0
    """Its line number in the file, from 1."""
    problem: str | None = None
    """Why a line that is not blank is no record (``not JSON``); None for a record or a blank
    line."""


def _problem(text: bytes) -> str:
    """What is wrong with a line that did not parse as a JSON object, in a user's words."""
    try:
        value = loads(text)
    except BunzaiError as exc:
        why = str(exc.message)
        if "UTF-8" in why:
            return "not valid UTF-8"
        if "depth limit" in why or "nested too deeply" in why or "recursion" in why:
            return "JSON nested deeper than the parser allows"
        if "infinity" in why or "out of range" in why:
            return "a number beyond the float range"
        return "not JSON"
    return f"a JSON {_kind(value)}, not an object"


def _kind(value: Any) -> str:
    if isinstance(value, list):
        return "array"
    if isinstance(value, str):
        return "string"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    return "number"


def split_eol(line: bytes) -> tuple[bytes, bytes]:
    if line.endswith(b"\r\n"):
        return line[:-2], b"\r\n"
    if line.endswith(b"\n"):
        return line[:-1], b"\n"
    return line, b""


def parse_line(raw: bytes, number: int = 0) -> Line:
    body, eol = split_eol(raw)
    line = Line(body, eol, number=number)
    text = body.strip()
    if not text:
        return line
    if text.startswith(b"{"):
        try:
            value = loads(text)
        except BunzaiError:
            value = ABSENT
        if isinstance(value, dict):
            line.value = value
            return line
    line.problem = _problem(text)
    return line


def iter_lines(input: AdapterInput, skip: int = 0) -> Iterator[Line]:
    for n, raw in enumerate(input.lines()):
        if n >= skip:
            yield parse_line(raw, n + 1)


def damage(line: Line) -> Issue:
    """The read warning that names a damaged line."""
    from bunzai.sdk import Issue

    return Issue(f"line {line.number}", f"{line.problem}, {len(line.body):,} bytes skipped")


def line_text(body: bytes) -> Any:
    """A line's text as JSON holds it: a string, or ``{"base64": …}`` when not UTF-8."""
    try:
        return body.decode("utf-8")
    except UnicodeDecodeError:
        return {"base64": base64.b64encode(body).decode("ascii")}


def text_bytes(text: Any) -> bytes:
    """The bytes of a line text kept by :func:`line_text` (empty for anything else)."""
    if isinstance(text, Mapping):
        try:
            return base64.b64decode(str(text.get("base64", "")))
        except ValueError:
            return b""
    return text.encode("utf-8", "surrogatepass") if isinstance(text, str) else b""


def keep_line(line: Line, skipped: list[Any] | None = None) -> Any:
    """A blank or damaged line as layout: its text and ending.  With ``skipped``, a damaged
    line's text goes there (the owner's app data) and the layout keeps its place only."""
    if line.problem is not None and skipped is not None:
        skipped.append(line_text(line.body))
        return [{"skipped": len(skipped) - 1}, line.eol.decode("ascii")]
    return [line_text(line.body), line.eol.decode("ascii")]


def restore_line(kept: Any, skipped: Any = ()) -> tuple[bytes, int | None]:
    """The bytes of a line kept by :func:`keep_line`, and the index in ``skipped`` it took
    (None for a blank line, or a place whose text is gone)."""
    if not isinstance(kept, list) or len(kept) != 2:
        return b"", None
    text, eol = kept
    end = str(eol).encode("ascii")
    if isinstance(text, Mapping) and "skipped" in text:
        k = text["skipped"]
        if isinstance(k, int) and isinstance(skipped, list) and 0 <= k < len(skipped):
            return text_bytes(skipped[k]) + end, k
        return b"", None
    return text_bytes(text) + end, None


def placed(kept: Any, skipped: Any) -> tuple[list[bytes], list[Any]]:
    """The blank and damaged lines kept at one place (``kept``, layout), the damaged ones with
    their texts from ``skipped`` (app data); and the texts no place holds (a chat written
    without its layout, or one whose app data gained a line), to be written after them."""
    texts = skipped if isinstance(skipped, list) else []
    used: set[int] = set()
    out: list[bytes] = []
    for item in kept or ():
        data, k = restore_line(item, texts)
        if k is not None:
            used.add(k)
        if data:
            out.append(data)
    return out, [t for k, t in enumerate(texts) if k not in used]


def unplaced(rest: list[Any], eol: bytes, more: bool) -> Iterator[bytes]:
    """Damaged lines no layout places, one per line; ``more``: something follows them."""
    for n, text in enumerate(rest):
        yield text_bytes(text) + (eol if more or n + 1 < len(rest) else b"")


def dumps_js(obj: Any) -> bytes:
    """JSON as JavaScript's ``JSON.stringify`` writes it (compact, UTF-8, no escaped slashes)."""
    try:
        return orjson.dumps(obj)
    except TypeError:  # integers beyond 64 bits: the standard library
        import json
        return json.dumps(obj, ensure_ascii=False, separators=(",", ":")).encode("utf-8")


def line_layout(line: Line, record: dict[str, Any]) -> None:
    """Keep the exact text of a line JSON re-serialization would not reproduce."""
    if dumps_js(line.value) != line.body:
        record["text"] = line.body.decode("utf-8", "surrogatepass")


def emit(obj: dict[str, Any], record: Mapping[str, Any]) -> bytes:
    """A line's bytes: the kept text when it still parses to ``obj``, else ``obj`` serialized."""
    text = record.get("text")
    if isinstance(text, str):
        try:
            if json_equal(loads(text), obj):
                return text.encode("utf-8", "surrogatepass")
        except BunzaiError:
            pass
    return dumps_js(obj)



class Messages:
    """The message lines of a chat file, grouped with the oddities that follow each one.

    Iterating yields ``(line, gap, last)``: a message line, the blank/broken lines after it,
    and whether it is the file's last message.  One message of look-ahead, nothing more.
    """

    def __init__(self, input: AdapterInput, skip: int) -> None:
        self.input = input
        self.skip = skip

    def __iter__(self) -> Iterator[tuple[Line, list[Line], bool]]:
        pending: Line | None = None
        gap: list[Line] = []
        for line in iter_lines(self.input, self.skip):
            if line.value is ABSENT:
                if pending is not None:
                    gap.append(line)
                continue
            if pending is not None:
                yield pending, gap, False
            pending, gap = line, []
        if pending is not None:
            yield pending, gap, True


def read_messages(input: AdapterInput, first: int,
                  make: Callable[[Line, list[Line], bool], ChatMessage],
                  note: Callable[[Line], None] | None = None
                  ) -> tuple[Any, list[Issue]]:
    """The messages of a chat file from line index ``first`` on (none when it is -1), and a
    warning naming each damaged line among them.

    An input held in memory gives a list, read now, while its messages and their swipes number
    at most ``HELD_ITEMS``; a streamed file, or one with more, gives a :class:`LazyMessages`
    that reads the file again each time it is iterated.  Every line is checked now either way,
    so what is damaged is said, and a message with more swipes than ``MAX_ALTERNATIVES`` is
    refused, when the file is read, not later; ``note`` sees each message line then too.
    """
    from bunzai.sdk.chats import HELD_ITEMS, LazyMessages

    if first < 0:
        return [], []
    issues: list[Issue] = []
    held: list[ChatMessage] | None = None if input.streamed else []
    items = count = 0
    pending: Line | None = None
    gap: list[Line] = []

    def again() -> Iterator[ChatMessage]:
        for line, gap, last in Messages(input, first):
            yield make(line, gap, last)

    for line in iter_lines(input, first):
        if line.value is ABSENT:
            if line.problem is not None:
                issues.append(damage(line))
            gap.append(line)
            continue
        count += 1
        _check_swipes(line)
        if note is not None:
            note(line)
        if held is not None and pending is not None:
            held.append(make(pending, gap, False))
            items += 1 + len(held[-1].alternatives)
            if items > HELD_ITEMS:
                held = None  # too many to hold: read again at each use, one at a time
        pending, gap = line, []
    if held is not None and pending is not None:
        held.append(make(pending, gap, True))
    return (held if held is not None else LazyMessages(again, count)), issues


def _check_swipes(line: Line) -> None:
    """Refuse a message line with more swipes than ``MAX_ALTERNATIVES`` (before they are made)."""
    from bunzai.sdk.chats import check_alternatives

    swipes = line.value.get("swipes")
    if isinstance(swipes, list):
        check_alternatives(len(swipes), f"line {line.number}")


def gap_layout(gap: Iterable[Line], skipped: list[Any] | None = None) -> list[Any]:
    """Blank and damaged lines as layout, the damaged lines' texts going to ``skipped``."""
    return [keep_line(g, skipped) for g in gap]


@dataclass(slots=True)
class Head:
    """The start of a chat file: the header line (if any) and where the messages begin."""

    header: Line | None
    first_message: int
    """Index of the first message line, -1 when there is none."""
    eol: bytes
    """The file's usual line ending (the header's, else the first message's)."""
    skipped: list[Any]
    """The texts of the damaged lines before the first message: the chat's app data."""
    issues: list[Issue]
    """A warning for each of them."""


def scan_head(input: AdapterInput, is_header: Callable[[Any], bool],
              layout: dict[str, Any]) -> Head:
    """Find the header and the first message, recording in ``layout`` the blank or broken
    lines around the header, the usual line ending and the header's own."""
    lead: list[Line] = []
    after: list[Line] = []
    header: Line | None = None
    first, first_eol = -1, b""
    for n, line in enumerate(iter_lines(input)):
        if line.value is ABSENT:
            (after if header is not None else lead).append(line)
        elif header is None and is_header(line.value):
            header = line
        else:
            first, first_eol = n, line.eol
            break
    eol = (header.eol if header is not None else b"") or first_eol or b"\n"
    skipped: list[Any] = []
    if lead:
        layout["lead"] = gap_layout(lead, skipped)
    if after:
        layout["after_header"] = gap_layout(after, skipped)
    if header is not None:
        line_layout(header, layout)
        if header.eol != (eol if first >= 0 else b""):
            layout["header_eol"] = header.eol.decode("ascii")
    if eol != b"\n":
        layout["eol"] = eol.decode("ascii")
    return Head(header, first, eol, skipped,
                [damage(g) for g in (*lead, *after) if g.problem is not None])


def read_body(input: AdapterInput, head: Head, fmt: str, zone: str, *, layout: dict[str, Any],
              data: dict[str, Any], fields: dict[str, Any], participants: list[Any],
              warnings: list[Issue], make: Callable[[Line, list[Line], bool], ChatMessage],
              wall_text: Callable[[dict[str, Any]], Any] | None = None) -> ReadResult:
    """The chat of a file whose header (if any) is read into ``fields``, ``layout``, ``data``
    and ``participants``: its messages by ``make``, and one warning, at the first time written
    without a zone (the header's ``create_date``, else a message's as ``wall_text`` finds it,
    by default its ``send_date``), that every such time of the chat was read in ``zone``.
    SillyTavern and TavernAI both write their times that way, so one rule reads both."""
    from bunzai.sdk import Chat, Issue, ReadResult
    from bunzai.sdk.chats import wall_note, zone_note

    if head.skipped:
        data[SKIPPED] = head.skipped
    wall: list[tuple[str, Any]] = []  # where the first time without a zone is, and its text
    header = head.header
    if header is not None and (text := wall_note(header.value, ("create_date",))) is not None:
        wall.append((f"line {header.number}", text))
    find = wall_text or (lambda obj: wall_note(obj, ("send_date",)))

    def note(line: Line) -> None:
        if not wall and (text := find(line.value)) is not None:
            wall.append((f"line {line.number}", text))

    chat = Chat(participants=participants, passthrough={fmt: layout},
                app_data={fmt: data} if data else {}, **fields)
    chat.messages, damaged = read_messages(input, head.first_message, make, note)
    if wall:  # said once: every such time of the chat was read in this zone
        chat.time_zone = zone
        warnings.append(Issue(wall[0][0], zone_note(zone, wall[0][1])))
    return ReadResult([chat], [*warnings, *head.issues, *damaged])


def produce(chat: Any, fmt: str, header: dict[str, Any] | None,
            line_of: Callable[[Any], dict[str, Any]]) -> Iterator[bytes]:
    """A chat file line by line: the kept lead, the header, then each message with its own
    ending and the blank or damaged lines that followed it (one message of look-ahead).
    Damaged lines no layout places follow the header (the chat's) or their message."""
    layout = layout_of(chat, fmt)
    own = data_of(chat, fmt).get(SKIPPED)
    eol = str(layout.get("eol", "\n")).encode("ascii")
    lead, _ = placed(layout.get("lead"), own)
    after, rest = placed([*(layout.get("lead") or ()), *(layout.get("after_header") or ())],
                         own)
    after = after[len(lead):]
    yield from lead
    messages = iter(chat.iter_messages())
    current = next(messages, None)
    if header is not None:
        end = layout.get("header_eol")
        yield emit(header, layout) + (str(end).encode("ascii") if end is not None else (
            eol if current is not None or after or rest else b""))
    yield from after
    yield from unplaced(rest, eol, current is not None)
    while current is not None:
        following = next(messages, None)
        record = layout_of(current, fmt)
        gap, rest = placed(record.get("gap"), data_of(current, fmt).get(SKIPPED))
        end = record.get("eol")
        yield emit(line_of(current), record) + (str(end).encode("ascii") if end is not None
                                                else eol if following is not None or rest
                                                else b"")
        yield from gap
        yield from unplaced(rest, eol, following is not None)
        current = following


def nested(data: Mapping[str, Any], prefix: str) -> dict[str, Any]:
    """The items of a flat app-data dict under ``prefix`` (``extra.`` -> ``{"api": …}``)."""
    n = len(prefix)
    return {k[n:]: v for k, v in data.items() if k.startswith(prefix)}


@dataclass(slots=True)
class Record:
    """One message line being read: its canonical fields, layout, kept raw values and data."""

    fields: dict[str, Any]
    layout: dict[str, Any]
    raw: dict[str, Any]
    data: dict[str, Any]


def read_common(obj: dict[str, Any], expected: Iterable[str], zone: str | None = None
                ) -> Record:
    """The keys SillyTavern and TavernAI messages share: ``name``, ``is_user``,
    ``send_date``, ``mes`` (each kept raw when it is not of its usual type); a wall-clock
    ``send_date`` is read in ``zone``."""
    from bunzai.sdk.chats import parse_time

    rec = Record({}, {"order": list(obj)}, {}, {})
    absent = [k for k in expected if k not in obj]
    if absent:
        rec.layout["absent"] = absent
    name = obj.get("name")
    if isinstance(name, str):
        rec.fields["speaker"] = name
    elif "name" in obj:
        rec.raw["name"] = name
    if not isinstance(obj.get("is_user"), bool) and "is_user" in obj:
        rec.raw["is_user"] = obj["is_user"]
    rec.fields["role"] = "user" if obj.get("is_user") is True else "character"
    if "send_date" in obj:
        rec.layout["send_date"] = obj["send_date"]
        rec.fields["time"] = parse_time(obj["send_date"], zone)
    mes = obj.get("mes")
    if isinstance(mes, str):
        rec.fields["text"] = mes
    elif "mes" in obj:
        rec.raw["mes"] = mes
    return rec


def finish(rec: Record, line: Line, gap: list[Line], last: bool, default_eol: bytes
           ) -> dict[str, Any]:
    """The message's layout record: kept raw values, its line ending when unusual, the blank
    or broken lines after it, and its exact text when needed."""
    layout = rec.layout
    if rec.raw:
        layout["raw"] = rec.raw
    expected = b"" if last else default_eol
    if line.eol != expected:
        layout["eol"] = line.eol.decode("ascii")
    if gap:
        skipped: list[Any] = []
        layout["gap"] = gap_layout(gap, skipped)
        if skipped:
            rec.data[SKIPPED] = skipped
    line_layout(line, layout)
    return layout


class WallTimes:
    """The times a writer puts in, read back in the chat's zone (``Chat.time_zone``) so a
    wall-clock text the source had is written back as it was; and whether any written time is
    a wall-clock text, without which the chat's zone is gone (a writer reports it)."""

    def __init__(self, zone: str | None, walls: tuple[str, ...] = ()) -> None:
        self.zone = zone
        self.walls = walls
        """The format's own wall-clock forms, for a time with no text of its own to go back
        to in a chat whose times are wall-clock ones (none: the format writes instants)."""
        self.kept = False

    def form(self, value: Any, instant: str = "epoch_ms") -> str:
        """The form a new time is written in: the first of the format's wall-clock forms that
        holds it exactly, in a chat of wall-clock times; else ``instant``."""
        from bunzai.sdk.chats import exact_in

        if self.zone and value is not None:
            for wall in self.walls:
                if exact_in(value, wall, self.zone):
                    return wall
        return instant

    def put(self, out: dict[str, Any], key: str, value: Any, record: Mapping[str, Any],
            form: str, loss: LossReport | None, path: str, why: str) -> None:
        """:func:`bunzai.sdk.chats.put_time` in the chat's zone, noting a wall-clock text."""
        from bunzai.sdk.chats import is_wall, put_time

        put_time(out, key, value, record, form, loss, path, why, self.zone)
        if not self.kept and key in out and is_wall(out[key]):
            self.kept = True

    def report(self, chat: Any, loss: LossReport, why: str) -> None:
        """The chat's zone, when no time is left a wall-clock text to be read in it."""
        if chat.time_zone and not self.kept:
            loss.approximated("time_zone", why)


def put_swipes(m: Any, out: dict[str, Any], kept: Mapping[str, Any]) -> None:
    """A message's alternatives as ``swipes`` and the one shown as ``swipe_id`` (else the
    source's ``swipe_id``, kept in ``kept``): SillyTavern took the key over from TavernAI."""
    out["swipes"] = [a.text for a in m.alternatives]
    if m.chosen is not None:
        out["swipe_id"] = m.chosen
    elif "swipe_id" in kept:
        out["swipe_id"] = kept["swipe_id"]


def write_common(m: Any, fmt: str, names: Mapping[str, str], fallback: Mapping[str, str],
                 loss: LossReport | None, path: str, reasons: Mapping[str, str],
                 walls: WallTimes | None = None
                 ) -> tuple[dict[str, Any], dict[str, Any], Mapping[str, Any], set[str]]:
    """``name``, ``is_user``, ``send_date`` and ``mes`` of a message line, and the message's
    layout, raw values and absent keys for the rest of the line.

    With ``loss``, what the line changes is reported under ``path`` (``messages[3].``): a
    speaker the format needs and the message lacks, a time its date form rounds.
    """
    layout = layout_of(m, fmt)
    raw = record(layout, "raw")
    absent = set(layout.get("absent") or ())
    out: dict[str, Any] = {}
    if m.speaker is not None:
        out["name"] = m.speaker
    elif "name" in raw:
        out["name"] = raw["name"]
    elif "name" not in absent:
        side = "user" if m.role == "user" else "character"
        own = fallback.get(m.role) if m.role in ("narrator", "system") else None
        out["name"] = own or names.get(side) or fallback[side]
        if loss is not None:
            loss.approximated(f"{path}speaker", reasons["speaker"])
    if "is_user" in raw and (m.role == "user") == (raw["is_user"] is True):
        out["is_user"] = raw["is_user"]
    elif not ("is_user" in absent and m.role != "user"):
        out["is_user"] = m.role == "user"
    walls = walls or WallTimes(None)
    walls.put(out, "send_date", m.time, layout, walls.form(m.time), loss, f"{path}time",
              reasons["time"])
    out["mes"] = raw["mes"] if "mes" in raw and not m.text else m.text
    return out, layout, raw, absent


class Lines:
    """A file's bytes produced line by line each time it is iterated (an ``OutputFile`` part:
    a large chat is written without ever being joined)."""

    def __init__(self, make: Callable[[], Iterator[bytes]]) -> None:
        self.make = make

    def __iter__(self) -> Iterator[bytes]:
        return self.make()

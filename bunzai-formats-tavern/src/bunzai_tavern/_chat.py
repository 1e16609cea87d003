"""What the JSON Lines chat formats share (SillyTavern, TavernAI): lines in, lines out.

A chat file is one JSON object per line: an optional header, then one message per line.  To
rewrite a file byte for byte, each message remembers its own line ending when it is not the
file's usual one, the blank or broken lines that follow it, and its exact text when the JSON
serializer would not reproduce it.  Messages are produced one at a time from
``AdapterInput.lines()``, so a reader never holds more than one message of a large file.

The per-object records follow the passthrough convention: ``extra`` holds the app's own data
(reported when another format cannot carry it), everything else is layout.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

import orjson

from bunzai.errors import BunzaiError
from bunzai.jsonio import loads

if TYPE_CHECKING:
    from bunzai.input import AdapterInput
    from bunzai.model import ChatMessage

ABSENT: Any = object()


@dataclass(slots=True)
class Line:
    """One physical line: its text without the terminator, the terminator, the parsed value."""

    body: bytes
    eol: bytes
    value: Any = ABSENT
    """The parsed JSON object, or ABSENT for a blank, broken or non-object line."""


def split_eol(line: bytes) -> tuple[bytes, bytes]:
    if line.endswith(b"\r\n"):
        return line[:-2], b"\r\n"
    if line.endswith(b"\n"):
        return line[:-1], b"\n"
    return line, b""


def parse_line(raw: bytes) -> Line:
    body, eol = split_eol(raw)
    line = Line(body, eol)
    text = body.strip()
    if text.startswith(b"{"):
        try:
            value = loads(text)
        except BunzaiError:
            return line
        if isinstance(value, dict):
            line.value = value
    return line


def iter_lines(input: AdapterInput, skip: int = 0) -> Iterator[Line]:
    for n, raw in enumerate(input.lines()):
        if n >= skip:
            yield parse_line(raw)


def keep_line(line: Line) -> Any:
    """A blank or broken line as layout: its text (base64 when it is not UTF-8) and ending."""
    try:
        text: Any = line.body.decode("utf-8")
    except UnicodeDecodeError:
        text = {"base64": base64.b64encode(line.body).decode("ascii")}
    return [text, line.eol.decode("ascii")]


def restore_line(kept: Any) -> bytes:
    if not isinstance(kept, list) or len(kept) != 2:
        return b""
    text, eol = kept
    body = (base64.b64decode(text["base64"]) if isinstance(text, Mapping)
            else str(text).encode("utf-8"))
    return body + str(eol).encode("ascii")


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
        from bunzai.compare import json_equal
        try:
            if json_equal(loads(text), obj):
                return text.encode("utf-8", "surrogatepass")
        except BunzaiError:
            pass
    return dumps_js(obj)


def ordered(out: dict[str, Any], order: Any) -> dict[str, Any]:
    """``out`` with the recorded key order first, then keys the source did not have."""
    if not isinstance(order, list):
        return out
    result = {k: out[k] for k in order if isinstance(k, str) and k in out}
    result.update((k, v) for k, v in out.items() if k not in result)
    return result


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


def lazy_or_list(input: AdapterInput, make: Callable[[], Iterator[ChatMessage]]) -> Any:
    """Messages for a chat: a list for an input held in memory, lazy for a streamed file."""
    from bunzai.model import LazyMessages

    if input.streamed:
        return LazyMessages(make)
    return list(make())


def gap_layout(gap: Iterable[Line]) -> list[Any]:
    return [keep_line(g) for g in gap]


def join_lines(lines: Iterable[bytes]) -> Iterator[bytes]:
    """Pass produced line bytes through (a named step so writers read as a pipeline)."""
    yield from lines

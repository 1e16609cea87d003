"""File-backed inputs and JSON Lines: a large file is sniffed from its head, read by lines."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bunzai.errors import MalformedInput
from bunzai.io.input import AdapterInput
from bunzai.io.limits import get_limits

SMALL = get_limits().replace(stream_above=64)

CHAT = (b'{"user_name":"Ada","character_name":"Wren","chat_metadata":{}}\n'
        b'{"name":"Wren","is_user":false,"mes":"Hello"}\r\n'
        b'\n'
        b'{"name":"Ada","is_user":true,"mes":"Hi"}')


def test_a_large_file_is_not_read_until_asked(tmp_path: Path) -> None:
    p = tmp_path / "chat.jsonl"
    p.write_bytes(CHAT)
    inp = AdapterInput.from_path(p, limits=SMALL)
    assert inp.streamed and inp.size == len(CHAT)
    assert inp.container == "jsonl"
    assert dict(inp.jsonl_head[0])["user_name"] == "Ada"
    assert inp.streamed, "sniffing and the JSONL head must not read the whole file"
    assert b"".join(inp.lines()) == CHAT
    assert list(inp.lines())[1].endswith(b"\r\n")
    assert inp.streamed
    assert inp.data == CHAT and not inp.streamed


def test_small_files_are_read_at_once_as_before(tmp_path: Path) -> None:
    p = tmp_path / "chat.jsonl"
    p.write_bytes(CHAT)
    inp = AdapterInput.from_path(p)
    assert not inp.streamed and inp.container == "jsonl"
    assert b"".join(inp.lines()) == CHAT


@pytest.mark.parametrize(("data", "container"), [
    (b'{"a": 1}\n', "json"),                 # one line, newline: still a JSON document
    (b'{"a": 1}\n\n  \n', "json"),
    (b'{\n  "a": 1\n}\n', "json"),             # pretty-printed
    (b'{"a": 1}\n{"b": 2}', "jsonl"),
    (b'\xef\xbb\xbf{"a": 1}\r\n{"b": 2}\r\n', "jsonl"),
    (b'["x: y"]\n["z"]', "json"),           # not objects: left to JSON (and its error)
    (b'{"a": \n{"b": 2}', "json"),
])
def test_json_lines_is_told_from_json(data: bytes, container: str) -> None:
    assert AdapterInput(data, "x.jsonl").container == container


def test_an_unparseable_line_shows_as_none_in_the_head() -> None:
    inp = AdapterInput(b'{"a": 1}\n{broken\n{"c": 3}\n{"d": 4}', "x.jsonl")
    head = inp.jsonl_head
    assert len(head) == 3 and head[1] is None and dict(head[2]) == {"c": 3}
    assert AdapterInput(b'{"a": 1}', "x.json").jsonl_head == ()


def test_a_file_changed_under_a_streamed_input_is_refused(tmp_path: Path) -> None:
    p = tmp_path / "chat.jsonl"
    p.write_bytes(CHAT)
    inp = AdapterInput.from_path(p, limits=SMALL)
    p.write_bytes(CHAT + b"\n{}")
    os.utime(p, ns=(1, 1))
    with pytest.raises(MalformedInput, match="changed"):
        list(inp.lines())
    p.unlink()
    with pytest.raises(MalformedInput, match="disappeared"):
        _ = inp.data

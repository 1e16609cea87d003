"""A large chat is converted without ever being held whole: peak memory follows the largest
message, not the file.

Memory, unlike time, is deterministic enough to assert on: tracemalloc counts every Python
allocation.  The chat is generated (our own text), written to disk, and converted file to file
through the same calls the CLI makes; the margins are generous.
"""

from __future__ import annotations

import json
import tracemalloc
from collections.abc import Iterator
from pathlib import Path

import pytest

from bunzai.host.registry import Registry
from bunzai.io.input import AdapterInput
from bunzai.io.limits import get_limits, set_limits
from bunzai.io.outputs import write_atomic

LINE = "The lamp turns; the storm answers. " * 30  # about a kilobyte per message


def _chat_lines(count: int, big: int) -> Iterator[bytes]:
    yield json.dumps({"user_name": "Ada", "character_name": "Wren",
                      "create_date": "2024-11-03@21h04m05s",
                      "chat_metadata": {"note_prompt": "", "integrity": "x"}}).encode()
    for i in range(count):
        text = LINE * (50 if i == count // 2 else 1)  # one message far larger than the rest
        yield json.dumps({"name": "Wren" if i % 2 else "Ada", "is_user": not i % 2,
                          "is_system": False, "send_date": f"November 3, 2024 9:{i % 60:02d}pm",
                          "mes": f"{i}: {text}", "extra": {"token_count": i},
                          "swipes": [f"{i}: {text}", "another take"] if i % 7 == 0 else None,
                          "swipe_id": 0 if i % 7 == 0 else None},
                         ensure_ascii=False).encode()
    del big


def _write_chat(path: Path, count: int) -> tuple[int, int]:
    lines = list(_chat_lines(count, 0))
    path.write_bytes(b"\n".join(lines))
    return path.stat().st_size, max(len(x) for x in lines)


def _convert_peak(registry: Registry, src: Path, dst: Path, target: str,
                  verify: bool = False) -> tuple[int, int]:
    """Peak traced memory of detect + read + write (+ reading the output back and comparing,
    with ``verify``) + atomic output, and the message count."""
    tracemalloc.start()
    try:
        inp = AdapterInput.from_path(src)
        _, result, _ = registry.read(inp)
        written = registry.write(result.entities, target, verify=verify)
        write_atomic(dst, written.files[0].parts, force=True)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert inp.streamed, "the input was read whole"
    if verify:
        assert not written.warnings, written.warnings  # the loss rule alone was exact
    return peak, len(result.entities[0].messages)


@pytest.fixture
def small_stream_threshold() -> Iterator[None]:
    before = get_limits()
    set_limits(before.replace(stream_above=256 * 1024))
    try:
        yield
    finally:
        set_limits(before)


@pytest.mark.parametrize("verify", [False, True], ids=["write", "verified"])
@pytest.mark.parametrize("target", ["sillytavern-chat", "tavernai-chat"])
def test_peak_memory_follows_the_largest_message_not_the_file(
        registry: Registry, tmp_path: Path, small_stream_threshold: None, target: str,
        verify: bool) -> None:
    """Also when the output is read back and compared (``--verify``): the output is spooled to
    a file and read back as any large file is, both chats walked one message at a time."""
    if target not in registry.adapters:
        pytest.skip(f"{target} not installed")
    small, large = tmp_path / "small.jsonl", tmp_path / "large.jsonl"
    size_small, biggest = _write_chat(small, 1500)
    size_large, _ = _write_chat(large, 6000)
    _convert_peak(registry, small, tmp_path / "warm.out", target, verify)  # imports, caches
    peak_small, n_small = _convert_peak(registry, small, tmp_path / "a.out", target, verify)
    peak_large, n_large = _convert_peak(registry, large, tmp_path / "b.out", target, verify)
    assert (n_small, n_large) == (1500, 6000)
    # four times the messages, barely more memory: nothing grows with the file
    assert peak_large < peak_small * 1.5 + 512 * 1024, (peak_small, peak_large)
    assert peak_large < size_large / 4, (peak_large, size_large)
    assert peak_large < 40 * biggest + 1024 * 1024, (peak_large, biggest)
    if target == "sillytavern-chat":
        assert (tmp_path / "b.out").read_bytes() == large.read_bytes()
    assert size_small < size_large


def _tiny_swipes(fmt: str, messages: int, swipes: int) -> bytes:
    """A chat of many messages each with many one-letter swipes: a few bytes each in the file,
    an object each once read."""
    if fmt == "sillytavern-chat":
        head = json.dumps({"user_name": "Ada", "character_name": "Wren", "chat_metadata": {}})
        line = json.dumps({"name": "Wren", "is_user": False, "mes": "a", "swipe_id": 0,
                           "swipes": ["a"] * swipes}, separators=(",", ":"))
        return "\n".join([head, *[line] * messages]).encode()
    msg = {"characterId": "imported", "msg": "a", "retries": ["b"] * (swipes - 1)}
    return json.dumps({"name": "Exported", "greeting": "", "sampleChat": "", "scenario": "",
                       "messages": [msg] * messages}, separators=(",", ":")).encode()


@pytest.mark.parametrize(("fmt", "name"), [("sillytavern-chat", "chat.jsonl"),
                                           ("agnai-chat", "chat.json")])
def test_a_small_chat_of_tiny_swipes_stays_within_a_small_multiple_of_its_size(
        registry: Registry, tmp_path: Path, fmt: str, name: str) -> None:
    """A hundred thousand one-letter swipes in half a megabyte: held as objects they would take
    about a hundred megabytes; read and summarised (what ``bunzai inspect`` does), the chat
    stays within a small multiple of its size."""
    from bunzai.engine.chats import summarize

    src = tmp_path / name
    src.write_bytes(_tiny_swipes(fmt, 200, 500))
    size = src.stat().st_size
    tracemalloc.start()
    try:
        inp = AdapterInput.from_path(src)
        _, result, _ = registry.read(inp, format=fmt)
        summary = summarize(result.entities[0])  # type: ignore[arg-type]
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert not inp.streamed  # a small file: read whole, but its messages are not all held
    assert summary["messages"] == 200 and summary["alternatives"] == "100000 on 200 message(s)"
    assert peak < 24 * 1024 * 1024 + 8 * size, f"peak {peak / 2**20:.1f} MiB for {size:,} bytes"

"""Tolerant but strict base64 decoding."""

from __future__ import annotations

import base64
import os

import pytest

from bunzai.errors import LimitExceeded, MalformedInput
from bunzai.io.containers.base64util import decode_base64, looks_like_base64
from bunzai.io.limits import Limits

RAW = bytes(range(256)) + os.urandom(1000)


@pytest.mark.parametrize("encoded", [
    base64.b64encode(RAW),
    base64.urlsafe_b64encode(RAW),
    base64.b64encode(RAW).rstrip(b"="),
    base64.urlsafe_b64encode(RAW).rstrip(b"="),
    base64.encodebytes(RAW),  # wrapped at 76 columns with newlines
    b"  \r\n" + base64.b64encode(RAW) + b"\r\n\t ",
    base64.b64encode(RAW).decode(),
    memoryview(base64.b64encode(RAW)),
])
def test_accepts(encoded: bytes | str | memoryview) -> None:
    assert decode_base64(encoded) == RAW


@pytest.mark.parametrize("raw", [b"", b"a", b"ab", b"abc", b"abcd", b"\xfb\xff\xfe"])
def test_small_payloads_and_padding(raw: bytes) -> None:
    std = base64.b64encode(raw)
    assert decode_base64(std) == raw
    assert decode_base64(std.rstrip(b"=")) == raw
    assert decode_base64(base64.urlsafe_b64encode(raw).rstrip(b"=")) == raw


@pytest.mark.parametrize("bad, reason", [
    (b"abc$def", "unexpected character '\\$'"),
    (b"QUJD\x00", "unexpected character"),
    ("QUJDé", "non-ASCII"),
    (b"QUJD=QUJD", "padding in the middle"),
    (b"QQ===", "too much padding"),
    (b"QUJDQ", "cannot be a complete encoding"),
    (b'{"name": "x"}', "unexpected character"),
])
def test_rejects_garbage(bad: bytes | str, reason: str) -> None:
    with pytest.raises(MalformedInput, match="invalid base64") as err:
        decode_base64(bad)
    assert err.match(reason)


def test_limit_checked_before_decoding() -> None:
    with pytest.raises(LimitExceeded, match="BUNZAI_MAX_BASE64"):
        decode_base64("$" * 20, limits=Limits(max_base64=10))
    assert decode_base64("QUJD", limits=Limits(max_base64=4)) == b"ABC"


@pytest.mark.parametrize("value, expected", [
    (base64.b64encode(b'{"name": "x"}'), True),
    (base64.b64encode(b"ab"), True),
    (base64.b64encode(b"abcd").rstrip(b"="), True),
    (base64.b64encode(b"ab").rstrip(b"="), False),  # too short to tell
    (base64.urlsafe_b64encode(b"\xfb\xff\xfe\xfd"), True),
    (base64.encodebytes(RAW), True),
    ("QUJD", True),
    (b'{"name": "x"}', False),
    (b"[1,2]", False),
    (b"", False),
    (b"abc", False),
    (b"QUJDQ", False),
    (b"QQ===", False),
    (b"not base64!", False),
    (b"====", False),
])
def test_looks_like_base64(value: bytes | str, expected: bool) -> None:
    assert looks_like_base64(value) is expected


_QUARTET_SOUP = b"QUJDRA+/=-_ \n"


@pytest.mark.parametrize("accelerated", [True, False])
def test_strict_base64_answers_only_where_the_careful_path_agrees(
        accelerated: bool, monkeypatch: pytest.MonkeyPatch) -> None:
    """Whatever strict_base64 decodes, looks_like_base64 accepts and decode_base64 decodes to
    the same bytes (with pybase64 and with the standard library), so a reader may try it
    first without changing what it finds."""
    import random

    from bunzai.io.containers import base64util

    if not accelerated:
        monkeypatch.setattr(base64util, "_pybase64", None)
    rng = random.Random(18)
    decoded = 0
    for _ in range(20000):
        text = bytes(rng.choice(_QUARTET_SOUP) for _ in range(rng.randint(0, 14))).strip()
        got = base64util.strict_base64(text)
        if got is not None:
            decoded += 1
            assert looks_like_base64(text) and decode_base64(text) == got, text
    assert decoded > 100  # the soup does hold valid base64


def test_strict_base64_leaves_the_rest_to_the_careful_path() -> None:
    from bunzai.io.containers.base64util import strict_base64

    encoded = base64.b64encode(RAW)
    assert strict_base64(encoded) == RAW
    for other in (base64.encodebytes(RAW), base64.b64encode(RAW).rstrip(b"="),
                  base64.urlsafe_b64encode(RAW), b"QUI", b"QUJD====", b"{}"):
        assert strict_base64(other) is None, other
    assert strict_base64(encoded, limits=Limits(max_base64=len(encoded) - 1)) is None

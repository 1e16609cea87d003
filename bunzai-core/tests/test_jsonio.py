"""Strict, lossless JSON: what real files contain, and what must be refused clearly."""

from __future__ import annotations

import pytest

from bunzai.errors import MalformedInput
from bunzai.jsonio import dumps, loads


def test_integers_beyond_64_bits_are_exact() -> None:
    assert loads(b'{"a": 123456789012345678901234567890}') == {"a": 123456789012345678901234567890}


def test_utf8_bom_and_utf16_are_accepted() -> None:
    assert loads(b'\xef\xbb\xbf{"a": 1}') == {"a": 1}
    assert loads('{"a": "ü"}'.encode("utf-16")) == {"a": "ü"}


@pytest.mark.parametrize(("raw", "why"), [
    (b'{"a": NaN}', "invalid JSON"),
    (b'{"a": Infinity}', "invalid JSON"),
    (b'{"a": 1e400}', "infinity|range"),
    (b'{"a": "\\ud800"}', "surrogate"),
    (b"[" * 100_000, "deep|depth"),
    (b'{"a": ', "invalid JSON"),
    (b'\xff\xfe{\x00"\x00', "UTF-16|invalid"),
    (b'{"a": "\xff"}', "invalid JSON"),
])
def test_refused_with_a_reason(raw: bytes, why: str) -> None:
    with pytest.raises(MalformedInput, match=why):
        loads(raw)


def test_dumps_keeps_unicode_and_indents() -> None:
    assert dumps({"a": "ü"}) == '{"a":"ü"}'.encode()
    assert dumps({"a": 1}, indent=4) == b'{\n    "a": 1\n}'


def test_the_digit_run_scan_finds_exactly_the_runs_of_nineteen() -> None:
    """Texts that route big integers to the standard library are found by their digit runs;
    the sampled scan of large texts answers as a plain search for 19 digits does."""
    import random
    import re

    from bunzai.jsonio import _has_digit_run

    rng = random.Random(19)
    for _ in range(2000):
        n = rng.choice((100, 2047, 2048, 5000, 20000))
        dense = rng.random()
        text = bytearray(rng.choice(b"0123456789") if rng.random() < dense
                         else rng.choice(b'ab :,"') for _ in range(n))
        if rng.random() < 0.3:  # one run of 18 to 20 digits somewhere
            at = rng.randrange(n)
            text[at:at] = b"7" * rng.choice((18, 19, 20))
        data = bytes(text)
        assert _has_digit_run(data) == bool(re.search(rb"[0-9]{19}", data))

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

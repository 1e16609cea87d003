"""Strict, lossless JSON: what real files contain, and what must be refused clearly."""

from __future__ import annotations

import json

import pytest

from bunzai.errors import MalformedInput
from bunzai.io.jsonio import dumps, loads


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

    from bunzai.io.jsonio import _has_digit_run

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


# -- layout: sniffed once, laid out again ------------------------------------------------------

DOC = {"name": "Ash", "tags": ["quiet", "kind"], "n": 1, "note": "caf\u00e9"}


@pytest.mark.parametrize(("text", "default", "layout"), [
    (json.dumps(DOC, indent=4, ensure_ascii=False) + "\n", 4, {"newline": True}),
    (json.dumps(DOC, indent=2, ensure_ascii=False), 4, {"indent": 2}),
    (json.dumps(DOC, indent="\t", ensure_ascii=False), 2, {"indent": "\t"}),
    (json.dumps(DOC, separators=(",", ":"), ensure_ascii=False), 4, {"indent": 0}),
    (json.dumps(DOC, separators=(",", ":"), ensure_ascii=False), None, {}),
    (json.dumps(DOC), None, {"sep": [", ", ": "], "ascii": True}),  # Python's own dumps
    (json.dumps(DOC, indent=2) + "\n", 2, {"ascii": True, "newline": True}),
])
def test_a_sniffed_layout_lays_the_document_out_again(text: str, default: int | None,
                                                      layout: dict[str, object]) -> None:
    from bunzai.io.jsonio import dumps_layout, sniff_layout

    data = text.encode()
    assert sniff_layout(data, default) == layout
    assert dumps_layout(DOC, layout, default) == data


def test_an_explicit_indent_wins_over_the_recorded_one() -> None:
    from bunzai.io.jsonio import dumps_layout

    assert dumps_layout(DOC, {"indent": 2, "newline": True}, 4, {"indent": 0}) == (
        json.dumps(DOC, separators=(",", ":"), ensure_ascii=False).encode() + b"\n")
    assert dumps_layout(DOC, {"indent": None}, 4) == dumps_layout(DOC, {"indent": 0}, 4)
    assert dumps_layout(DOC, None, 4) == json.dumps(DOC, indent=4, ensure_ascii=False).encode()


def test_what_is_not_json_has_no_layout() -> None:
    from bunzai.io.jsonio import sniff_layout

    assert sniff_layout(b"\x89PNG\r\n") == {}
    assert sniff_layout(b"\xef\xbb\xbf{\n  \"a\": 1\n}") == {"indent": 2}


def test_the_sampled_scan_finds_a_run_wherever_it_starts() -> None:
    """A run of 19 digits is found at every offset against the sampling stride; 18 are not."""
    from bunzai.io.jsonio import _has_digit_run

    prose = b"a" * 4096
    for length in (18, 19):
        for at in [*range(40), *range(4096 - 40, 4096 - length + 1)]:
            data = prose[:at] + b"7" * length + prose[at + length:]
            assert _has_digit_run(data) == (length == 19), (length, at)


def test_long_digit_runs_in_strings_and_numbers_read_as_the_standard_library_reads_them() -> None:
    """A run of 19+ digits inside a string (a Discord id in a link) does not send the text to
    the standard library; a number with one does, so big integers stay exact; either way the
    value is what the standard library reads, types included."""
    import json
    import random

    from bunzai.io.jsonio import loads

    rng = random.Random(64)

    def digits(n: int) -> str:
        return str(rng.randint(1, 9)) + "".join(rng.choice("0123456789") for _ in range(n - 1))

    def number() -> str:
        text = rng.choice(("", "-")) + digits(rng.randint(1, 26))
        if rng.random() < 0.3:
            text += "." + "".join(rng.choice("0123456789") for _ in range(rng.randint(1, 25)))
        if rng.random() < 0.2:
            text += rng.choice("eE") + rng.choice(("", "+", "-")) + str(rng.randint(0, 200))
        return text

    def string() -> str:
        before = rng.choice(("users/", "id ", ":", ",", "[", "-", ".", "e", "x", "", "\\n"))
        return json.dumps(before + digits(rng.randint(15, 24)) + rng.choice(("", "/", " ok")))

    for _ in range(3000):
        items = [number() if rng.random() < 0.4 else string() for _ in range(rng.randint(1, 6))]
        text = "{" + ",".join(f'"k{i}":{v}' for i, v in enumerate(items)) + "}"
        text += " " * rng.choice((0, 3000))  # large texts take the sampled scan
        want = json.loads(text)
        got = loads(text.encode())
        assert got == want and [type(v) for v in got.values()] == [
            type(v) for v in want.values()], text

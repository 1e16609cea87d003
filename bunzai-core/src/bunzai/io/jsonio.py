"""JSON parsing with bunzai's limits and strictness, in one place.

orjson does the fast common case; the standard library takes over for what orjson refuses but
real files contain (integers beyond 64 bits).  NaN/Infinity are rejected (they are not JSON and
cannot be written back), nesting too deep for either parser is a clean error (orjson stops at
1024 levels, the standard library at the recursion limit), and a UTF-8 BOM is accepted.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from typing import Any

import orjson

from ..errors import MalformedInput
from .limits import Limits

_BOM = b"\xef\xbb\xbf"
# Integers beyond 64 bits need 19+ digits.  Mapping every ASCII digit to "1" and every other byte
# to "0", then searching for nineteen "1"s, is the regex ``\d{19,}`` on bytes at a tenth of the cost
# (two C passes over the text instead of a per-byte regex loop).
_DIGITS_TO_1 = bytes(0x31 if 0x30 <= b <= 0x39 else 0x30 for b in range(256))
_DIGIT_RUN = b"1" * 19
_STRIDE = 9
"""Any run of 19 digits holds two consecutive multiples of 9: every ninth byte, two digits in a
row, marks the only places where a run can be."""
_PAIR = re.compile(b"11")


def _has_digit_run(raw: bytes) -> bool:
    """Whether ``raw`` holds 19 ASCII digits in a row (exactly; see ``_STRIDE``).

    Large texts are mostly prose, so every ninth byte is mapped first and only the places
    where two sampled digits follow each other are looked at closely; when there are many
    such places (dates, timestamps), the rest of the text is mapped whole.
    """
    n = len(raw)
    if n < 2048:
        return _DIGIT_RUN in raw.translate(_DIGITS_TO_1)
    sampled = raw[::_STRIDE].translate(_DIGITS_TO_1)
    budget = 16 + n // 8192
    found = _PAIR.search(sampled)
    while found is not None:
        # samples i and i+1 are bytes 9i and 9i+9: a run through both starts at 9i-9 or later
        # and ends by 9i+18
        i = found.start()
        lo = max(0, _STRIDE * i - 9)
        if _DIGIT_RUN in raw[lo:_STRIDE * i + 19].translate(_DIGITS_TO_1):
            return True
        budget -= 1
        if budget < 0:
            return _DIGIT_RUN in raw[lo:].translate(_DIGITS_TO_1)
        found = _PAIR.search(sampled, i + 1)
    return False


_NUMBER_BEFORE = frozenset(b":,[{ \t\n\r-+.eE")
"""The bytes that can stand right before a number's digits outside a JSON string (its integer
part, fraction or exponent), and ``{``, before which digits are an error."""


def _number_run(raw: bytes) -> bool:
    """Whether a run of 19 digits in ``raw`` may be (part of) a number of the JSON text.

    Outside strings a run of digits follows one of ``_NUMBER_BEFORE`` or starts the text; a
    run after any other byte (``users/1329438723858763848``, a Discord id in a link) is inside
    a string, where orjson reads it as exactly as the standard library does.  A run inside a
    string after one of those bytes counts too: the answer may be yes for a string, never no
    for a number.
    """
    mapped = raw.translate(_DIGITS_TO_1)
    at = mapped.find(_DIGIT_RUN)
    while at >= 0:
        if at == 0 or raw[at - 1] in _NUMBER_BEFORE:
            return True
        end = mapped.find(b"0", at + 19)  # past this run: the next one starts after it
        if end < 0:
            return False
        at = mapped.find(_DIGIT_RUN, end)
    return False


_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")


def _reject_lone_surrogates(value: Any) -> None:
    """Refuse strings holding half a surrogate pair: they cannot be written back as UTF-8."""
    stack = [value]
    while stack:
        v = stack.pop()
        if isinstance(v, str):
            try:
                v.encode("utf-8")
            except UnicodeEncodeError:
                raise MalformedInput("invalid JSON: a string holds a lone surrogate "
                                     "(\\ud800-\\udfff without its pair)") from None
        elif isinstance(v, dict):
            stack.extend(v)
            stack.extend(v.values())
        elif isinstance(v, list):
            stack.extend(v)


def _reject_constant(name: str) -> Any:
    raise MalformedInput(f"invalid JSON: {name} is not allowed")


def _strict_float(text: str) -> float:
    value = float(text)
    if value in (float("inf"), float("-inf")):
        raise MalformedInput(f"invalid JSON: number {text[:40]} is out of range")
    return value


_UTF16_32_BOMS = (
    (b"\x00\x00\xfe\xff", "utf-32-be"), (b"\xff\xfe\x00\x00", "utf-32-le"),
    (b"\xfe\xff", "utf-16-be"), (b"\xff\xfe", "utf-16-le"),
)


def _transcode_bom(raw: bytes) -> bytes:
    """UTF-16/32 text with a BOM (Windows editors write it) as UTF-8; other bytes unchanged."""
    for bom, codec in _UTF16_32_BOMS:
        if raw.startswith(bom):
            try:
                return raw[len(bom):].decode(codec).encode("utf-8")
            except UnicodeError:
                raise MalformedInput(f"invalid JSON: not valid {codec.upper()} text") from None
    return raw


def loads(data: bytes | bytearray | memoryview | str, *, limits: Limits | None = None) -> Any:
    """Parse JSON text or UTF-8 bytes, raising :class:`MalformedInput` with the reason."""
    del limits  # reserved: size limits are enforced before the bytes reach here
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else bytes(data)
    if raw.startswith(_BOM):
        raw = raw[3:]
    elif raw[:1] in (b"\xff", b"\xfe", b"\x00"):
        raw = _transcode_bom(raw)
    message = "integer beyond 64 bits"
    run = _has_digit_run(raw)
    if not run or not _number_run(raw):
        try:
            return orjson.loads(raw)
        except orjson.JSONDecodeError as exc:
            if not run:
                message = str(exc)
    # orjson refuses or rounds integers beyond 64 bits, which real files contain; those go to
    # the standard library (exact integers), and so does a text with a long digit run that
    # orjson refuses (the standard library's answer, as for every text with such a run).
    # Everything else orjson refuses (NaN, lone surrogates, bad syntax) stays refused.
    if "64-bit" not in message and "nteger" not in message:
        if "recursion" in message:
            raise MalformedInput("invalid JSON: nested too deeply") from None
        raise MalformedInput(f"invalid JSON: {message}") from None
    try:
        value = json.loads(raw.decode("utf-8"), parse_constant=_reject_constant,
                           parse_float=_strict_float)
        if _SURROGATE_ESCAPE.search(raw):  # the standard library accepts what orjson refuses
            _reject_lone_surrogates(value)
        return value
    except MalformedInput:
        raise
    except RecursionError:
        raise MalformedInput("invalid JSON: nested too deeply") from None
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise MalformedInput(f"invalid JSON: {exc}") from None
    except ValueError as exc:  # int too large for sys.set_int_max_str_digits
        raise MalformedInput(f"invalid JSON: {exc}") from None


def dumps(obj: Any, *, indent: int | None = None, ensure_ascii: bool = False) -> bytes:
    """Serialize as UTF-8; ``indent`` 2 uses orjson, other indents the standard library.

    Writers choose the indent their app uses (SillyTavern exports 4 spaces), so output diffs
    cleanly against what the app itself would write.
    """
    if indent is None and not ensure_ascii:
        try:
            return orjson.dumps(obj)
        except TypeError:
            pass
    if indent == 2 and not ensure_ascii:
        try:
            return orjson.dumps(obj, option=orjson.OPT_INDENT_2)
        except TypeError:
            pass
    separators = (",", ":") if indent is None else (",", ": ")
    return json.dumps(
        obj, indent=indent, ensure_ascii=ensure_ascii, separators=separators, allow_nan=False
    ).encode("utf-8")


_ESCAPE = re.compile(rb"\\u")
"""A ``\\u`` escape: in an ASCII file, the mark of a writer that escapes all non-ASCII text."""


def sniff_layout(data: bytes, default_indent: int | None = None) -> dict[str, Any]:
    """How a JSON document was laid out, as far as :func:`dumps_layout` can lay it out again.

    ``indent``: the width of the first indented line, ``"\\t"`` for tabs, 0 for one line
    (left out when it is ``default_indent``); ``sep``: Python's ``", "``/``": "`` on one line;
    ``ascii``: everything beyond ASCII written as ``\\u`` escapes; ``newline``: a final
    newline.  Formats keep it in ``passthrough`` so that a document that changed is written
    the way its file was (an unchanged one is given back as it was: :mod:`bunzai.io.asread`).
    """
    text = data.lstrip(b"\xef\xbb\xbf \t\r\n")
    if text[:1] not in (b"{", b"["):
        return {}
    head = text[:4096]
    nl = head.find(b"\n")
    out: dict[str, Any] = {}
    indent: int | str | None
    if nl == -1 or len(head[:nl].strip()) > 1:  # more than the bracket on the first line
        indent = 0
        colon = head.find(b'":')
        if colon > 0 and head[colon + 2:colon + 3] == b" ":
            out["sep"] = [", ", ": "]
    else:
        line = head[nl + 1:].split(b"\n", 1)[0]
        pad = line[:len(line) - len(line.lstrip(b" \t"))]
        indent = "\t" if pad.startswith(b"\t") else len(pad) or default_indent
    if (indent or None) != (default_indent or None):
        out["indent"] = indent
    if data.isascii() and _ESCAPE.search(data):  # the cheap test first: most files are not ASCII
        out["ascii"] = True
    if data.endswith(b"\n"):
        out["newline"] = True
    return out


def dumps_layout(obj: Any, layout: Any = None, default_indent: int | None = None,
                 options: Any = None) -> bytes:
    """``obj`` laid out as :func:`sniff_layout` recorded (``layout``; its indent, else
    ``default_indent``); an ``indent`` among the writer's ``options`` wins (0 is one line).
    A recorded ``indent`` of None also means one line."""
    rec = layout if isinstance(layout, Mapping) else {}
    if isinstance(options, Mapping) and "indent" in options:
        indent = options["indent"]
    else:
        indent = rec.get("indent", default_indent)
    indent = indent if isinstance(indent, str) else (int(indent) if indent else None)
    ascii_only = bool(rec.get("ascii"))
    sep = rec.get("sep")
    pair = (str(sep[0]), str(sep[1])) if isinstance(sep, list | tuple) and len(sep) == 2 else None
    if isinstance(indent, str) or pair:
        separators = pair or ((",", ": ") if indent is not None else (",", ":"))
        out = json.dumps(obj, indent=indent, separators=separators, ensure_ascii=ascii_only,
                         allow_nan=False).encode("utf-8", "surrogatepass")
    else:
        out = dumps(obj, indent=indent, ensure_ascii=ascii_only)
    return out + b"\n" if rec.get("newline") else out


def type_name(x: Any) -> str:
    """A JSON type in words, for messages: ``a string``, ``an array``, ``null``."""
    if x is None:
        return "null"
    if isinstance(x, bool):
        return "a boolean"
    if isinstance(x, int | float):
        return "a number"
    if isinstance(x, str):
        return "a string"
    if isinstance(x, Mapping):
        return "an object"
    if isinstance(x, Sequence):
        return "an array"
    return type(x).__name__

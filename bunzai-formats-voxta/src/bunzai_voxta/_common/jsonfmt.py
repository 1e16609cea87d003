"""The JSON dialects Voxta packages are written in, so a rewrite gives back the same bytes.

The Voxta server serializes with .NET's System.Text.Json and its default encoder: one line, no
spaces, every character outside printable ASCII escaped as ``\\uXXXX`` with upper-case hex (a
character outside the BMP as its two surrogates), the HTML-sensitive ``" & ' + < > ` `` escaped
the same way (``\\u0022``, not ``\\"``), and ``\\n \\r \\t \\b \\f \\\\`` in their short forms.
Date values are written by the date formatter, not the string encoder, so their ``+00:00`` is
not escaped.  Character Foundry and Card Architect write ``JSON.stringify(value, null, 2)``
instead.  Each member's dialect is recognised when it is read and used again when it is written.
"""

from __future__ import annotations

import json
import re
from typing import Any

DOTNET = "dotnet"
JS_INDENT = "js2"
STYLES = (DOTNET, JS_INDENT)

_DATE = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(?:\.\d{1,7})?(?:Z|[+-]\d{2}:\d{2})$")
_SHORT = {"\n": "\\n", "\r": "\\r", "\t": "\\t", "\b": "\\b", "\f": "\\f", "\\": "\\\\"}
_HTML = frozenset('"&\'+<>`')
_PLAIN = re.compile(r"[ !#-%(-*,-;=?-\[\]-_a-~]*")
"""Printable ASCII that the .NET default encoder leaves alone (everything but ``"&'+<>\\` ``)."""


def _dotnet_string(text: str, out: list[str]) -> None:
    out.append('"')
    if _DATE.match(text):
        out.append(text)
        out.append('"')
        return
    i = 0
    n = len(text)
    while i < n:
        m = _PLAIN.match(text, i)
        end = m.end() if m else i
        if end > i:
            out.append(text[i:end])
            i = end
            continue
        ch = text[i]
        short = _SHORT.get(ch)
        if short is not None:
            out.append(short)
        else:
            code = ord(ch)
            if code > 0xFFFF:
                code -= 0x10000
                out.append(f"\\u{0xD800 + (code >> 10):04X}\\u{0xDC00 + (code & 0x3FF):04X}")
            else:
                out.append(f"\\u{code:04X}")
        i += 1
    out.append('"')


def _number(value: int | float) -> str:
    """A number as .NET's shortest round-trip form writes it (``1E-05``, ``2.5``, ``100``)."""
    if isinstance(value, int):
        return str(value)
    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError("NaN and infinity are not JSON")
    if value.is_integer() and abs(value) < 1e15:
        return str(int(value))
    return repr(value).upper()


def _dotnet(value: Any, out: list[str]) -> None:
    if isinstance(value, str):
        _dotnet_string(value, out)
    elif value is True:
        out.append("true")
    elif value is False:
        out.append("false")
    elif value is None:
        out.append("null")
    elif isinstance(value, int | float):
        out.append(_number(value))
    elif isinstance(value, dict):
        out.append("{")
        first = True
        for k, v in value.items():
            if not first:
                out.append(",")
            first = False
            _dotnet_string(str(k), out)
            out.append(":")
            _dotnet(v, out)
        out.append("}")
    elif isinstance(value, list | tuple):
        out.append("[")
        for i, v in enumerate(value):
            if i:
                out.append(",")
            _dotnet(v, out)
        out.append("]")
    else:
        raise TypeError(f"cannot write a {type(value).__name__} as JSON")


def dumps_dotnet(value: Any) -> bytes:
    """``value`` as the Voxta server writes it (compact, .NET default escaping)."""
    out: list[str] = []
    _dotnet(value, out)
    return "".join(out).encode("utf-8")


def _js_number(value: int | float) -> str:
    if isinstance(value, int):
        return str(value)
    if value.is_integer() and abs(value) < 1e21:
        return str(int(value))
    text = repr(value)
    if "e" in text:  # JavaScript drops the exponent's leading zero: 1e-07 -> 1e-7
        mantissa, exp = text.split("e")
        sign = exp[0] if exp[0] in "+-" else "+"
        text = f"{mantissa}e{sign}{int(exp.lstrip('+-'))}"
    return text


def _js(value: Any, indent: str, out: list[str]) -> None:
    if isinstance(value, bool) or value is None or isinstance(value, str):
        out.append(json.dumps(value, ensure_ascii=False))
    elif isinstance(value, int | float):
        out.append(_js_number(value))
    elif isinstance(value, dict):
        if not value:
            out.append("{}")
            return
        inner = indent + "  "
        out.append("{")
        for i, (k, v) in enumerate(value.items()):
            out.append(("," if i else "") + "\n" + inner + json.dumps(str(k), ensure_ascii=False)
                       + ": ")
            _js(v, inner, out)
        out.append("\n" + indent + "}")
    elif isinstance(value, list | tuple):
        if not value:
            out.append("[]")
            return
        inner = indent + "  "
        out.append("[")
        for i, v in enumerate(value):
            out.append(("," if i else "") + "\n" + inner)
            _js(v, inner, out)
        out.append("\n" + indent + "]")
    else:
        raise TypeError(f"cannot write a {type(value).__name__} as JSON")


def dumps_js(value: Any) -> bytes:
    """``value`` as ``JSON.stringify(value, null, 2)`` writes it (Character Foundry's writer)."""
    out: list[str] = []
    _js(value, "", out)
    return "".join(out).encode("utf-8")


def dumps(value: Any, style: str = DOTNET) -> bytes:
    return dumps_js(value) if style == JS_INDENT else dumps_dotnet(value)


def style_of(raw: bytes, value: Any) -> str:
    """The dialect that reproduces ``raw`` from ``value`` (the server's when none does)."""
    body = raw[3:] if raw.startswith(b"\xef\xbb\xbf") else raw
    try:
        if dumps_dotnet(value) == body:
            return DOTNET
        if dumps_js(value) == body:
            return JS_INDENT
    except (TypeError, ValueError):
        return DOTNET
    if body[:1] == b"{" and body[1:2] == b"\n":
        return JS_INDENT
    return DOTNET

"""JSON parsing with bunzai's limits and strictness, in one place.

orjson does the fast common case; the standard library takes over for what orjson refuses but
real files contain (integers beyond 64 bits).  NaN/Infinity are rejected (they are not JSON and
cannot be written back), nesting too deep for either parser is a clean error (orjson stops at
1024 levels, the standard library at the recursion limit), and a UTF-8 BOM is accepted.
"""

from __future__ import annotations

import json
from typing import Any

import orjson

from .errors import MalformedInput
from .limits import Limits

_BOM = b"\xef\xbb\xbf"


def _reject_constant(name: str) -> Any:
    raise MalformedInput(f"invalid JSON: {name} is not allowed")


def loads(data: bytes | bytearray | memoryview | str, *, limits: Limits | None = None) -> Any:
    """Parse JSON text or UTF-8 bytes, raising :class:`MalformedInput` with the reason."""
    del limits  # reserved: size limits are enforced before the bytes reach here
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else bytes(data)
    if raw.startswith(_BOM):
        raw = raw[3:]
    try:
        return orjson.loads(raw)
    except orjson.JSONDecodeError as exc:
        orjson_error = str(exc)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise MalformedInput(
            f"invalid JSON: not UTF-8 ({exc.reason} at byte {exc.start})") from None
    try:
        return json.loads(text, parse_constant=_reject_constant)
    except MalformedInput:
        raise
    except RecursionError:
        raise MalformedInput("invalid JSON: nested too deeply") from None
    except json.JSONDecodeError as exc:
        raise MalformedInput(
            f"invalid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
        ) from None
    except ValueError as exc:  # e.g. int too large to convert under sys.set_int_max_str_digits
        raise MalformedInput(f"invalid JSON: {exc} ({orjson_error})") from None


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

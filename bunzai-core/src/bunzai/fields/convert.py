"""Converters: how a JSON value becomes a canonical value and back (``Conv``), and the ones
every format uses (``BOOL``, ``INT``, ``STRLIST``…), with the sentinels field tables share."""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ..io.compare import json_equal
from ..io.frozen import thaw
from ..io.jsonio import type_name

OMIT: Any = object()
"""Writer sentinel: leave the key out."""

jcopy = thaw
"""A copy of a JSON value that shares nothing mutable with it (scalars are immutable)."""

same = json_equal
"""JSON equality that also compares types (``1`` vs ``1.0`` vs ``true`` differ)."""

_MISSING: Any = object()


class Bad(Exception):
    """A source value that does not fit the canonical type; the reader keeps it as data."""


class Unrepresentable(Exception):
    """A canonical value the target cannot express; the writer reports it."""


def is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def is_num(x: Any) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool)


# -- converters ---------------------------------------------------------------------------------

def _any(x: Any) -> bool:
    return False


@dataclass(frozen=True)
class Conv:
    """How one key's JSON value becomes a canonical value (``canon``, raising :class:`Bad`) and
    back (``source``, raising :class:`Unrepresentable`).

    ``exact(raw)`` is a fast test: true when ``source(canon(raw))`` is ``raw`` itself (same type
    and value) and ``canon(raw)`` equals ``raw``, so reading needs neither conversion nor a
    record.  ``plain(raw)`` is the same test for a value that does need converting but comes
    back as it was (an enum's code, an inverted bool): reading calls ``canon`` and records
    nothing.  Both only ever speed things up, so ``False`` is always a safe answer.

    ``notes`` is for a lenient converter, one whose ``canon`` reads what it can of any value
    instead of raising :class:`Bad` (a number where text belongs read as its text, a list's
    stray items skipped): ``notes(key, raw, value)`` says what the reader is told, as
    ``(path below the key, message)`` pairs, in place of the generic type warning.  The
    original is kept as layout, like every value that does not come back as it was.
    """

    name: str
    canon: Callable[[Any], Any]
    source: Callable[[Any], Any] = jcopy
    exact: Callable[[Any], bool] = _any
    plain: Callable[[Any], bool] = _any
    notes: Callable[[str, Any, Any], Sequence[tuple[str, str]]] | None = None


_INT_TEXT = re.compile(r"-?\d{1,18}")
_NUM_TEXT = re.compile(r"-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?")


def _bool(x: Any) -> bool:
    if isinstance(x, bool):
        return x
    if isinstance(x, str) and x.strip().lower() in ("true", "false"):
        return x.strip().lower() == "true"  # hand-edited files; the original is written back
    if is_int(x) and x in (0, 1):
        return bool(x)
    raise Bad(f"expected true/false, got {type_name(x)}")


def _int(x: Any) -> int:
    if is_int(x):
        return int(x)
    if isinstance(x, float) and x.is_integer():
        return int(x)
    if isinstance(x, str) and _INT_TEXT.fullmatch(x.strip()):
        return int(x.strip())
    raise Bad(f"expected a whole number, got {type_name(x)}")


def _num(x: Any) -> int | float:
    if is_num(x):
        return x  # type: ignore[no-any-return]
    if isinstance(x, str) and _NUM_TEXT.fullmatch(x.strip()):
        t = x.strip()
        return int(t) if _INT_TEXT.fullmatch(t) else float(t)
    raise Bad(f"expected a number, got {type_name(x)}")


def _str(x: Any) -> str:
    if isinstance(x, str):
        return x
    if is_num(x):
        return str(x)
    raise Bad(f"expected a string, got {type_name(x)}")


def _id(x: Any) -> int | str:
    if is_int(x) or isinstance(x, str):
        return x  # type: ignore[no-any-return]
    if isinstance(x, float) and x.is_integer():
        return int(x)
    raise Bad(f"expected a number or string id, got {type_name(x)}")


def _strlist(x: Any) -> list[str]:
    if isinstance(x, str):
        return [x]
    if isinstance(x, list):
        out = []
        for item in x:
            if isinstance(item, str):
                out.append(item)
            elif is_num(item):
                out.append(str(item))
            else:
                raise Bad(f"expected a list of strings, found {type_name(item)} in it")
        return out
    raise Bad(f"expected a list of strings, got {type_name(x)}")


def _dict(x: Any) -> dict[str, Any]:
    if isinstance(x, dict):
        return {k: jcopy(v) for k, v in x.items()}
    raise Bad(f"expected an object, got {type_name(x)}")


def _dictlist(x: Any) -> list[dict[str, Any]]:
    if isinstance(x, list) and all(isinstance(i, dict) for i in x):
        return [_dict(i) for i in x]
    raise Bad(f"expected a list of objects, got {type_name(x)}")


def _int_or_bool(x: Any) -> int | bool:
    if isinstance(x, bool) or is_int(x):
        return x  # type: ignore[no-any-return]
    if isinstance(x, float) and x.is_integer():
        return int(x)
    raise Bad(f"expected a number or true/false, got {type_name(x)}")


def _not_bool(x: Any) -> bool:
    return not _bool(x)


def _whole(x: Any) -> int:
    """A whole number; a float with an integer value is accepted as the number it is."""
    if is_int(x):
        return int(x)
    if isinstance(x, float) and x.is_integer():
        return int(x)
    raise Bad(f"expected a whole number, got {type_name(x)}")


def _tags(x: Any) -> list[str]:
    """A list of strings; a comma-separated string (SillyTavern's root copy) is split."""
    if isinstance(x, str):
        return [t.strip() for t in x.split(",") if t.strip()]
    return _strlist(x)


def _str_dict(x: Any) -> dict[str, str]:
    if isinstance(x, Mapping) and all(isinstance(v, str) for v in x.values()):
        return {str(k): v for k, v in x.items()}
    raise Bad(f"expected an object of strings, got {type_name(x)}")


def _is_str_dict(x: Any) -> bool:
    return type(x) is dict and all(type(v) is str for v in x.values())


_EXACT_TYPES: dict[Callable[[Any], bool], frozenset[type]] = {}
"""The ``exact`` tests made by :func:`_is` -> the types they accept: :meth:`Table.read` tests
the type itself, with the same answer."""


def _is(*types: type) -> Callable[[Any], bool]:
    test: Callable[[Any], bool]
    if len(types) == 1:
        t0 = types[0]
        test = lambda x: type(x) is t0  # noqa: E731
    else:
        test = lambda x: type(x) in types  # noqa: E731
    _EXACT_TYPES[test] = frozenset(types)
    return test


def _all_str(x: Any) -> bool:
    return type(x) is list and all(type(i) is str for i in x)


_CODES: dict[Callable[[Any], bool], tuple[str, ...]] = {}
"""The ``plain`` tests made by :func:`enum` -> the names by code: for a value that passes,
``canon`` is ``names[value]``, which the compiled reader looks up itself."""


def enum(names: Sequence[str], what: str) -> Conv:
    """A numeric code (index into ``names``) that canonically is a name; names are accepted too."""
    count = len(names)

    def canon(x: Any) -> str:
        if is_int(x) and 0 <= x < count:
            return str(names[x])
        if isinstance(x, str) and x in names:
            return x
        raise Bad(f"unknown {what} {x!r}")

    def source(v: Any) -> int:
        if v in names:
            return names.index(v)
        raise Unrepresentable(f"{what} {v!r} has no numeric code here")

    def plain(x: Any) -> bool:
        return type(x) is int and 0 <= x < count  # a code, written back as the same code

    _CODES[plain] = tuple(str(n) for n in names)
    return Conv(what, canon, source, _any, plain)


BOOL = Conv("bool", _bool, jcopy, _is(bool))
INT = Conv("int", _int, jcopy, _is(int))
NUM = Conv("number", _num, jcopy, _is(int, float))
STR = Conv("string", _str, jcopy, _is(str))
ID = Conv("id", _id, jcopy, _is(int, str))
STRLIST = Conv("string list", _strlist, jcopy, _all_str)
DICT = Conv("object", _dict, jcopy, _is(dict))
DICTLIST = Conv("object list", _dictlist, jcopy,
                lambda x: type(x) is list and all(type(i) is dict for i in x))
INT_OR_BOOL = Conv("number or bool", _int_or_bool, jcopy, _is(int, bool))
NOT_BOOL = Conv("inverted bool", _not_bool, lambda v: not v, _any, _is(bool))
WHOLE = Conv("a whole number", _whole, jcopy, _is(int))
"""Like INT, but text is not a number here (dates, counts written by strict apps)."""
TAGS = Conv("a list of strings", _tags, jcopy, _all_str)
STRDICT = Conv("an object of strings", _str_dict, jcopy, _is_str_dict)


# -- tables -------------------------------------------------------------------------------------

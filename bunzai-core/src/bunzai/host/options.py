"""Reader and writer options, checked once in core against what the format declares.

Options arrive as text from the command line (``-O indent=2``) and the studio, or as Python
values from the API (``bunzai.write(card, "sillytavern", indent=2)``).  :func:`check` turns them
into the declared types before the adapter runs, so a typo is a usage error that names the valid
choices, and no adapter validates its options again.
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from ..errors import UsageError

if TYPE_CHECKING:
    from .types import FormatInfo, Option

_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off"})


def parse_pairs(pairs: Iterable[str] | None) -> dict[str, str]:
    """``KEY=VALUE`` strings (``--option``) as a mapping; values stay text until checked."""
    opts: dict[str, str] = {}
    for pair in pairs or []:
        key, sep, value = pair.partition("=")
        key = key.strip()
        if not sep or not key:
            raise UsageError(f"--option takes KEY=VALUE, got {pair!r}")
        opts[key] = value
    return opts


def check(info: FormatInfo, given: Mapping[str, Any], *, reader: bool = False
          ) -> dict[str, Any]:
    """``given`` as the adapter receives it: every name declared, every value converted.

    Raises :class:`~bunzai.errors.UsageError` (exit code 2) for an unknown name or a value the
    option does not take, naming the valid ones and the closest match.
    """
    if not given:
        return {}
    declared = {n: o for n, o in info.options.items() if o.reader == reader}
    what = "reader" if reader else "writer"
    out: dict[str, Any] = {}
    for name, value in given.items():
        opt = declared.get(name)
        if opt is None:
            if not declared:
                raise UsageError(f"{info.id} takes no {what} options (got {name!r})")
            raise UsageError(f"{info.id} has no {what} option {name!r}"
                             f"{_closest(name, declared)} (options: {', '.join(declared)})")
        out[name] = convert(info.id, opt, value)
    return out


def convert(format_id: str, opt: Option, value: Any) -> Any:
    """One option's value in its declared type, or a usage error saying what it takes."""
    if opt.free:
        if isinstance(value, str) and value.lower() in ("true", "false"):
            return value.lower() == "true"
        return value
    converted = _as_type(opt, value)
    if opt.choices:
        for choice in opt.choices:
            if converted == choice or (isinstance(choice, str) and isinstance(converted, str)
                                       and converted.casefold() == choice.casefold()):
                return choice
        converted = _NOT
    if converted is _NOT:
        shown = [str(c) for c in opt.choices]
        raise UsageError(f"option {opt.name} of {format_id} takes {_spoken(opt)}, not "
                         f"{value!r}{_closest(str(value), shown)}")
    return converted


_NOT = object()


def _as_type(opt: Option, value: Any) -> Any:
    if opt.type is bool:
        if isinstance(value, bool):
            return value
        text = str(value).strip().lower()
        return True if text in _TRUE else False if text in _FALSE else _NOT
    if opt.type is int:
        if isinstance(value, int) and not isinstance(value, bool):
            return value
        text = str(value).strip()
        digits = text[1:] if text[:1] in "+-" else text
        return int(text) if digits.isdigit() else _NOT
    if isinstance(value, bool | int | float):
        return str(value).lower() if isinstance(value, bool) else str(value)
    return value.strip() if isinstance(value, str) else _NOT


def _spoken(opt: Option) -> str:
    if opt.choices:
        shown = [str(c) for c in opt.choices]
        return ", ".join(shown[:-1]) + " or " + shown[-1] if len(shown) > 1 else shown[0]
    return {bool: "true or false", int: "a whole number"}.get(opt.type, "text")


def _closest(word: str, candidates: Iterable[str]) -> str:
    match = difflib.get_close_matches(word, list(candidates), n=1, cutoff=0.6)
    return f"; did you mean {match[0]!r}?" if match else ""

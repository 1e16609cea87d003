"""SillyTavern regex scripts <-> canonical :class:`~bunzai.model.RegexScript`.

One mapping for every place an ST regex script appears: a character's
``data.extensions.regex_scripts``, a standalone regex export, ``settings.json``'s
``extension_settings.regex``.  Field by field:

==================  =========================  ============================================
SillyTavern         canonical                  notes
==================  =========================  ============================================
``id``              ``id``                     string (import assigns a new uuid in ST)
``scriptName``      ``name``
``findRegex``       ``pattern`` + ``flags``    ``/pat/flags`` split as ST's own parser does;
                                               a bare pattern gives ``flags = None``.  The
                                               original string is kept for an exact re-write.
``replaceString``   ``replace``
``trimStrings``     ``trim_strings``
``placement``       ``placement``              1 user_input, 2 ai_output, 3 slash_command,
                                               5 world_info, 6 reasoning, 0 display; any other
                                               number n becomes ``"sillytavern:n"``
``disabled``        ``disabled``
``markdownOnly``    ``markdown_only``
``promptOnly``      ``prompt_only``
``runOnEdit``       ``run_on_edit``
``substituteRegex`` ``substitute_regex``       bool (old) or 0/1/2 (new); the original type
                                               is restored on write
``minDepth``        ``min_depth``              ``null`` kept as ``null``
``maxDepth``        ``max_depth``
==================  =========================  ============================================

Unknown keys are the script's app data (``app_data[format_id]``); absent keys, ``null``s,
original types and key order are its layout (``passthrough[format_id]``).  Patterns are data:
nothing here compiles or runs them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..errors import Issue
from ..fields import BOOL, INT, STRLIST, Bad, Conv, Table, field, is_int, keep, kept
from ..loss.report import LossReport

if TYPE_CHECKING:
    from ..model import RegexScript

__all__ = [
    "PLACEMENT_CODES",
    "ST_REGEX_KEYS",
    "build_st_regex",
    "join_find_regex",
    "parse_st_regex",
    "split_find_regex",
]

PLACEMENT_CODES: dict[int, str] = {
    0: "display",
    1: "user_input",
    2: "ai_output",
    3: "slash_command",
    5: "world_info",
    6: "reasoning",
}
"""SillyTavern ``placement`` numbers -> canonical placement names."""
_PLACEMENT_NUMBERS = {v: k for k, v in PLACEMENT_CODES.items()}
_OWN_PLACEMENT = re.compile(r"sillytavern:(-?\d+)")

# ST's regexFromString: /(\/?)(.+)\1([a-z]*)/i, where "." does not match line terminators.
_FIND = re.compile(r"(/?)([^\n\r\u2028\u2029]+)\1([a-z]*)", re.IGNORECASE)
_VALID_FLAGS = re.compile(r"(?!.*?(.).*?\1)[gmixXsuUAJ]+")


def split_find_regex(find: str) -> tuple[str, str | None]:
    """``(pattern, flags)`` of a ``findRegex`` string, as SillyTavern itself reads it.

    ``/pat/gi`` gives ``("pat", "gi")``; trailing junk after the flags is ignored (``/pat/g*``
    gives ``("pat", "g")``); a bare pattern, or one whose flags ST would reject, is the whole
    string with ``flags = None``.
    """
    m = _FIND.search(find)
    if m is None or not m.group(1):
        return find, None
    flags = m.group(3)
    if flags and not _VALID_FLAGS.fullmatch(flags):
        return find, None
    return m.group(2), flags


def join_find_regex(pattern: str, flags: str | None) -> str:
    """The ``findRegex`` string for a pattern and flags (``None`` flags: a bare pattern)."""
    if flags is None:
        return pattern
    return f"/{pattern}/{flags}"


def _placement_names(x: Any) -> list[str]:
    items = [x] if is_int(x) else x
    if not isinstance(items, list):
        raise Bad("expected a list of numbers")
    out: list[str] = []
    for item in items:
        if isinstance(item, str) and item.strip().lstrip("-").isdigit():
            item = int(item)
        if not is_int(item):
            raise Bad("expected a list of numbers")
        out.append(PLACEMENT_CODES.get(item, f"sillytavern:{item}"))
    return out


def _placement_number(name: str) -> int | None:
    if name in _PLACEMENT_NUMBERS:
        return _PLACEMENT_NUMBERS[name]
    m = _OWN_PLACEMENT.fullmatch(name)
    return int(m.group(1)) if m else None


def _placement_numbers(names: list[str]) -> list[int]:
    return [n for n in map(_placement_number, names) if n is not None]


PLACEMENT = Conv("a list of numbers", _placement_names, _placement_numbers)


def _substitute(x: Any) -> int:
    if isinstance(x, bool):
        return int(x)  # the old boolean form: false/true are 0/1
    if is_int(x):
        return int(x)
    raise Bad("expected a number or true/false")


SUBSTITUTE = Conv("a number (0, 1 or 2)", _substitute, lambda v: v, lambda x: type(x) is int)

ST_REGEX = Table((
    field("id"),
    field("name", "scriptName", absent=""),
    field("find", "findRegex", absent=""),
    field("replace", "replaceString", absent=""),
    field("trim_strings", "trimStrings", conv=STRLIST, absent=[]),
    field("placement", conv=PLACEMENT, absent=[]),
    field("disabled", conv=BOOL, absent=False),
    field("markdown_only", "markdownOnly", conv=BOOL),
    field("prompt_only", "promptOnly", conv=BOOL),
    field("run_on_edit", "runOnEdit", conv=BOOL),
    field("substitute_regex", "substituteRegex", conv=SUBSTITUTE, quiet=True),
    field("min_depth", "minDepth", conv=INT),
    field("max_depth", "maxDepth", conv=INT),
))
"""A SillyTavern regex script, in the key order ST's editor writes."""

ST_REGEX_KEYS = tuple(n for f in ST_REGEX.fields for n, _ in f.names)
"""The keys of a SillyTavern regex script, in the order ST's editor writes them."""


def parse_st_regex(obj: Mapping[str, Any], *, format_id: str,
                   warnings: list[Issue] | None = None, path: str = "$",
                   owned: bool = False) -> RegexScript:
    """A canonical regex script from one SillyTavern regex object (tolerant of wrong types)."""
    from ..model import RegexScript

    values, layout, data = ST_REGEX.read(obj, path, warnings, owned=owned)
    find = values.pop("find")
    pattern, flags = split_find_regex(find)
    if join_find_regex(pattern, flags) != find:
        layout["find"] = find  # ST reads it so; the exact text is kept for a rewrite
    if not isinstance(values["id"], str | None):
        values["id"] = str(values["id"])
    script = RegexScript(pattern=pattern, flags=flags, **values)
    keep(script, format_id, layout, data)
    return script


def build_st_regex(script: RegexScript, *, format_id: str, loss: LossReport | None = None,
                   path: str = "regex") -> dict[str, Any]:
    """The SillyTavern JSON object for a canonical regex script.

    With the layout and app data :func:`parse_st_regex` kept under ``format_id`` the object
    comes back as it was read; otherwise ST's keys are written for every stated value (``None``
    fields are left out, which ST reads as its default).
    """
    layout, data = kept(script, format_id)
    find = join_find_regex(script.pattern, script.flags)
    original = (layout or {}).get("find")
    if isinstance(original, str) and split_find_regex(original) == (script.pattern, script.flags):
        find = original
    elif loss is not None and split_find_regex(find) != (script.pattern, script.flags):
        # ST parses findRegex itself: "//" is not an empty pattern, a bare "/x/" is the regex x,
        # and flags it does not know (or a pattern spanning lines) make the whole string a pattern.
        got = split_find_regex(find)
        for name, before, after in (("pattern", script.pattern, got[0]),
                                    ("flags", script.flags, got[1])):
            if before != after and (before or after):  # None and "" both say "no flags"
                loss.approximated(f"{path}.{name}", f"SillyTavern reads findRegex {find!r} as "
                                                    f"pattern {got[0]!r}, flags {got[1]!r}")
    placement = list(script.placement)
    if loss is not None:
        for name in placement:
            if _placement_number(name) is None:
                loss.approximated(f"{path}.placement", f"placement {name!r} has no SillyTavern "
                                                       "equivalent; left out")
    values = {"find": find, "placement": placement}

    def get(attr: str) -> Any:
        return values[attr] if attr in values else getattr(script, attr)

    return ST_REGEX.write(get, layout, data, loss, path)

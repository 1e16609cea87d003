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

Unknown keys, absent keys, ``null``s and key order go to ``passthrough[format_id]``.  Patterns
are data: nothing here compiles or runs them.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from ..loss import LossReport
from ..types import Issue
from ._shape import (
    ShapeReader,
    ShapeWriter,
    conv_bool,
    conv_int,
    conv_opt_str,
    conv_str,
    conv_str_list,
    is_array,
    plain,
)

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

ST_REGEX_KEYS = (
    "id", "scriptName", "findRegex", "replaceString", "trimStrings", "placement", "disabled",
    "markdownOnly", "promptOnly", "runOnEdit", "substituteRegex", "minDepth", "maxDepth",
)
"""The keys of a SillyTavern regex script, in the order ST's editor writes them."""

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


def _conv_substitute(v: Any) -> tuple[int | None, bool]:
    if isinstance(v, bool):
        return int(v), False
    if isinstance(v, int):
        return v, True
    return conv_int(v)


def _conv_depth(v: Any) -> tuple[int | None, bool]:
    return conv_int(v)


def _placements(v: Any) -> tuple[list[str], bool]:
    if not is_array(v):
        if isinstance(v, int) and not isinstance(v, bool):
            v = [v]
            exact = False
        else:
            return [], False
    else:
        exact = True
    out: list[str] = []
    for item in v:
        if isinstance(item, bool) or not isinstance(item, int):
            exact = False
            if isinstance(item, str) and item.strip().lstrip("-").isdigit():
                item = int(item)
            else:
                continue
        out.append(PLACEMENT_CODES.get(item, f"sillytavern:{item}"))
    return out, exact


def _placement_numbers(names: list[str], loss: LossReport | None, path: str) -> list[int]:
    out: list[int] = []
    for name in names:
        if name in _PLACEMENT_NUMBERS:
            out.append(_PLACEMENT_NUMBERS[name])
            continue
        m = _OWN_PLACEMENT.fullmatch(name)
        if m:
            out.append(int(m.group(1)))
            continue
        if loss is not None:
            loss.approximated(f"{path}.placement",
                              f"placement {name!r} has no SillyTavern equivalent; left out")
    return out


def parse_st_regex(obj: Mapping[str, Any], *, format_id: str,
                   warnings: list[Issue] | None = None, path: str = "$") -> RegexScript:
    """A canonical regex script from one SillyTavern regex object (tolerant of wrong types)."""
    from ..model import RegexScript

    r = ShapeReader(obj, ST_REGEX_KEYS, path=path, warnings=warnings)
    find_raw = r.raw("findRegex")
    find = r.field("findRegex", conv_str, "", nullable=False, expected="a string")
    pattern, flags = split_find_regex(find)
    if isinstance(find_raw, str) and join_find_regex(pattern, flags) != find_raw:
        r.more["find"] = find_raw
    script = RegexScript(
        id=r.field("id", conv_opt_str, None, nullable=True, expected="a string"),
        name=r.field("scriptName", conv_str, "", nullable=False, expected="a string"),
        pattern=pattern,
        flags=flags,
        replace=r.field("replaceString", conv_str, "", nullable=False, expected="a string"),
        trim_strings=r.field("trimStrings", conv_str_list, [], nullable=False,
                             expected="a list of strings"),
        placement=r.field("placement", _placements, [], nullable=False,
                          expected="a list of numbers"),
        disabled=bool(r.field("disabled", conv_bool, False, nullable=False,
                              expected="true or false")),
        markdown_only=r.field("markdownOnly", conv_bool, None, nullable=True,
                              expected="true or false"),
        prompt_only=r.field("promptOnly", conv_bool, None, nullable=True,
                            expected="true or false"),
        run_on_edit=r.field("runOnEdit", conv_bool, None, nullable=True,
                            expected="true or false"),
        substitute_regex=r.field("substituteRegex", _conv_substitute, None, nullable=True,
                                 expected="a number or boolean",
                                 quiet=isinstance(obj.get("substituteRegex"), bool)),
        min_depth=r.field("minDepth", _conv_depth, None, nullable=True, expected="a number"),
        max_depth=r.field("maxDepth", _conv_depth, None, nullable=True, expected="a number"),
    )
    script.passthrough[format_id] = r.record()
    return script


def build_st_regex(script: RegexScript, *, format_id: str, loss: LossReport | None = None,
                   path: str = "regex") -> dict[str, Any]:
    """The SillyTavern JSON object for a canonical regex script.

    With a shape recorded by :func:`parse_st_regex` under ``format_id`` the object comes back
    as it was read; otherwise ST's keys are written for every stated value (``None`` fields are
    left out, which ST reads as its default).
    """
    shape = script.passthrough.get(format_id)
    w = ShapeWriter(shape if isinstance(shape, Mapping) else None)
    find = join_find_regex(script.pattern, script.flags)
    original = w.shape.get("find")
    if isinstance(original, str) and split_find_regex(original) == (script.pattern, script.flags):
        find = original
    elif loss is not None and split_find_regex(find) != (script.pattern, script.flags):
        # ST parses findRegex itself: "//" is not an empty pattern, a bare "/x/" is the regex x,
        # and flags it does not know (or a pattern spanning lines) make the whole string a pattern.
        got = split_find_regex(find)
        for name, before, after in (("pattern", script.pattern, got[0]),
                                    ("flags", script.flags, got[1])):
            if before != after:
                loss.approximated(f"{path}.{name}", f"SillyTavern reads findRegex {find!r} as "
                                                    f"pattern {got[0]!r}, flags {got[1]!r}")
    w.put("id", script.id, conv_opt_str, empty=None)
    w.put("scriptName", script.name, conv_str, empty="")
    w.put("findRegex", find, conv_str, empty="")
    w.put("replaceString", script.replace, conv_str, empty="")
    w.put("trimStrings", list(script.trim_strings), conv_str_list, empty=[])
    w.put("placement", _placement_numbers(list(script.placement), loss, path), None, empty=[])
    if "placement" in w.coerced:
        derived, _ = _placements(w.coerced["placement"])
        if derived == list(script.placement):
            w.out["placement"] = plain(w.coerced["placement"])
    w.put("disabled", script.disabled, conv_bool, empty=False)
    w.put("markdownOnly", script.markdown_only, conv_bool, empty=None)
    w.put("promptOnly", script.prompt_only, conv_bool, empty=None)
    w.put("runOnEdit", script.run_on_edit, conv_bool, empty=None)
    w.put("substituteRegex", script.substitute_regex, _conv_substitute, empty=None)
    w.put("minDepth", script.min_depth, _conv_depth, empty=None)
    w.put("maxDepth", script.max_depth, _conv_depth, empty=None)
    if script.extensions and loss is not None:
        loss.dropped(f"{path}.extensions", "SillyTavern regex scripts have no extensions")
    return w.finish(ST_REGEX_KEYS)

"""RisuAI custom scripts (``customscript``) <-> canonical :class:`RegexScript`.

A custom script is ``{comment, in, out, type, flag?, ableFlag?}``.  ``type`` says when it runs,
which canonical expresses as placements plus the display-only / prompt-only switches (as
SillyTavern does), so scripts convert field by field.  Flags are stored as RisuAI applies them:
when ``ableFlag`` is off RisuAI uses ``g`` whatever ``flag`` says, and an empty letter set means
``u``.  RisuAI's angle-bracket meta flags (``<order 5>``, ``<cbs>``, ``<move_top>`` …) have no
canonical field and travel in ``extensions.risuai.meta_flags``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from bunzai.loss import LossReport
from bunzai.model import PLACEMENTS, RegexScript

from .diff import report
from .shape import capture, restore
from .values import Notes

RISU_TYPES = ("editinput", "editoutput", "editprocess", "editdisplay", "edittrans", "disabled")
JS_FLAGS = "dgimsuvy"
_META = re.compile(r"<[^<>]*>")
_BOTH = ["user_input", "ai_output"]

# type -> (placement, markdown_only, prompt_only)
_TYPE_MAP: dict[str, tuple[list[str], bool | None, bool | None]] = {
    "editinput": (["user_input"], False, False),
    "editoutput": (["ai_output"], False, False),
    "editprocess": (_BOTH, False, True),
    "editdisplay": (_BOTH, True, False),
    "edittrans": (_BOTH, True, False),
    "disabled": ([], None, None),
}

_LOSS_REASONS = {
    "id": "RisuAI custom scripts have no id",
    "trim_strings": "RisuAI custom scripts cannot trim captured groups",
    "run_on_edit": "RisuAI has no run-on-edit switch",
    "substitute_regex": "RisuAI expands macros in patterns only with the <cbs> flag",
    "min_depth": "RisuAI custom scripts have no depth filter",
    "max_depth": "RisuAI custom scripts have no depth filter",
    "placement": "a RisuAI script runs at exactly one stage (input, output, request, display)",
    "markdown_only": "a RisuAI script runs at exactly one stage (input, output, request, display)",
    "prompt_only": "a RisuAI script runs at exactly one stage (input, output, request, display)",
    "flags": "RisuAI applies 'g' when no flags are enabled and 'u' when the set is empty",
    "extensions": "RisuAI custom scripts keep only RisuAI's own extension data",
}


_CANONICAL_PLACES = frozenset(PLACEMENTS)
_APPROXIMATED = frozenset({"placement", "markdown_only", "prompt_only", "flags"})


def split_flag(flag: str) -> tuple[str, str]:
    """(JavaScript flags as RisuAI applies them, the ``<meta>`` flags verbatim)."""
    meta = "".join(_META.findall(flag))
    letters = ""
    for c in _META.sub("", flag):
        if c in JS_FLAGS and c not in letters:
            letters += c
    return letters or "u", meta


def _canonical(raw: Mapping[str, Any], path: str, notes: Notes) -> RegexScript:
    rtype = notes.text(raw, "type", path)
    placement, markdown_only, prompt_only = _TYPE_MAP.get(rtype, ([rtype] if rtype else [], None,
                                                                  None))
    if rtype and rtype not in _TYPE_MAP:
        notes.warn(f"{path}.type", f"unknown RisuAI script type {rtype!r}; kept as a placement")
    able = notes.flag(raw, "ableFlag", path)
    flag_text = notes.text(raw, "flag", path)
    risuai: dict[str, Any] = {}
    if able:
        flags, meta = split_flag(flag_text)
        if meta:
            risuai["meta_flags"] = meta
    else:
        flags = "g"
    if rtype == "edittrans":
        risuai["type"] = "edittrans"
    return RegexScript(
        name=notes.text(raw, "comment", path),
        pattern=notes.text(raw, "in", path),
        replace=notes.text(raw, "out", path),
        flags=flags,
        placement=list(placement),
        disabled=rtype == "disabled",
        markdown_only=markdown_only,
        prompt_only=prompt_only,
        extensions={"risuai": risuai} if risuai else {},
    )


def _risu_type(script: RegexScript) -> str:
    risuai = script.extensions.get("risuai")
    wanted = risuai.get("type") if isinstance(risuai, Mapping) else None
    if script.disabled:
        return "disabled"
    if script.markdown_only:
        return "edittrans" if wanted == "edittrans" else "editdisplay"
    if script.prompt_only:
        return "editprocess"
    places = set(script.placement)
    if places == {"user_input"}:
        return "editinput"
    if len(script.placement) == 1 and script.placement[0] not in _CANONICAL_PLACES:
        return script.placement[0]  # a RisuAI type bunzai does not know, kept as read
    return "editoutput"


def build(script: RegexScript) -> dict[str, Any]:
    """The custom script the canonical fields describe (no passthrough applied)."""
    risuai = script.extensions.get("risuai")
    meta = risuai.get("meta_flags", "") if isinstance(risuai, Mapping) else ""
    out: dict[str, Any] = {
        "comment": script.name,
        "in": script.pattern,
        "out": script.replace,
        "type": _risu_type(script),
    }
    if script.flags is not None or meta:
        out["flag"] = (script.flags or "") + (meta if isinstance(meta, str) else "")
        out["ableFlag"] = True
    return out


def read_script(raw: Any, path: str, notes: Notes, fid: str) -> RegexScript | None:
    """One custom script; a non-object is skipped with a warning."""
    if not isinstance(raw, Mapping):
        notes.warn(path, f"expected a script object, got {type(raw).__name__}; skipped")
        return None
    script = _canonical(raw, path, notes)
    shape = capture(raw, build(script))
    if shape:
        script.passthrough[fid] = {"shape": shape}
    return script


def read_scripts(raw: Any, path: str, notes: Notes, fid: str) -> list[RegexScript]:
    if raw is None:
        return []
    if not isinstance(raw, list | tuple):
        notes.warn(path, f"expected a list of scripts, got {type(raw).__name__}; ignored")
        return []
    out = []
    for i, item in enumerate(raw):
        s = read_script(item, f"{path}[{i}]", notes, fid)
        if s is not None:
            out.append(s)
    return out


def write_script(script: RegexScript, fid: str, loss: LossReport | None = None,
                 path: str = "") -> dict[str, Any]:
    """The custom script for ``script``; differences a read-back would show go to ``loss``."""
    pt = script.passthrough.get(fid)
    out = restore(build(script), pt.get("shape") if isinstance(pt, Mapping) else None)
    if loss is not None:
        report(loss, script, _canonical(out, "$", Notes()), prefix=path, reasons=_LOSS_REASONS,
               approximated=_APPROXIMATED, default="RisuAI custom scripts cannot hold it")
    return out


def write_scripts(scripts: list[RegexScript], fid: str, loss: LossReport | None,
                  path: str) -> list[dict[str, Any]]:
    return [write_script(s, fid, loss, f"{path}[{i}].") for i, s in enumerate(scripts)]

"""RisuAI custom scripts (``customscript``) <-> canonical :class:`RegexScript`.

A custom script is ``{comment, in, out, type, flag?, ableFlag?}``.  ``type`` says when it runs,
which canonical expresses as placements plus the display-only / prompt-only switches (as
SillyTavern does), so scripts convert field by field.  Flags are stored as RisuAI applies them:
when ``ableFlag`` is off RisuAI uses ``g`` whatever ``flag`` says (that text stays the script's
app data, RisuAI shows it again once the flags are switched on), and an empty letter set means
``u``.  RisuAI's angle-bracket meta flags (``<order 5>``, ``<cbs>``, ``<move_top>`` …) have no
canonical field and travel in ``extensions.risuai.meta_flags``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from bunzai.sdk import PLACEMENTS, Issue, LossReport, RegexScript
from bunzai.sdk.fields import Table, field, jcopy, kept, slot, type_name

from .loss import neutral_values, read_objects

JS_FLAGS = "dgimsuvy"
_META = re.compile(r"<[^<>]*>")
_BOTH = ("user_input", "ai_output")
_MISSING: Any = object()

# type -> (placement, markdown_only, prompt_only)
_TYPE_MAP: dict[str, tuple[tuple[str, ...], bool | None, bool | None]] = {
    "editinput": (("user_input",), False, False),
    "editoutput": (("ai_output",), False, False),
    "editprocess": (_BOTH, False, True),
    "editdisplay": (_BOTH, True, False),
    "edittrans": (_BOTH, True, False),
    "disabled": ((), None, None),
}
_STAGE = "a RisuAI script runs at exactly one stage (input, output, request or display)"

_REASON = {
    "placement": _STAGE, "markdown_only": _STAGE, "prompt_only": _STAGE,
    "disabled": _STAGE,
    "flags": "RisuAI applies 'g' when no flags are enabled, 'u' when the set is empty, and "
             "only the JavaScript flags dgimsuvy",
    "extensions.risuai.meta_flags": "RisuAI's meta flags are <…> groups in the flag text",
    "extensions.risuai.type": "RisuAI translates a display script only when it runs at "
                              "display",
}

SCRIPT = Table((
    field("name", "comment", absent=""),
    field("pattern", "in", absent=""),
    field("replace", "out", absent=""),
    slot("type"),
    slot("flag"),
    slot("ableFlag"),
))
"""A custom script's keys in RisuAI's order; ``type``, ``flag`` and ``ableFlag`` are read by
hand (one setting spread over several keys)."""


def split_flag(flag: str) -> tuple[str, str]:
    """(JavaScript flags as RisuAI applies them, the ``<meta>`` flags verbatim)."""
    meta = "".join(_META.findall(flag))
    letters = ""
    for c in _META.sub("", flag):
        if c in JS_FLAGS and c not in letters:
            letters += c
    return letters or "u", meta


def _truthy(value: Any) -> bool:
    """JavaScript truthiness, which is how RisuAI tests ``ableFlag``."""
    return value not in (None, False, 0, "", _MISSING) and value == value


TypeState = tuple[tuple[str, ...], bool | None, bool | None, bool, str | None]


def _type_read(rtype: Any) -> TypeState:
    """(placement, markdown_only, prompt_only, disabled, RisuAI-only type) of a ``type``."""
    text = rtype if isinstance(rtype, str) else ""
    if text in _TYPE_MAP:
        placement, md, po = _TYPE_MAP[text]
        return placement, md, po, text == "disabled", "edittrans" if text == "edittrans" else None
    return ((text,) if text else ()), None, None, False, None


def _type_state(script: RegexScript) -> TypeState:
    risuai = script.extensions.get("risuai")
    wanted = risuai.get("type") if isinstance(risuai, Mapping) else None
    return (tuple(script.placement), script.markdown_only, script.prompt_only, script.disabled,
            wanted if isinstance(wanted, str) else None)


def _type_of(state: TypeState) -> str:
    placement, md, po, disabled, wanted = state
    if disabled:
        return "disabled"
    if md:
        return "edittrans" if wanted == "edittrans" else "editdisplay"
    if po:
        return "editprocess"
    if placement == ("user_input",):
        return "editinput"
    if len(placement) == 1 and placement[0] not in PLACEMENTS:
        return placement[0]  # a RisuAI type bunzai does not know, kept as read
    return "editoutput"


def risu_type(script: RegexScript) -> str:
    """The ``type`` RisuAI runs ``script`` as."""
    return _type_of(_type_state(script))


FlagState = tuple[str | None, str, str | None]


def _flag_read(flag: Any, able: Any) -> FlagState:
    """(flags, meta flags, the dormant flag text) RisuAI takes from ``flag``/``ableFlag``."""
    text = flag if isinstance(flag, str) else ""
    if _truthy(able):
        letters, meta = split_flag(text)
        return letters, meta, None
    return "g", "", text or None


def _meta(script: RegexScript) -> Any:
    risuai = script.extensions.get("risuai")
    return risuai.get("meta_flags", "") if isinstance(risuai, Mapping) else ""


def _flag_keys(flags: str | None, meta: str, dormant: str | None) -> dict[str, Any]:
    if dormant is not None and flags == "g" and not meta:
        return {"flag": dormant, "ableFlag": False}
    if flags is None and not meta:
        return {}
    return {"flag": (flags or "") + meta, "ableFlag": True}


# -- reading --------------------------------------------------------------------------------------


def read_script(raw: Mapping[str, Any], path: str, warnings: list[Issue], format_id: str,
                *, data_id: str | None = None, owned: bool = False) -> RegexScript:
    """One custom script.

    Its layout is kept under ``format_id``, its app data under ``data_id`` (default: the same).
    """
    values, layout, data = SCRIPT.read(raw, path, warnings, owned=owned)
    rtype = data.pop("type", _MISSING)
    flag = data.pop("flag", _MISSING)
    able = data.pop("ableFlag", _MISSING)
    if rtype is not _MISSING and not isinstance(rtype, str):
        warnings.append(Issue(f"{path}.type", f"expected a script type, got "
                                              f"{type_name(rtype)}; the script never runs"))
    elif isinstance(rtype, str) and rtype and rtype not in _TYPE_MAP:
        warnings.append(Issue(f"{path}.type", f"unknown RisuAI script type {rtype!r}; kept as "
                                              "a placement"))
    read_as = _type_read(None if rtype is _MISSING else rtype)
    placement, md, po, disabled, trans = read_as
    if not (isinstance(rtype, str) and rtype == _type_of(read_as)):
        layout["type"] = [] if rtype is _MISSING else [jcopy(rtype)]
    if flag is not _MISSING and not isinstance(flag, str):
        warnings.append(Issue(f"{path}.flag", f"expected flag letters, got {type_name(flag)}; "
                                              "RisuAI uses none of it"))
    state = _flag_read(None if flag is _MISSING else flag, able)
    flags, meta, dormant = state
    composed = _flag_keys(flags, meta, dormant)
    given = {k: v for k, v in (("flag", flag), ("ableFlag", able)) if v is not _MISSING}
    if list(composed.items()) != list(given.items()) or any(
            type(composed[k]) is not type(v) for k, v in given.items()):
        layout["flag"] = jcopy(given)
    risuai: dict[str, Any] = {}
    if meta:
        risuai["meta_flags"] = meta
    if trans:
        risuai["type"] = trans
    if dormant is not None:
        data["flag"] = dormant
    script = RegexScript(name=values["name"], pattern=values["pattern"],
                         replace=values["replace"], flags=flags, placement=list(placement),
                         disabled=disabled, markdown_only=md, prompt_only=po,
                         extensions={"risuai": risuai} if risuai else {})
    if data:
        script.app_data[data_id or format_id] = data
    if layout:
        script.passthrough[format_id] = layout
    return script


def read_scripts(raw: Any, path: str, warnings: list[Issue], format_id: str, *,
                 data_id: str | None = None, owned: bool = False) -> list[RegexScript]:
    if raw is None:
        return []
    return read_objects(raw, path, warnings, ("scripts", "a script"),
                        lambda item, at: read_script(item, at, warnings, format_id,
                                                     data_id=data_id, owned=owned))


# -- writing --------------------------------------------------------------------------------------


def write_script(script: RegexScript, format_id: str, *, data_id: str | None = None,
                 loss: LossReport | None = None, path: str = "") -> dict[str, Any]:
    """The custom script for ``script``; what RisuAI will read differently goes to ``loss``
    under ``path`` (``regex_scripts[2].``).

    The layout comes from ``format_id``, the app data from ``data_id`` (default: the same).
    """
    layout, _own = kept(script, format_id)
    rec: Mapping[str, Any] = layout or {}
    own = script.app_data.get(data_id or format_id)
    data: dict[str, Any] = dict(own) if isinstance(own, dict) else {}
    dormant = data.pop("flag", None)
    state = _type_state(script)
    saved_type = rec.get("type")
    if isinstance(saved_type, list) and _type_read(
            saved_type[0] if saved_type else None) == _normal(state):
        if saved_type:
            data["type"] = jcopy(saved_type[0])
        written_type: Any = saved_type[0] if saved_type else None
    else:
        written_type = data["type"] = risu_type(script)
    meta = _meta(script)
    meta_text = meta if isinstance(meta, str) else ""
    wanted: FlagState = (script.flags, meta_text,
                         dormant if isinstance(dormant, str) and dormant else None)
    saved_flag = rec.get("flag")
    if isinstance(saved_flag, Mapping) and _flag_read(
            saved_flag.get("flag"), saved_flag.get("ableFlag", _MISSING)) == _settled(wanted):
        keys = dict(saved_flag)
    else:
        keys = _flag_keys(*wanted)
    data.update(keys)
    out = SCRIPT.write(lambda attr: getattr(script, attr), layout, data)
    if loss is not None:
        _report(script, written_type, keys, wanted, meta, loss, path, data_id or format_id)
    return out


def _normal(state: TypeState) -> TypeState:
    """A script's type state as a ``type`` could give it (what RisuAI cannot tell apart, equal)."""
    placement, md, po, disabled, trans = state
    return placement, md, po, disabled, trans if trans == "edittrans" and md else None


def _settled(state: FlagState) -> FlagState:
    flags, meta, dormant = state
    return ("g" if flags is None and not meta else flags), meta, dormant


def _report(script: RegexScript, written_type: Any, keys: Mapping[str, Any],
            wanted: FlagState, meta: Any, loss: LossReport, path: str,
            format_id: str) -> None:
    neutral = neutral_values()
    placement, md, po, disabled, trans = _type_read(written_type)
    back = {"placement": list(placement), "markdown_only": md, "prompt_only": po,
            "disabled": disabled}
    after = script.model_copy(update=back)
    for name, now in back.items():
        was = getattr(script, name)
        if type(was) is type(now) and was == now:
            continue
        pattern = f"regex_scripts[*].{name}"
        if neutral.neutral(pattern, was, script) and neutral.neutral(pattern, now, after):
            continue
        loss.approximated(f"{path}{name}", _REASON[name])
    risuai = script.extensions.get("risuai")
    wanted_type = risuai.get("type") if isinstance(risuai, Mapping) else None
    if wanted_type is not None and wanted_type != trans:
        loss.dropped(f"{path}extensions.risuai.type", _REASON["extensions.risuai.type"])
    flags, meta_back, dormant = _flag_read(keys.get("flag"), keys.get("ableFlag", _MISSING))
    if flags != script.flags:
        loss.approximated(f"{path}flags", _REASON["flags"])
    if meta_back != meta:
        loss.approximated(f"{path}extensions.risuai.meta_flags",
                          _REASON["extensions.risuai.meta_flags"])
    if wanted[2] is not None and dormant != wanted[2]:
        loss.dropped(f"{path}app_data.{format_id}.flag",
                     "RisuAI keeps one flag text: the script's own flags replace it")


def write_scripts(scripts: list[RegexScript], format_id: str, loss: LossReport | None,
                  path: str, *, data_id: str | None = None) -> list[dict[str, Any]]:
    return [write_script(s, format_id, data_id=data_id, loss=loss, path=f"{path}[{i}].")
            for i, s in enumerate(scripts)]

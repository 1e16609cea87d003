"""Reading and writing Pygmalion / TextGen JSON and pygmalion.chat wrappers."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

from bunzai.cardspec import build_card, parse_card, validate_card
from bunzai.cardspec._shape import ShapeReader, ShapeWriter, conv_str, json_equal, plain
from bunzai.errors import MalformedInput
from bunzai.frozen import thaw
from bunzai.input import AdapterInput
from bunzai.jsonio import dumps
from bunzai.loss import LossReport
from bunzai.types import Issue, OutputFile, ReadResult, WriteResult

from .._cards import find_card
from .._cards.container import diff_paths, rolled_up
from .._options import layout_of, sniff_layout

if TYPE_CHECKING:
    from bunzai.model import Character

FORMAT_ID = "pygmalion"

PAIRS = (
    ("char_name", "name", "name"),
    ("char_persona", "description", "description"),
    ("char_greeting", "first_mes", "first_mes"),
    ("world_scenario", "scenario", "scenario"),
    ("example_dialogue", "mes_example", "mes_example"),
)
"""(Pygmalion key, V1 key, canonical field) in the order TextGen writes them."""
_PYG_KEYS = tuple(p for p, _, _ in PAIRS)
_V1_KEYS = ("name", "description", "personality", "scenario", "first_mes", "mes_example")
_KNOWN = (*_PYG_KEYS, *_V1_KEYS)
_FIVE_KEY_LOSS = ("the Pygmalion/TextGen shape holds only a name, a persona, a greeting, a "
                  "scenario and example dialogue")


def read_pygmalion(input: AdapterInput) -> ReadResult:
    """A character from the five-key JSON (V1 keys next to it win) or a card wrapper."""
    found = find_card(input)
    if found.wrapper is not None and found.card is not None:
        return _read_wrapper(input, found.wrapper)
    obj = input.json_mutable()
    if not isinstance(obj, dict) or not isinstance(obj.get("char_name"), str):
        raise MalformedInput("not a Pygmalion character (no char_name)")
    from bunzai.model import Character

    warnings: list[Issue] = []
    r = ShapeReader(obj, _KNOWN, path="$", warnings=warnings)
    values: dict[str, Any] = {}
    pyg_original: dict[str, Any] = {}
    for pyg, v1, attr in PAIRS:
        pyg_value = r.field(pyg, conv_str, "", nullable=False, expected="a string")
        if v1 in obj:
            v1_value = r.field(v1, conv_str, "", nullable=False, expected="a string")
            values[attr] = v1_value
            if pyg in obj and pyg_value != v1_value:
                pyg_original[pyg] = plain(obj[pyg])
                warnings.append(Issue(f"$.{pyg}", f"{pyg} differs from {v1}; {v1} is read "
                                      "(both key sets present)"))
        else:
            values[attr] = pyg_value
    if "personality" in obj:
        values["personality"] = r.field("personality", conv_str, "", nullable=False,
                                        expected="a string")
    if pyg_original:
        r.more["pyg_original"] = pyg_original
        r.more["read_as"] = {attr: values[attr] for _, _, attr in PAIRS}
    character = Character(**values)
    character.passthrough[FORMAT_ID] = {"shape": "textgen", "body": r.record(),
                                        "json": sniff_layout(input.data, 4)}
    return ReadResult([character], warnings)


def _read_wrapper(input: AdapterInput, key: str) -> ReadResult:
    obj = input.json_mutable()
    warnings: list[Issue] = []
    character = parse_card(obj[key], format_id=FORMAT_ID, warnings=warnings)
    pt = character.passthrough[FORMAT_ID]
    pt["shape"] = "chat"
    pt["wrapper"] = key
    pt["wrapper_root"] = {k: v for k, v in obj.items() if k != key}
    pt["wrapper_order"] = list(obj)
    pt["json"] = sniff_layout(input.data, 4)
    prefixed = [Issue(i.path.replace("$", f"$.{key}", 1), i.message, i.severity)
                for i in warnings]
    return ReadResult([character], prefixed)


def write_pygmalion(character: Character, options: Mapping[str, Any]) -> WriteResult:
    raw_pt = character.passthrough.get(FORMAT_ID)
    pt: Mapping[str, Any] = raw_pt if isinstance(raw_pt, Mapping) else {}
    shape = options.get("shape") or str(pt.get("shape") or "textgen")
    loss = LossReport()
    if shape == "chat":
        obj = _chat(character, pt, loss)
        reason = "a pygmalion.chat export holds a V2 card"
    else:
        obj = _textgen(character, pt)
        reason = _FIVE_KEY_LOSS
    indent, newline = layout_of(options, pt.get("json"), 4)
    data = dumps(obj, indent=indent)
    if newline:
        data += b"\n"
    back = read_pygmalion(AdapterInput(data, "out.json")).entities[0]
    for path in rolled_up(back, [p for p in diff_paths(character, back)
                                    if not loss.covers(p)]):
        if not loss.covers(path):
            loss.dropped(path, reason)
    return WriteResult([OutputFile(data, ".json")], loss)


def _chat(character: Character, pt: Mapping[str, Any], loss: LossReport) -> dict[str, Any]:
    faithful = pt.get("shape") == "chat"
    label = pt.get("spec") if faithful else None
    spec: Literal["v2", "v3"] = "v3" if label == "chara_card_v3" else "v2"
    card = build_card(character, spec=spec, format_id=FORMAT_ID, loss=loss)
    key = str(pt.get("wrapper") or "character") if faithful else "character"
    out: dict[str, Any] = {key: card}
    root = pt.get("wrapper_root") if faithful else None
    if isinstance(root, Mapping):
        out.update(plain(root))
    order = pt.get("wrapper_order")
    if faithful and isinstance(order, list):
        out = {k: out[k] for k in [*order, *out] if k in out}
    return out


def _textgen(character: Character, pt: Mapping[str, Any]) -> dict[str, Any]:
    body = pt.get("body") if pt.get("shape") == "textgen" else None
    w = ShapeWriter(body if isinstance(body, Mapping) else None)
    present = set(w.shape.get("order", ()))
    original = w.shape.get("pyg_original")
    read_as = w.shape.get("read_as")
    for pyg, v1, attr in PAIRS:
        value = getattr(character, attr)
        kept = original.get(pyg) if isinstance(original, Mapping) else None
        if (kept is not None and isinstance(read_as, Mapping)
                and json_equal(read_as.get(attr), value)):
            w.out[pyg] = kept
        else:
            w.put(pyg, value, conv_str, empty="", required_default="")
            if pyg not in w.out and not w.faithful:
                w.out[pyg] = value
        if v1 in present:
            w.put(v1, value, conv_str, empty="")
    if "personality" in present:
        w.put("personality", character.personality, conv_str, empty="")
    return w.finish(_PYG_KEYS)


def validate_pygmalion(input: AdapterInput) -> list[Issue]:
    """Wrapped cards: the card spec's rules; five-key JSON: string fields."""
    found = find_card(input)
    if found.wrapper is not None and found.card is not None:
        return [Issue(i.path.replace("$", f"$.{found.wrapper}", 1), i.message, i.severity)
                for i in validate_card(found.card)]
    obj = thaw(input.json) if input.json is not None else None
    if not isinstance(obj, dict):
        return [Issue("$", "not a JSON object", "error")]
    issues = []
    for key in _PYG_KEYS:
        if key not in obj:
            issues.append(Issue(f"$.{key}", f"{key} is missing"))
        elif not isinstance(obj[key], str):
            issues.append(Issue(f"$.{key}", f"{key} must be a string"))
    return issues

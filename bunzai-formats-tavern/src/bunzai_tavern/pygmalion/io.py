"""Reading and writing Pygmalion / TextGen JSON and pygmalion.chat wrappers."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, Literal

from bunzai.sdk import (
    AdapterInput,
    Issue,
    LossReport,
    MalformedInput,
    OutputFile,
    ReadResult,
    WriteResult,
    dumps_layout,
    sniff_layout,
    thaw,
)
from bunzai.sdk.cards import build_card, parse_card, validate_card
from bunzai.sdk.fields import STR, ObjectReader, ObjectWriter, same

from .._common.cards import CARD_CARRIES, find_card

if TYPE_CHECKING:
    from bunzai.sdk import Character

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
TEXTGEN_CARRIES = ("name", "description", "first_mes", "scenario", "mes_example")
"""What the five-key shape holds (and ``personality`` where the file had that V1 key)."""
CHAT_CARRIES = (*CARD_CARRIES, "!assets")
"""What a pygmalion.chat export holds: a V2 card (the codec reports what V2 lacks), no files."""


def read_pygmalion(input: AdapterInput, options: Mapping[str, Any] | None = None,
                   format_id: str = FORMAT_ID) -> ReadResult:
    """A character from the five-key JSON (V1 keys next to it win) or a card wrapper."""
    found = find_card(input)
    if found.wrapper is not None and found.card is not None:
        return _read_wrapper(input, found.wrapper)
    obj = input.json_mutable()
    if not isinstance(obj, dict) or not isinstance(obj.get("char_name"), str):
        raise MalformedInput("not a Pygmalion character (no char_name)")
    from bunzai.sdk import Character

    warnings: list[Issue] = []
    r = ObjectReader(obj, "$", warnings, owned=True)
    values: dict[str, Any] = {}
    pyg_original: dict[str, Any] = {}
    for pyg, v1, attr in PAIRS:
        pyg_value = r.get(pyg, STR, "")
        if v1 in obj:
            v1_value = r.get(v1, STR, "")
            values[attr] = v1_value
            if pyg in obj and pyg_value != v1_value:
                pyg_original[pyg] = thaw(obj[pyg])
                warnings.append(Issue(f"$.{pyg}", f"{pyg} differs from {v1}; {v1} is read "
                                      "(both key sets present)"))
        else:
            values[attr] = pyg_value
    if "personality" in obj:
        values["personality"] = r.get("personality", STR, "")
    if pyg_original:
        r.layout["pyg_original"] = pyg_original  # a stale copy no app reads
        r.layout["read_as"] = {attr: values[attr] for _, _, attr in PAIRS}
    _, body, data = r.finish(_PYG_KEYS)
    body["order"] = list(obj)  # which keys the file had: a rewrite keeps its set of keys
    character = Character(**values)
    character.passthrough[FORMAT_ID] = {"shape": "textgen", "body": body,
                                        "json": sniff_layout(input.data, 4)}
    if data:
        character.app_data[FORMAT_ID] = data
    return ReadResult([character], warnings)


def _read_wrapper(input: AdapterInput, key: str) -> ReadResult:
    obj = input.json_mutable()
    warnings: list[Issue] = []
    character = parse_card(obj[key], format_id=FORMAT_ID, warnings=warnings)
    layout = character.passthrough[FORMAT_ID]
    layout["shape"] = "chat"
    layout["wrapper"] = key
    layout["wrapper_order"] = list(obj)
    layout["json"] = sniff_layout(input.data, 4)
    around = {k: v for k, v in obj.items() if k != key}
    if around:  # the export's own keys beside the card
        character.app_data.setdefault(FORMAT_ID, {}).update(
            {f"export.{k}": v for k, v in around.items()})
    prefixed = [Issue(i.path.replace("$", f"$.{key}", 1), i.message, i.severity)
                for i in warnings]
    return ReadResult([character], prefixed)


def write_pygmalion(character: Character, options: Mapping[str, Any],
                    format_id: str = FORMAT_ID) -> WriteResult:
    raw_layout = character.passthrough.get(FORMAT_ID)
    layout: Mapping[str, Any] = raw_layout if isinstance(raw_layout, Mapping) else {}
    shape = options.get("shape") or str(layout.get("shape") or "textgen")
    loss = LossReport()
    carries: tuple[str, ...]
    if shape == "chat":
        obj = _chat(character, layout, loss)
        carries = CHAT_CARRIES
    else:
        obj, carries = _textgen(character, layout)
    data = dumps_layout(obj, layout.get("json"), 4, options)
    return WriteResult([OutputFile(data, ".json")], loss, carries=carries)


def _chat(character: Character, layout: Mapping[str, Any], loss: LossReport) -> dict[str, Any]:
    faithful = layout.get("shape") == "chat"
    label = layout.get("spec") if faithful else None
    spec: Literal["v2", "v3"] = "v3" if label == "chara_card_v3" else "v2"
    card = build_card(character, spec=spec, format_id=FORMAT_ID, loss=loss)
    key = str(layout.get("wrapper") or "character") if faithful else "character"
    out: dict[str, Any] = {key: card}
    data = character.app_data.get(FORMAT_ID) or {}
    out.update({k[7:]: thaw(v) for k, v in data.items() if k.startswith("export.")})
    order = layout.get("wrapper_order")
    if faithful and isinstance(order, list):
        out = {k: out[k] for k in [*order, *out] if k in out}
    return out


def _textgen(character: Character, layout: Mapping[str, Any]
             ) -> tuple[dict[str, Any], tuple[str, ...]]:
    body = layout.get("body") if layout.get("shape") == "textgen" else None
    data = character.app_data.get(FORMAT_ID) if body is not None else None
    w = ObjectWriter(body if isinstance(body, Mapping) else None, data)
    order = w.layout.get("order")
    present = set(order if isinstance(order, list) else ())
    original = w.layout.get("pyg_original")
    read_as = w.layout.get("read_as")
    for pyg, v1, attr in PAIRS:
        value = getattr(character, attr)
        kept = original.get(pyg) if isinstance(original, Mapping) else None
        if (kept is not None and isinstance(read_as, Mapping)
                and same(read_as.get(attr), value)):
            w.out[pyg] = kept
        else:
            w.put(pyg, value, STR, "", required="")
            if pyg not in w.out and not w.faithful:
                w.out[pyg] = value
        if v1 in present:
            w.put(v1, value, STR, "")
    carries = TEXTGEN_CARRIES
    if "personality" in present:
        w.put("personality", character.personality, STR, "")
        carries = (*carries, "personality")
    return w.finish(_PYG_KEYS), carries


def validate_pygmalion(input: AdapterInput, entities: Any = (),
                       format_id: str = FORMAT_ID) -> list[Issue]:
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

"""KoboldAI Lite's generation settings (``savedsettings`` of a save), key by key.

Lite saves its whole settings object in a save (``generate_savefile`` in ``index.html``:
``savedsettings`` is a copy of ``localsettings`` with the API keys blanked) and loads a file's
``savedsettings`` over its own (``kai_json_load``: ``import_props_into_object``).  A file holding
only ``savedsettings`` is accepted by that loader: it has no ``actions``, so Lite takes it for a
share file with an empty story and imports the settings.  That is what the writer writes.

Dynamic temperature is ``dynatemp_range`` around ``temperature`` (Lite's panel shows
``temperature - range`` to ``temperature + range``): read as ``dynatemp_low`` and
``dynatemp_high``; a low-high pair not centred on the temperature is written as the nearest
range, with both values reported.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from bunzai.sdk import (
    Issue,
    LossReport,
    MalformedInput,
    OutputFile,
    ReadResult,
    WriteResult,
    dumps_layout,
)
from bunzai.sdk.fields import Bad, Conv, Table, is_int, type_name

from .._common.stpresets import (
    KOBOLD_ORDER,
    STRS,
    json_record,
    one_preset,
    read_object,
    section,
    write_object,
)

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput

SEP = "||$||"


def _stops(x: Any) -> list[str]:
    if not isinstance(x, str):
        raise Bad(f"expected stop sequences joined by ||$||, got {type_name(x)}")
    return [s for s in x.replace("\\n", "\n").split(SEP) if s]


STOPS = Conv("stop sequences joined by ||$|| (newlines as \\n)", _stops,
             lambda v: SEP.join(s.replace("\n", "\\n") for s in v))
"""``extrastopseq``: Lite splits it at ``||$||`` after turning ``\\n`` into newlines."""


SETTINGS = Table((
    *section(
        "sampling", max_context="max_context_length", max_tokens="max_length",
        repetition_penalty="rep_pen", repetition_penalty_range="rep_pen_range",
        repetition_penalty_slope="rep_pen_slope", temperature="temperature",
        dynatemp_exponent="dynatemp_exponent", smoothing_factor="smoothing_factor",
        smoothing_curve="smoothing_curve", top_n_sigma="nsigma", top_p="top_p", min_p="min_p",
        presence_penalty="presence_penalty", seed="sampler_seed", top_k="top_k", top_a="top_a",
        typical_p="typ_s", tfs="tfs_s", mirostat_mode="miro_type", mirostat_tau="miro_tau",
        mirostat_eta="miro_eta", dry_multiplier="dry_multiplier", dry_base="dry_base",
        dry_allowed_length="dry_allowed_length",
        dry_sequence_breakers=("dry_sequence_breakers", STRS), xtc_threshold="xtc_threshold",
        xtc_probability="xtc_probability", sampler_order=("sampler_order", KOBOLD_ORDER),
        guidance_scale="guidance_scale", grammar="grammar", stop_strings=("extrastopseq", STOPS),
    ),
    *section(
        "instruct", user_prefix="instruct_starttag", assistant_prefix="instruct_endtag",
        system_prompt_prefix="instruct_systag", user_suffix="instruct_starttag_end",
        assistant_suffix="instruct_endtag_end", system_prompt_suffix="instruct_systag_end",
    ),
    *section("system_prompt", content="instruct_sysprompt"),
    *section("reasoning", prefix="start_thinking_tag", suffix="stop_thinking_tag"),
))
"""The settings the model has a field for; every other key of ``savedsettings`` (interface,
image and speech settings, Lite's modes) is app data."""

CARRIED = (*SETTINGS.attrs(), "sampling.dynamic_temperature", "sampling.dynatemp_low",
           "sampling.dynatemp_high")


def _r(x: float) -> float | int:
    got = round(x, 6)
    return int(got) if float(got).is_integer() and isinstance(x, int) else got


def read_settings(input: AdapterInput, options: Mapping[str, Any], format_id: str) -> ReadResult:
    where = input.filename or "save"
    doc: Any = input.json_mutable()
    if not isinstance(doc, dict) or not isinstance(doc.get("savedsettings"), dict):
        raise MalformedInput(f"{where}: expected an object with a savedsettings object")
    warnings: list[Issue] = []
    if "prompt" in doc or "actions" in doc:
        warnings.append(Issue("$", "this save also holds a story: only its settings are read "
                                   "here (read the story with koboldai-lite)"))
    obj = doc["savedsettings"]
    values, layout, data = read_object(obj, SETTINGS, "$.savedsettings", warnings,
                                       skip=("dynatemp_range",))
    rng = obj.get("dynatemp_range")
    if "dynatemp_range" in obj:
        temp = obj.get("temperature")
        if not (isinstance(rng, int | float) and not isinstance(rng, bool)):
            warnings.append(Issue("$.savedsettings.dynatemp_range",
                                  f"expected a number, got {type_name(rng)}: kept as it is"))
            data["dynatemp_range"] = rng
        elif rng and isinstance(temp, int | float):
            values.setdefault("sampling", {}).update(
                dynamic_temperature=True, dynatemp_low=_r(temp - rng),
                dynatemp_high=_r(temp + rng))
        else:
            values.setdefault("sampling", {})["dynamic_temperature"] = False
    record = json_record(input, None, table=layout, order=list(obj), keys=list(doc))
    return one_preset(values, record, data, format_id, warnings)


def _range(entity: Any, loss: LossReport) -> float | int | None:
    s = entity.sampling
    if s.dynamic_temperature is None:
        return None
    if not s.dynamic_temperature:
        return 0
    low, high, temp = s.dynatemp_low, s.dynatemp_high, s.temperature
    if low is None or high is None:
        loss.approximated("sampling.dynamic_temperature", "Lite's dynamic temperature is a "
                          "range around the temperature: without its low and high it is "
                          "written off")
        return 0
    rng = _r((high - low) / 2)
    centre = _r((high + low) / 2)
    if temp is None or centre != temp:
        base = temp if temp is not None else 1
        got_low, got_high = _r(base - rng), _r(base + rng)
        for path, want, got in (("sampling.dynatemp_low", low, got_low),
                                ("sampling.dynatemp_high", high, got_high)):
            if want != got:
                loss.approximated(path, f"Lite's range is centred on the temperature {base}: "
                                        f"{low}–{high} written as {base} ± {rng}, that is "
                                        f"{got_low}–{got_high}")
    if is_int(high) and is_int(low) and float(rng).is_integer():
        return int(rng)
    return rng


def write_settings(entity: Any, options: Mapping[str, Any], format_id: str) -> WriteResult:
    rec = entity.passthrough.get(format_id) or {}
    data = dict(entity.app_data.get(format_id) or {})
    loss = LossReport()
    tail: dict[str, Any] = {}
    rng = _range(entity, loss)
    if rng is not None:
        tail["dynatemp_range"] = rng
    elif "dynatemp_range" in data:
        tail["dynatemp_range"] = data.pop("dynatemp_range")
    obj = write_object(entity, SETTINGS, rec.get("table"), data, loss, tail=tail)
    order = rec.get("order") if isinstance(rec.get("order"), list) else []
    obj = {**{k: obj[k] for k in order if k in obj},
           **{k: v for k, v in obj.items() if k not in order}}
    text = dumps_layout({"savedsettings": obj}, rec.get("json"), None, options)
    return WriteResult([OutputFile(text, ".json")], loss)

"""text-generation-webui sampler presets (``user_data/presets/<name>.yaml``), key by key.

The app loads a preset over its defaults (``modules/presets.py``: ``default_preset_values``,
``load_preset``) and saves only the values that differ from them (``generate_preset_yaml``:
``yaml.dump(data, sort_keys=False)``).  So a key that is missing means the app's default, which
the reader leaves unsaid (another app has other defaults); keys this table does not name are the
preset's app data and come back in place.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from bunzai.sdk import Issue, LossReport, OutputFile, ReadResult, WriteResult
from bunzai.sdk.fields import BOOL, NUM, Bad, Conv, Table, field, type_name

from .._common import yamlio
from .._common.stpresets import WHOLE, one_preset, read_object, write_object

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput

_RENAMES = {"quadratic_sampling": "smoothing"}
_BACK = {v: k for k, v in _RENAMES.items()}


def _priority(x: Any) -> list[str]:
    if isinstance(x, list) and all(isinstance(i, str) for i in x):
        items = x
    elif isinstance(x, str):
        items = [line.strip() for line in x.split("\n") if line.strip()]
    else:
        raise Bad(f"expected sampler names one per line, got {type_name(x)}")
    return [_RENAMES.get(n, n) for n in items]


PRIORITY = Conv("sampler names, one per line", _priority,
                lambda v: "\n".join(_BACK.get(n, n) for n in v))
"""``sampler_priority``: the order the app applies its samplers (``sampler_hijack.py``), one
name per line; ``quadratic_sampling`` is the canonical ``smoothing``."""


def _breakers(x: Any) -> list[str]:
    if not isinstance(x, str):
        raise Bad(f"expected quoted strings separated by commas, got {type_name(x)}")
    text = x if x.strip().startswith("[") else f"[{x}]"
    try:
        got = json.loads(text)
    except ValueError as exc:
        raise Bad("not a list of JSON strings") from exc
    if not isinstance(got, list) or not all(isinstance(i, str) for i in got):
        raise Bad("not a list of JSON strings")
    return got


BREAKERS = Conv("JSON strings separated by commas", _breakers,
                lambda v: ", ".join(json.dumps(s, ensure_ascii=False) for s in v))
"""``dry_sequence_breakers``: JSON strings without the brackets (the app adds them)."""

S = "sampling."


def _f(attr: str, key: str, conv: Conv = NUM) -> Any:
    return field(attr, (key, conv))


PRESET = Table((
    _f(S + "temperature", "temperature"),
    _f(S + "dynatemp_low", "dynatemp_low"),
    _f(S + "dynatemp_high", "dynatemp_high"),
    _f(S + "dynatemp_exponent", "dynatemp_exponent"),
    _f(S + "smoothing_factor", "smoothing_factor"),
    _f(S + "smoothing_curve", "smoothing_curve"),
    _f(S + "top_p", "top_p"),
    _f(S + "top_k", "top_k", WHOLE),
    _f(S + "min_p", "min_p"),
    _f(S + "top_n_sigma", "top_n_sigma"),
    _f(S + "typical_p", "typical_p"),
    _f(S + "xtc_threshold", "xtc_threshold"),
    _f(S + "xtc_probability", "xtc_probability"),
    _f(S + "epsilon_cutoff", "epsilon_cutoff"),
    _f(S + "eta_cutoff", "eta_cutoff"),
    _f(S + "tfs", "tfs"),
    _f(S + "top_a", "top_a"),
    _f(S + "dry_multiplier", "dry_multiplier"),
    _f(S + "dry_allowed_length", "dry_allowed_length", WHOLE),
    _f(S + "dry_base", "dry_base"),
    _f(S + "repetition_penalty", "repetition_penalty"),
    _f(S + "frequency_penalty", "frequency_penalty"),
    _f(S + "presence_penalty", "presence_penalty"),
    _f(S + "encoder_repetition_penalty", "encoder_repetition_penalty"),
    _f(S + "no_repeat_ngram_size", "no_repeat_ngram_size", WHOLE),
    _f(S + "repetition_penalty_range", "repetition_penalty_range", WHOLE),
    _f(S + "penalty_alpha", "penalty_alpha"),
    _f(S + "guidance_scale", "guidance_scale"),
    _f(S + "mirostat_mode", "mirostat_mode", WHOLE),
    _f(S + "mirostat_tau", "mirostat_tau"),
    _f(S + "mirostat_eta", "mirostat_eta"),
    _f(S + "do_sample", "do_sample", BOOL),
    _f(S + "dynamic_temperature", "dynamic_temperature", BOOL),
    _f(S + "temperature_last", "temperature_last", BOOL),
    _f(S + "sampler_order", "sampler_priority", PRIORITY),
    _f(S + "dry_sequence_breakers", "dry_sequence_breakers", BREAKERS),
))
"""The keys of ``default_preset_values`` the model has a field for (``adaptive_target`` and
``adaptive_decay`` have none: app data)."""


def read_preset(input: AdapterInput, options: Mapping[str, Any], format_id: str) -> ReadResult:
    where = input.filename or "preset"
    obj, yaml_layout = yamlio.load(input.data, where)
    warnings: list[Issue] = []
    values, layout, data = read_object(obj, PRESET, "$", warnings)
    return one_preset(values, {"table": layout, "yaml": yaml_layout}, data, format_id, warnings)


def write_preset(entity: Any, options: Mapping[str, Any], format_id: str) -> WriteResult:
    rec = entity.passthrough.get(format_id) or {}
    data = entity.app_data.get(format_id) or {}
    loss = LossReport()
    obj = write_object(entity, PRESET, rec.get("table"), data, loss)
    text = yamlio.dump(obj, rec.get("yaml"))
    return WriteResult([OutputFile(text.encode(), ".yaml")], loss)

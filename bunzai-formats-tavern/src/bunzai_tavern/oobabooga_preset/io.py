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
from bunzai.sdk.fields import Bad, Conv, Table, type_name

from .._common import yamlio
from .._common.stpresets import (
    TEXTGEN_RENAMES,
    json_strings,
    one_preset,
    read_object,
    section,
    write_object,
)

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput

_BACK = {v: k for k, v in TEXTGEN_RENAMES.items()}


def _priority(x: Any) -> list[str]:
    if isinstance(x, list) and all(isinstance(i, str) for i in x):
        items = x
    elif isinstance(x, str):
        items = [line.strip() for line in x.split("\n") if line.strip()]
    else:
        raise Bad(f"expected sampler names one per line, got {type_name(x)}")
    return [TEXTGEN_RENAMES.get(n, n) for n in items]


PRIORITY = Conv("sampler names, one per line", _priority,
                lambda v: "\n".join(_BACK.get(n, n) for n in v))
"""``sampler_priority``: the order the app applies its samplers (``sampler_hijack.py``), one
name per line; ``quadratic_sampling`` is the canonical ``smoothing``."""


def _breakers(x: Any) -> list[str]:
    if not isinstance(x, str):
        raise Bad(f"expected quoted strings separated by commas, got {type_name(x)}")
    return json_strings(x if x.strip().startswith("[") else f"[{x}]", "a list of JSON strings")


BREAKERS = Conv("JSON strings separated by commas", _breakers,
                lambda v: ", ".join(json.dumps(s, ensure_ascii=False) for s in v))
"""``dry_sequence_breakers``: JSON strings without the brackets (the app adds them)."""

PRESET = Table((
    *section(
        "sampling", "temperature", "dynatemp_low", "dynatemp_high", "dynatemp_exponent",
        "smoothing_factor", "smoothing_curve", "top_p", "top_k", "min_p", "top_n_sigma",
        "typical_p", "xtc_threshold", "xtc_probability", "epsilon_cutoff", "eta_cutoff", "tfs",
        "top_a", "dry_multiplier", "dry_allowed_length", "dry_base", "repetition_penalty",
        "frequency_penalty", "presence_penalty", "encoder_repetition_penalty",
        "no_repeat_ngram_size", "repetition_penalty_range", "penalty_alpha", "guidance_scale",
        "mirostat_mode", "mirostat_tau", "mirostat_eta", "do_sample", "dynamic_temperature",
        "temperature_last", sampler_order=("sampler_priority", PRIORITY),
        dry_sequence_breakers=("dry_sequence_breakers", BREAKERS),
    ),
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

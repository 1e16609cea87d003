"""``oobabooga-preset``: text-generation-webui sampler presets (``presets/<name>.yaml``).

Reading and writing are in ``io.py`` (one field table); this module holds detection: a YAML
mapping whose keys are all the app's preset parameters.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from bunzai.sdk import Detection, FormatAdapter

from .._common.stpreset_adapter import reasons_for

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput

PARAMS = frozenset((
    "temperature", "dynatemp_low", "dynatemp_high", "dynatemp_exponent", "smoothing_factor",
    "smoothing_curve", "top_p", "top_k", "min_p", "top_n_sigma", "typical_p", "xtc_threshold",
    "xtc_probability", "epsilon_cutoff", "eta_cutoff", "tfs", "top_a", "adaptive_target",
    "adaptive_decay", "dry_multiplier", "dry_allowed_length", "dry_base", "repetition_penalty",
    "frequency_penalty", "presence_penalty", "encoder_repetition_penalty",
    "no_repeat_ngram_size", "repetition_penalty_range", "penalty_alpha", "guidance_scale",
    "mirostat_mode", "mirostat_tau", "mirostat_eta", "do_sample", "dynamic_temperature",
    "temperature_last", "sampler_priority", "dry_sequence_breakers",
))
"""The keys of text-generation-webui's ``default_preset_values`` (``modules/presets.py``)."""

_KEY = re.compile(rb"^([a-z_]+):", re.M)


def score(input: AdapterInput) -> tuple[float, str]:
    """A small YAML text whose top-level keys are all preset parameters."""
    if input.suffix not in ("", ".yaml", ".yml") or input.size > 65536:
        return 0.0, ""
    data = input.data
    if input.container == "json":  # the app saves a preset of defaults only as {}
        if input.suffix and data.strip() == b"{}":
            return 0.31, "text-generation-webui sampler preset of defaults only ({})"
        return 0.0, ""
    if input.container != "text":
        return 0.0, ""
    keys = {k.decode() for k in _KEY.findall(data)}
    if not keys or not keys <= PARAMS or b"\t" in data.split(b"\n", 1)[0]:
        return 0.0, ""
    return 0.87, "text-generation-webui sampler preset (YAML of preset parameters)"


class OobaboogaPresetAdapter(FormatAdapter):
    """text-generation-webui sampler preset."""

    format_id = "oobabooga-preset"
    kind = "preset"
    label = "text-generation-webui sampler preset"
    suffix = ".yaml"
    aliases = ("ooba-preset", "textgen-webui-preset")
    signature = {"text": (), "json": ("{}",)}
    detection = (("YAML whose top-level keys are all text-generation-webui preset "
                  "parameters", 0.87),
                 ("{} in a .yaml file (the app's save of a preset of defaults)", 0.31))
    reasons = reasons_for("a text-generation-webui sampler preset", ("sampling",))
    reader = "io:read_preset"
    writer = "io:write_preset"

    def detect(self, input: AdapterInput) -> Detection:
        s, why = score(input)
        return Detection(s, why)


def _carried() -> tuple[str, ...]:
    from .io import PRESET

    return PRESET.attrs()


OobaboogaPresetAdapter.carries = _carried()

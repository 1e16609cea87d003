"""Neutral values of preset fields: what a sampler or template switch holds when it is off.

A sampler at its neutral value does nothing (top-p 1, top-k 0, a repetition penalty of 1), so
a target without that sampler loses nothing by dropping it; its tuning values (mirostat tau, DRY
base) mean nothing while the sampler is off.  Kept apart from the pydantic model so the loss rule
can read them without building it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

Rule = tuple[Any, ...] | Callable[[Any, Any], bool]


def _off_unless(switch: str, *off: Any) -> Callable[[Any, Any], bool]:
    """Neutral while ``switch`` on the same section is None or one of ``off``."""
    def rule(value: Any, owner: Any) -> bool:
        return getattr(owner, switch, None) in (None, *off)
    return rule


_S = "sampling."
PRESET_RULES: dict[str, Rule] = {
    f"{_S}temperature": (1,),
    f"{_S}top_k": (0,),
    f"{_S}top_p": (1,),
    f"{_S}top_a": (0,),
    f"{_S}min_p": (0,),
    f"{_S}typical_p": (1,),
    f"{_S}tfs": (1,),
    f"{_S}epsilon_cutoff": (0,),
    f"{_S}eta_cutoff": (0,),
    f"{_S}top_n_sigma": (0,),
    f"{_S}repetition_penalty": (1,),
    f"{_S}repetition_penalty_range": _off_unless("repetition_penalty", 1),
    f"{_S}repetition_penalty_slope": _off_unless("repetition_penalty", 1),
    f"{_S}repetition_penalty_decay": (0,),
    f"{_S}presence_penalty": (0,),
    f"{_S}frequency_penalty": (0,),
    f"{_S}encoder_repetition_penalty": (1,),
    f"{_S}no_repeat_ngram_size": (0,),
    f"{_S}mirostat_mode": (0,),
    f"{_S}mirostat_tau": _off_unless("mirostat_mode", 0),
    f"{_S}mirostat_eta": _off_unless("mirostat_mode", 0),
    f"{_S}dry_multiplier": (0,),
    f"{_S}dry_base": _off_unless("dry_multiplier", 0),
    f"{_S}dry_allowed_length": _off_unless("dry_multiplier", 0),
    f"{_S}dry_penalty_last_n": _off_unless("dry_multiplier", 0),
    f"{_S}dry_sequence_breakers": _off_unless("dry_multiplier", 0),
    f"{_S}xtc_probability": (0,),
    f"{_S}xtc_threshold": _off_unless("xtc_probability", 0),
    f"{_S}dynamic_temperature": (False,),
    f"{_S}dynatemp_low": _off_unless("dynamic_temperature", False),
    f"{_S}dynatemp_high": _off_unless("dynamic_temperature", False),
    f"{_S}dynatemp_exponent": _off_unless("dynamic_temperature", False),
    f"{_S}smoothing_factor": (0,),
    f"{_S}smoothing_curve": _off_unless("smoothing_factor", 0),
    f"{_S}ban_eos_token": (False,),
    f"{_S}guidance_scale": (1,),
    f"{_S}negative_prompt": _off_unless("guidance_scale", 1),
    f"{_S}penalty_alpha": (0,),
    f"{_S}num_beams": (1,),
    f"{_S}length_penalty": _off_unless("num_beams", 1),
    f"{_S}early_stopping": _off_unless("num_beams", 1),
    f"{_S}seed": (-1,),
    f"{_S}do_sample": (True,),
    f"{_S}add_bos_token": (True,),
    f"{_S}skip_special_tokens": (True,),
    f"{_S}min_tokens": (0,),
    f"{_S}json_schema": ({},),
    "instruct.macros": (True,),
    "instruct.system_same_as_user": (False,),
    "instruct.skip_examples": (False,),
    "instruct.sequences_as_stop_strings": (False,),
    "instruct.bind_to_context": (False,),
    "context.use_stop_strings": (False,),
    "context.names_as_stop_strings": (False,),
    "context.trim_sentences": (False,),
    "context.single_line": (False,),
    "context.allow_jailbreak": (False,),
    "context.story_string_position": (0,),
    "context.story_string_depth": _off_unless("story_string_position", 0),
    "context.story_string_role": _off_unless("story_string_position", 0),
    "chat_completion.prompts[*].passthrough": lambda v, o: True,
    "names": lambda v, o: True,
}
"""Pattern (relative to the preset) -> neutral values or rule."""

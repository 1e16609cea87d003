"""SillyTavern's preset and template files, key by key, for every preset format of this package.

Each SillyTavern file is one flat JSON object; a field table per file kind maps its keys to the
preset's canonical paths (``sampling.temperature``), so reading and writing are the same two
functions for all of them.  A value is converted as its canonical type says (a count, a
switch, a text: :func:`canonical_conv`), so a table names a converter only for a value the app
keeps in its own form.  The tables follow the keys SillyTavern saves (its preset manager
writes the settings object it holds), newer keys included; keys a table does not name are the
preset's app data and come back in place.

A writer that converts a value into the target's terms (a sampler order the target cannot list
whole, a whole number where the canonical value has a fraction) reads its own object back with
the table's mapping and reports every value that changed, old and new.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING, Any

from bunzai.sdk import Issue, LossReport, MalformedInput, ReadResult, sniff_layout
from bunzai.sdk.fields import (
    BOOL,
    INT,
    NUM,
    STR,
    Bad,
    Conv,
    Table,
    Unrepresentable,
    field,
    is_int,
    jcopy,
    same,
    type_name,
)

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput

# -- converters ---------------------------------------------------------------------------------


def _anylist(x: Any) -> list[Any]:
    if isinstance(x, list):
        return jcopy(x)  # type: ignore[no-any-return]
    raise Bad(f"expected a list, got {type_name(x)}")


ANYLIST = Conv("a list", _anylist)
ANY = Conv("any JSON value", jcopy, jcopy)


def json_strings(text: str, what: str) -> list[str]:
    """``text`` parsed as a JSON array of strings; :class:`Bad` saying it is not ``what``."""
    try:
        got = json.loads(text)
    except ValueError as exc:
        raise Bad(f"not {what}") from exc
    if not isinstance(got, list) or not all(isinstance(i, str) for i in got):
        raise Bad(f"not {what}")
    return got


def _json_strlist(x: Any) -> list[str]:
    if not isinstance(x, str):
        raise Bad(f"expected a JSON array in a string, got {type_name(x)}")
    return json_strings(x, "a JSON array of strings") if x.strip() else []


JSON_STRLIST = Conv("a JSON array of strings in a string", _json_strlist,
                    lambda v: json.dumps(v, ensure_ascii=False))
"""SillyTavern keeps DRY's sequence breakers as the JSON text the user typed."""


def _lines(x: Any) -> list[str]:
    if not isinstance(x, str):
        raise Bad(f"expected text, got {type_name(x)}")
    return [line for line in x.split("\n") if line.strip()]


LINES = Conv("one item per line", _lines, lambda v: "\n".join(v))
"""Banned tokens and strings, one per line (SillyTavern's textarea)."""


def _strs(x: Any) -> list[str]:
    if isinstance(x, list) and all(isinstance(i, str) for i in x):
        return list(x)
    raise Bad(f"expected a list of strings, got {type_name(x)}")


STRS = Conv("a list of strings", _strs, list)


def order_conv(codes: Mapping[Any, str], what: str, *, complete: bool = False) -> Conv:
    """A sampler order written as the app's codes (Kobold's 0..6, NovelAI's ids), read as
    canonical sampler names; a name the app has no code for is left out on write, and with
    ``complete`` the app's samplers the order does not name are added at its end (KoboldCpp
    wants every one of its seven in the list)."""
    back = {v: k for k, v in codes.items()}

    def canon(x: Any) -> list[str]:
        if not isinstance(x, list):
            raise Bad(f"expected a list of {what} sampler ids, got {type_name(x)}")
        out = []
        for item in x:
            key = item if isinstance(item, int | str) and not isinstance(item, bool) else None
            if key is None or key not in codes:
                raise Bad(f"{item!r} is not a {what} sampler id")
            out.append(codes[key])
        return out

    def source(v: Any) -> list[Any]:
        got = [back[n] for n in v if n in back]
        if complete:
            got += [c for c in codes if c not in got]
        if v and not got:
            raise Unrepresentable(f"{what} has none of these samplers: {', '.join(v)}")
        return got

    return Conv(f"a {what} sampler order", canon, source)


def names_conv(renames: Mapping[str, str]) -> Conv:
    """A sampler order of names where the app spells a few differently."""
    back = {v: k for k, v in renames.items()}
    return Conv("a list of sampler names",
                lambda x: [renames.get(n, n) for n in _strs(x)],
                lambda v: [back.get(n, n) for n in v])


def whole(x: Any) -> int:
    if is_int(x):
        return x  # type: ignore[no-any-return]
    if isinstance(x, float) and x.is_integer():
        return int(x)
    raise Bad(f"expected a whole number, got {type_name(x)}")


def _round(v: Any) -> int:
    return round(v) if isinstance(v, float) else int(v)


WHOLE = Conv("a whole number", whole, _round, is_int)
"""A count: a fraction from another app is rounded on write (and reported)."""


# -- tables -------------------------------------------------------------------------------------

def keyed(attr: str, key: str, conv: Conv = NUM, *more: str) -> Any:
    """The field for canonical ``attr`` that the file keeps under ``key`` (or, read only, one
    of the older names ``more``), its value converted by ``conv``."""
    return field(attr, *((key, conv), *((m, conv) for m in more)))


S = "sampling."
I = "instruct."  # noqa: E741
C = "context."
CC = "chat_completion."

COUNTS = frozenset({
    *(S + n for n in (
        "top_k", "repetition_penalty_range", "repetition_penalty_decay", "no_repeat_ngram_size",
        "num_beams", "min_tokens", "max_tokens", "max_context", "dry_allowed_length",
        "dry_penalty_last_n", "mirostat_mode", "seed")),
    CC + "names_behavior"})
CODES = frozenset(C + n for n in ("story_string_position", "story_string_depth",
                                   "story_string_role"))
SWITCHES = frozenset({
    *(S + n for n in (
        "temperature_last", "do_sample", "early_stopping", "dynamic_temperature",
        "add_bos_token", "ban_eos_token", "skip_special_tokens")),
    *(I + n for n in ("wrap", "macros", "skip_examples", "system_same_as_user",
                      "sequences_as_stop_strings", "bind_to_context")),
    *(C + n for n in ("use_stop_strings", "names_as_stop_strings", "allow_jailbreak",
                      "always_force_name2", "trim_sentences", "single_line")),
    *(CC + n for n in ("wrap_in_quotes", "squash_system_messages", "continue_prefill"))})
TEXTS = frozenset({S + "grammar", S + "negative_prompt"})
OWN_FORM = frozenset({
    *(S + n for n in ("dry_sequence_breakers", "json_schema", "banned_tokens", "sampler_order",
                      "logit_bias", "stop_strings")),
    CC + "prompts", CC + "prompt_order"})
"""The preset's values by canonical type (the model's sections): whole numbers, codes (a
whole number also read from text), switches, the texts among the samplers, and the lists and
JSON values every app spells its own way.  Any other sampling value is a number, any other
value of another section a text."""


def canonical_conv(attr: str) -> Conv:
    """The converter of the canonical value ``attr`` (``sampling.top_k``) by its type (see
    :data:`COUNTS`); a value in an app's own form has none (its table names the converter)."""
    if attr in OWN_FORM:
        raise TypeError(f"{attr} is kept in each app's own form: name its converter")
    for kind, conv in ((COUNTS, WHOLE), (CODES, INT), (SWITCHES, BOOL)):
        if attr in kind:
            return conv
    return NUM if attr.startswith(S) and attr not in TEXTS else STR


def section(name: str, *same: str, **keys: str | tuple[Any, ...]) -> tuple[Any, ...]:
    """The fields of the preset's section ``name`` (``sampling``), in the order given: the
    file's key is the attribute's own name for ``same`` and the value for ``keys``; a value is
    converted as :func:`canonical_conv` says, unless the key comes with the converter of the
    app's own form (``dry_sequence_breakers=("dry_sequence_breakers", JSON_STRLIST)``) and
    maybe older names read too (as :func:`keyed` takes them)."""
    spelled = {**{n: n for n in same}, **keys}
    return tuple(keyed(attr, *(k if isinstance(k, tuple) else (k, canonical_conv(attr))))
                 for attr, k in ((f"{name}.{n}", k) for n, k in spelled.items()))


INSTRUCT = Table((
    *section(
        "instruct", user_prefix="input_sequence", assistant_prefix="output_sequence",
        last_assistant_prefix="last_output_sequence", system_prefix="system_sequence",
        stop_sequence="stop_sequence", wrap="wrap", macros="macro",
        names_behavior="names_behavior", activation_regex="activation_regex",
        system_prompt_prefix="system_sequence_prefix",
        system_prompt_suffix="system_sequence_suffix",
        first_assistant_prefix="first_output_sequence", skip_examples="skip_examples",
        assistant_suffix=("output_suffix", STR, "separator_sequence"), user_suffix="input_suffix",
        system_suffix="system_suffix", user_alignment_message="user_alignment_message",
        system_same_as_user="system_same_as_user", last_system_prefix="last_system_sequence",
        first_user_prefix="first_input_sequence", last_user_prefix="last_input_sequence",
        story_string_prefix="story_string_prefix", story_string_suffix="story_string_suffix",
        sequences_as_stop_strings="sequences_as_stop_strings", bind_to_context="bind_to_context",
    ),
    keyed("name", "name", STR),
))
"""An instruct template (``instruct/<name>.json``; ``separator_sequence`` is the name
SillyTavern's migration renames to ``output_suffix``)."""

CONTEXT = Table((
    *section(
        "context", "story_string", "example_separator", "chat_start", "use_stop_strings",
        "names_as_stop_strings", "allow_jailbreak", "always_force_name2", "trim_sentences",
        "single_line", "story_string_position", "story_string_depth", "story_string_role",
    ),
    keyed("name", "name", STR),
))

SYSPROMPT = Table((
    keyed("name", "name", STR),
    *section("system_prompt", "content", "post_history"),
))

REASONING = Table((
    keyed("name", "name", STR),
    *section("reasoning", "prefix", "suffix", "separator"),
))

TEXTGEN_RENAMES = {"quadratic_sampling": "smoothing"}
"""text-generation-webui's sampler names: canonical names but for quadratic sampling."""

TEXTGEN_PRIORITY = names_conv(TEXTGEN_RENAMES)

TEXTGEN = Table((
    *section(
        "sampling", temperature="temp", temperature_last="temperature_last", top_p="top_p",
        top_k="top_k", top_a="top_a", tfs="tfs", epsilon_cutoff="epsilon_cutoff",
        eta_cutoff="eta_cutoff", typical_p="typical_p", min_p="min_p",
        repetition_penalty="rep_pen", repetition_penalty_range="rep_pen_range",
        repetition_penalty_decay="rep_pen_decay", repetition_penalty_slope="rep_pen_slope",
        no_repeat_ngram_size="no_repeat_ngram_size", penalty_alpha="penalty_alpha",
        num_beams="num_beams", length_penalty="length_penalty", min_tokens="min_length",
        encoder_repetition_penalty="encoder_rep_pen", frequency_penalty="freq_pen",
        presence_penalty="presence_pen", do_sample="do_sample", early_stopping="early_stopping",
        dynamic_temperature="dynatemp", dynatemp_low="min_temp", dynatemp_high="max_temp",
        dynatemp_exponent="dynatemp_exponent", smoothing_factor="smoothing_factor",
        smoothing_curve="smoothing_curve", dry_allowed_length="dry_allowed_length",
        dry_multiplier="dry_multiplier", dry_base="dry_base",
        dry_sequence_breakers=("dry_sequence_breakers", JSON_STRLIST),
        dry_penalty_last_n="dry_penalty_last_n", add_bos_token="add_bos_token",
        ban_eos_token="ban_eos_token", skip_special_tokens="skip_special_tokens",
        mirostat_mode="mirostat_mode", mirostat_tau="mirostat_tau", mirostat_eta="mirostat_eta",
        guidance_scale="guidance_scale", negative_prompt="negative_prompt",
        grammar="grammar_string", json_schema=("json_schema", ANY),
        banned_tokens=("banned_tokens", LINES),
        sampler_order=("sampler_priority", TEXTGEN_PRIORITY), logit_bias=("logit_bias", ANYLIST),
        xtc_threshold="xtc_threshold", xtc_probability="xtc_probability", top_n_sigma="nsigma",
        seed="seed", max_tokens="genamt", max_context="max_length",
    ),
    keyed("name", "name", STR),
))
"""A text-completion preset for text-generation-webui and the other text-generation APIs
(``TextGen Settings/<name>.json``).  Its ``samplers`` (llama.cpp's order) and numeric
``sampler_order`` (koboldcpp's) are kept as app data: ``sampler_priority`` is the order
text-generation-webui applies."""

KOBOLD_ORDER = order_conv({0: "top_k", 1: "top_a", 2: "top_p", 3: "tfs", 4: "typical_p",
                           5: "temperature", 6: "repetition_penalty"}, "KoboldAI",
                          complete=True)
"""KoboldAI's sampler ids (SillyTavern's kobold_order list: 2 is Top P & Min P)."""

KOBOLD = Table((
    *section(
        "sampling", temperature="temp", repetition_penalty="rep_pen",
        repetition_penalty_range="rep_pen_range", top_p="top_p", min_p="min_p", top_a="top_a",
        top_k="top_k", typical_p="typical", tfs="tfs", repetition_penalty_slope="rep_pen_slope",
        sampler_order=("sampler_order", KOBOLD_ORDER), mirostat_mode="mirostat",
        mirostat_tau="mirostat_tau", mirostat_eta="mirostat_eta", grammar="grammar", seed="seed",
        ban_eos_token="use_default_badwordsids", max_tokens="genamt", max_context="max_length",
    ),
    keyed("name", "name", STR),
))
"""A KoboldAI preset (``KoboldAI Settings/<name>.json``)."""

NOVEL_ORDER = order_conv({0: "temperature", 1: "top_k", 2: "top_p", 3: "tfs", 4: "top_a",
                          5: "typical_p", 8: "mirostat", 9: "unified", 10: "min_p"}, "NovelAI")
"""NovelAI's sampler ids (nai-settings.js ``samplers``; 6 and 7 were removed)."""

NOVEL = Table((
    *section(
        "sampling", "max_context", "temperature", max_tokens="max_length",
        min_tokens="min_length", top_k="top_k", top_p="top_p", top_a="top_a",
        typical_p="typical_p", tfs="tail_free_sampling", repetition_penalty="repetition_penalty",
        repetition_penalty_range="repetition_penalty_range",
        repetition_penalty_slope="repetition_penalty_slope",
        frequency_penalty="repetition_penalty_frequency",
        presence_penalty="repetition_penalty_presence", mirostat_eta="mirostat_lr",
        mirostat_tau="mirostat_tau", min_p="min_p", sampler_order=("order", NOVEL_ORDER),
    ),
    keyed("name", "name", STR),
))
"""A NovelAI preset (``NovelAI Settings/<name>.json``); its unified sampling (``math1_*``),
phrase repetition penalty and prefix are NovelAI's own and stay its app data."""

OPENAI = Table((
    *section(
        "sampling", "temperature", "frequency_penalty", "presence_penalty", "top_p", "top_k",
        "top_a", "min_p", "repetition_penalty", max_context="openai_max_context",
        max_tokens="openai_max_tokens", seed="seed",
    ),
    *section(
        "chat_completion", "wrap_in_quotes", "names_behavior", "send_if_empty",
        "impersonation_prompt", "new_chat_prompt", "new_group_chat_prompt",
        "new_example_chat_prompt", "continue_nudge_prompt", world_info_format="wi_format",
        scenario_format="scenario_format", personality_format="personality_format",
        group_nudge_prompt="group_nudge_prompt", assistant_prefill="assistant_prefill",
        assistant_impersonation="assistant_impersonation",
        squash_system_messages="squash_system_messages", continue_prefill="continue_prefill",
        continue_postfix="continue_postfix",
    ),
    keyed("name", "name", STR),
))
"""A chat-completion preset (``OpenAI Settings/<name>.json``) but its prompt list, which
:mod:`.stprompts` reads.  Connection settings (source, models, proxy) are app data."""


def _position(x: Any) -> str:
    if is_int(x) and x in (0, 1):
        return ("relative", "in_chat")[x]
    raise Bad(f"expected 0 (relative) or 1 (in chat), got {x!r}")


def _position_back(v: Any) -> int:
    if v == "relative":
        return 0
    if v == "in_chat":
        return 1
    raise Unrepresentable(f"SillyTavern has no prompt position {v!r}")


POSITION = Conv("0 (relative) or 1 (in chat)", _position, _position_back)

PROMPT = Table((
    field("name", "name"),
    field("system_prompt", "system_prompt", conv=BOOL),
    field("role", "role"),
    field("content", "content"),
    field("identifier", "identifier"),
    field("marker", "marker", conv=BOOL),
    field("position", "injection_position", conv=POSITION),
    field("depth", "injection_depth", conv=WHOLE),
    field("injection_order", "injection_order", conv=WHOLE),
    field("forbid_overrides", "forbid_overrides", conv=BOOL),
))
"""One prompt of the prompt manager (openai.js ``Prompt``)."""


# -- reading and writing one object -------------------------------------------------------------

def section_get(preset: Any) -> Callable[[str], Any]:
    """``get(attr)`` over a preset for dotted attributes (``sampling.top_k``)."""
    def get(attr: str) -> Any:
        obj = preset
        for part in attr.split("."):
            obj = getattr(obj, part)
        return obj
    return get


def assign(values: Mapping[str, Any]) -> dict[str, Any]:
    """Dotted values -> nested keyword arguments for :class:`Preset`."""
    out: dict[str, Any] = {}
    for attr, value in values.items():
        head, _, tail = attr.partition(".")
        if tail:
            out.setdefault(head, {})[tail] = value
        else:
            out[head] = value
    return out


def read_object(obj: Any, table: Table, path: str, warnings: list[Issue], *,
                skip: Sequence[str] = ()) -> tuple[dict[str, Any], dict[str, Any], dict[str, Any]]:
    if not isinstance(obj, dict):
        raise MalformedInput(f"{path or '$'} is {type_name(obj)}, not a JSON object")
    reading = table.read(obj, path, warnings, owned=True, skip=skip)
    return assign(reading.values), reading.layout, reading.data


def json_record(input: AdapterInput, indent: int | None, **record: Any) -> dict[str, Any]:
    """How a JSON preset file was laid out: ``record``, and the file's JSON layout where it is
    not ``indent``'s."""
    json_layout = sniff_layout(input.data, indent)
    if json_layout:
        record["json"] = json_layout
    return record


def one_preset(values: Mapping[str, Any], record: dict[str, Any], data: Mapping[str, Any],
               format_id: str, warnings: list[Issue], **named: Any) -> ReadResult:
    """The read of one :class:`Preset` of ``values`` (and ``named``): ``record`` is the
    format's passthrough, ``data`` (the keys no table names) its app data."""
    from bunzai.sdk import Preset

    preset = Preset(**values, **named, passthrough={format_id: record},
                    app_data={format_id: data} if data else {})
    return ReadResult([preset], warnings)


def read_preset(input: AdapterInput, table: Table, format_id: str) -> ReadResult:
    """One SillyTavern preset file of a single table as a :class:`Preset`."""
    obj: Any = input.json_mutable()
    warnings: list[Issue] = []
    values, layout, data = read_object(obj, table, "$", warnings)
    return one_preset(values, json_record(input, 4, table=layout), data, format_id, warnings)


def write_object(preset: Any, table: Table, layout: Mapping[str, Any] | None,
                 data: Mapping[str, Any] | None, loss: LossReport, path: str = "",
                 tail: Mapping[str, Any] | None = None,
                 get: Callable[[str], Any] | None = None) -> dict[str, Any]:
    """The object for ``preset`` by ``table``, reporting each value the table's keys hold in
    another form (old and new) and each the target has no key for (by the table's writer)."""
    get = get or section_get(preset)
    sub = LossReport()
    obj = table.write(get, layout, data, sub, path, tail)
    for entry in sub:
        loss.add(entry.path, entry.action, entry.reason)
    reported = {e.path for e in sub}
    back = table.reads_as(obj)
    for attr in table.attrs():
        want = get(attr)
        if want is None or attr not in back:
            continue
        got = back[attr]
        where = f"{path}.{attr}" if path else attr
        if not same(got, want) and where not in reported and not _close(got, want):
            loss.approximated(where, f"written as {_show(got)} (was {_show(want)})")
    return obj


def _close(a: Any, b: Any) -> bool:
    """Numbers equal as numbers (an integer-valued float written as an integer)."""
    return (isinstance(a, int | float) and isinstance(b, int | float)
            and not isinstance(a, bool) and not isinstance(b, bool) and a == b)


def _show(v: Any) -> str:
    text = json.dumps(v, ensure_ascii=False)
    return text if len(text) <= 80 else text[:77] + "..."


def own(holder: Mapping[str, Any], format_id: str) -> dict[str, Any]:
    got = holder.get(format_id)
    return got if isinstance(got, dict) else {}


def part_name(preset: Any, section: str) -> str | None:
    """The name of one bundled part: its own name in a master export, else the preset's."""
    names = getattr(preset, "names", None) or {}
    got = names.get(section)
    return got if isinstance(got, str) else preset.name


__all__ = [
    "ANY", "ANYLIST", "CODES", "CONTEXT", "COUNTS", "INSTRUCT", "JSON_STRLIST", "KOBOLD",
    "LINES", "NOVEL", "OPENAI", "OWN_FORM", "PROMPT", "REASONING", "STRS", "SWITCHES",
    "SYSPROMPT", "TEXTGEN", "TEXTGEN_RENAMES", "TEXTS", "WHOLE", "assign", "canonical_conv",
    "json_record", "json_strings", "keyed", "one_preset", "own", "part_name", "read_object",
    "read_preset", "section", "section_get", "write_object",
]

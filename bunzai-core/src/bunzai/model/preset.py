"""Presets: generation settings and prompt templates, the files users trade after cards and chats.

One kind holds both halves because the apps bundle them: a SillyTavern master export carries an
instruct template, a context template, a system prompt and a sampler preset at once, and a
chat-completion preset is samplers and a prompt list in one file.  A file that holds one part
(an instruct template, a sampler preset) fills one section and leaves the others empty.

Samplers are named by what they do, not by an app's key (``temp``, ``temperature`` and
``temperature`` at three places are one ``sampling.temperature``); a value is stored in the unit
and range most apps share, and a format that uses another converts on read and reports the
approximation on write.  Every optional field is ``None`` when the source did not state it:
apps disagree on defaults, and a default filled in by a reader would change what a target app
does.  What a format says that the model has no field for is the preset's ``app_data``; how
the file was laid out (key order, a Jinja template's exact text) is its ``passthrough``.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from .common import APP_DATA_DESCRIPTION, CanonicalModel, EntityBase, JSONValue

SAMPLERS = (
    "temperature", "top_k", "top_p", "top_a", "min_p", "typical_p", "tfs", "epsilon_cutoff",
    "eta_cutoff", "repetition_penalty", "presence_penalty", "frequency_penalty", "mirostat",
    "dynamic_temperature", "smoothing", "dry", "xtc", "top_n_sigma", "no_repeat_ngram",
    "encoder_repetition_penalty", "unified",
)
"""Canonical names of samplers in ``sampling.sampler_order``."""

Number = float | int
"""A number as the source wrote it: an integer stays an integer, so a rewrite is the same text."""

NAMES_BEHAVIOR = ("none", "force", "always")
"""When an instruct template prefixes messages with the speaker's name: never, only in groups
and for forced avatars, always (SillyTavern's three choices)."""


class Sampling(CanonicalModel):
    """Generation settings by meaning; each is None when the source did not state it."""

    temperature: Number | None = Field(None, description="sampling temperature (1 is neutral)")
    temperature_last: bool | None = Field(
        None, description="apply temperature after the truncation samplers")
    top_k: int | None = Field(None, description="keep the k most likely tokens (0 disables)")
    top_p: Number | None = Field(None, description="nucleus sampling mass (1 disables)")
    top_a: Number | None = Field(None, description="top-a threshold (0 disables)")
    min_p: Number | None = Field(None, description="minimum probability relative to the top "
                                                  "token (0 disables)")
    typical_p: Number | None = Field(None, description="locally typical sampling mass "
                                                      "(1 disables)")
    tfs: Number | None = Field(None, description="tail-free sampling z (1 disables)")
    epsilon_cutoff: Number | None = Field(None, description="epsilon sampling cutoff "
                                                           "(0 disables)")
    eta_cutoff: Number | None = Field(None, description="eta sampling cutoff (0 disables)")
    top_n_sigma: Number | None = Field(None, description="top-n-sigma threshold (0 disables)")
    repetition_penalty: Number | None = Field(None, description="multiplicative repetition "
                                                               "penalty (1 disables)")
    repetition_penalty_range: int | None = Field(
        None, description="how many recent tokens the repetition penalty looks at (0: all)")
    repetition_penalty_slope: Number | None = Field(
        None, description="how the penalty falls off over the range (Kobold/NovelAI slope)")
    repetition_penalty_decay: int | None = Field(
        None, description="decay of the penalty over the range (text-generation-webui)")
    presence_penalty: Number | None = Field(None, description="additive presence penalty "
                                                             "(0 disables)")
    frequency_penalty: Number | None = Field(None, description="additive frequency penalty "
                                                              "(0 disables)")
    encoder_repetition_penalty: Number | None = Field(
        None, description="penalty on tokens not in the prompt (1 disables)")
    no_repeat_ngram_size: int | None = Field(None, description="forbid repeating n-grams of "
                                                               "this size (0 disables)")
    mirostat_mode: int | None = Field(None, description="mirostat version (0 off, 1 or 2)")
    mirostat_tau: Number | None = Field(None, description="mirostat target entropy")
    mirostat_eta: Number | None = Field(None, description="mirostat learning rate")
    dry_multiplier: Number | None = Field(None, description="DRY penalty multiplier "
                                                           "(0 disables)")
    dry_base: Number | None = Field(None, description="DRY penalty base")
    dry_allowed_length: int | None = Field(None, description="longest repeat DRY allows")
    dry_penalty_last_n: int | None = Field(None, description="how many tokens DRY scans "
                                                             "(0: all)")
    dry_sequence_breakers: list[str] | None = Field(
        None, description="strings that interrupt a DRY repeat")
    xtc_threshold: Number | None = Field(None, description="XTC probability threshold")
    xtc_probability: Number | None = Field(None, description="chance XTC applies (0 disables)")
    dynamic_temperature: bool | None = Field(None, description="dynamic temperature on")
    dynatemp_low: Number | None = Field(None, description="dynamic temperature minimum")
    dynatemp_high: Number | None = Field(None, description="dynamic temperature maximum")
    dynatemp_exponent: Number | None = Field(None, description="dynamic temperature exponent")
    smoothing_factor: Number | None = Field(None, description="quadratic smoothing factor "
                                                             "(0 disables)")
    smoothing_curve: Number | None = Field(None, description="quadratic smoothing curve")
    sampler_order: list[str] | None = Field(
        None, description="order the samplers run in, by canonical sampler name (SAMPLERS)")
    max_tokens: int | None = Field(None, description="response length in tokens")
    min_tokens: int | None = Field(None, description="minimum response length in tokens")
    max_context: int | None = Field(None, description="context length in tokens")
    stop_strings: list[str] | None = Field(None, description="extra strings that stop "
                                                              "generation")
    banned_tokens: list[str] | None = Field(
        None, description="tokens or strings never generated (one per item)")
    ban_eos_token: bool | None = Field(None, description="never end the response early")
    add_bos_token: bool | None = Field(None, description="start the prompt with BOS")
    skip_special_tokens: bool | None = Field(None, description="leave special tokens out of "
                                                               "the text")
    logit_bias: list[JSONValue] | None = Field(
        None, description="per-token biases as the source lists them")
    grammar: str | None = Field(None, description="GBNF grammar constraining the output")
    json_schema: JSONValue = Field(None, description="JSON Schema constraining the output")
    guidance_scale: Number | None = Field(None, description="classifier-free guidance scale "
                                                           "(1 disables)")
    negative_prompt: str | None = Field(None, description="negative prompt for guidance")
    seed: int | None = Field(None, description="random seed (-1: random)")
    do_sample: bool | None = Field(None, description="sample (false: greedy decoding)")
    penalty_alpha: Number | None = Field(None, description="contrastive search alpha "
                                                          "(0 disables)")
    num_beams: int | None = Field(None, description="beam search width (1 disables)")
    length_penalty: Number | None = Field(None, description="beam search length penalty")
    early_stopping: bool | None = Field(None, description="beam search early stopping")


class InstructTemplate(CanonicalModel):
    """How each message is wrapped for an instruct-tuned model (SillyTavern's instruct template,
    oobabooga's instruction template, a chat template reduced to sequences)."""

    user_prefix: str | None = Field(None, description="text before a user message")
    user_suffix: str | None = Field(None, description="text after a user message")
    assistant_prefix: str | None = Field(None, description="text before a character message")
    assistant_suffix: str | None = Field(None, description="text after a character message")
    system_prefix: str | None = Field(None, description="text before a system message")
    system_suffix: str | None = Field(None, description="text after a system message")
    first_user_prefix: str | None = Field(
        None, description="user prefix for the first message of the chat (empty: user_prefix)")
    last_user_prefix: str | None = Field(
        None, description="user prefix for the last user message (empty: user_prefix)")
    first_assistant_prefix: str | None = Field(
        None, description="assistant prefix for the first message (empty: assistant_prefix)")
    last_assistant_prefix: str | None = Field(
        None, description="assistant prefix that opens the reply being generated (empty: "
                          "assistant_prefix)")
    last_system_prefix: str | None = Field(
        None, description="prefix of a system instruction at the end of the prompt")
    story_string_prefix: str | None = Field(None, description="text before the story string")
    story_string_suffix: str | None = Field(None, description="text after the story string")
    system_prompt_prefix: str | None = Field(
        None, description="text before the system prompt (SillyTavern's older "
                          "system_sequence_prefix)")
    system_prompt_suffix: str | None = Field(
        None, description="text after the system prompt (older system_sequence_suffix)")
    stop_sequence: str | None = Field(None, description="the model's end-of-turn text")
    wrap: bool | None = Field(None, description="put each sequence on its own line")
    macros: bool | None = Field(None, description="expand {{macros}} inside sequences")
    names_behavior: str | None = Field(
        None, description="when to prefix messages with names: none, force or always")
    system_same_as_user: bool | None = Field(
        None, description="system messages use the user sequences")
    skip_examples: bool | None = Field(None, description="leave example dialogue unwrapped")
    user_alignment_message: str | None = Field(
        None, description="a user message added when the chat starts with the character")
    sequences_as_stop_strings: bool | None = Field(
        None, description="stop generation at any of the sequences")
    activation_regex: str | None = Field(
        None, description="model names that select this template automatically")
    bind_to_context: bool | None = Field(
        None, description="select the context template of the same name with it")


class ContextTemplate(CanonicalModel):
    """How the character's definitions become the top of the prompt (SillyTavern's context
    template: a Handlebars story string and its separators)."""

    story_string: str | None = Field(
        None, description="Handlebars template of the prompt's top ({{system}}, "
                          "{{description}}, {{#if}} blocks)")
    example_separator: str | None = Field(None, description="line before each example "
                                                            "dialogue block")
    chat_start: str | None = Field(None, description="line between the definitions and the "
                                                     "chat")
    use_stop_strings: bool | None = Field(
        None, description="the separators also stop generation")
    names_as_stop_strings: bool | None = Field(
        None, description="speaker names also stop generation")
    always_force_name2: bool | None = Field(
        None, description="always end the prompt with the character's name")
    trim_sentences: bool | None = Field(None, description="cut replies to whole sentences")
    single_line: bool | None = Field(None, description="stop replies at the first newline")
    allow_jailbreak: bool | None = Field(
        None, description="a character's post-history instructions are used")
    story_string_position: int | None = Field(
        None, description="where the story string goes (0 at the top, 1 in chat at a depth)")
    story_string_depth: int | None = Field(None, description="depth when placed in chat")
    story_string_role: int | None = Field(None, description="role when placed in chat "
                                                            "(0 system, 1 user, 2 assistant)")


class SystemPrompt(CanonicalModel):
    """The system prompt template (SillyTavern's sysprompt)."""

    content: str | None = Field(None, description="the system prompt, with {{macros}}")
    post_history: str | None = Field(
        None, description="instructions placed after the chat history")


class ReasoningTemplate(CanonicalModel):
    """How a model's reasoning is marked in its reply (SillyTavern's reasoning formatting)."""

    prefix: str | None = Field(None, description="text opening the reasoning (<think>)")
    suffix: str | None = Field(None, description="text closing the reasoning")
    separator: str | None = Field(None, description="text between reasoning and reply")


class PromptEntry(CanonicalModel):
    """One prompt of a chat-completion prompt list (SillyTavern's prompt manager)."""

    identifier: str = Field(description="the prompt's id; markers use fixed ids "
                                        "(chatHistory, charDescription, …)")
    name: str | None = Field(None, description="the name shown in the prompt list")
    role: str | None = Field(None, description="system, user or assistant")
    content: str | None = Field(None, description="the prompt text, with {{macros}}")
    system_prompt: bool | None = Field(None, description="one of the app's built-in prompts")
    marker: bool | None = Field(
        None, description="a placeholder the app fills (chat history, card fields)")
    position: str | None = Field(
        None, description="relative (in list order) or in_chat (at a depth in the history)")
    depth: int | None = Field(None, description="depth in the history when in_chat")
    injection_order: int | None = Field(None, description="order among prompts at one depth")
    forbid_overrides: bool | None = Field(None, description="a character cannot replace it")
    extensions: dict[str, JSONValue] = Field(default_factory=dict,
                                             description="app-namespaced blocks, verbatim")
    app_data: dict[str, dict[str, JSONValue]] = Field(default_factory=dict,
                                                      description=APP_DATA_DESCRIPTION)
    passthrough: dict[str, JSONValue] = Field(
        default_factory=dict, description="per-format layout, never user data")


class PromptOrderItem(CanonicalModel):
    """One place in a prompt order."""

    identifier: str = Field(description="id of a PromptEntry")
    enabled: bool = Field(True, description="whether the prompt is sent")


class PromptOrder(CanonicalModel):
    """The order prompts are sent in, for one character (or the default)."""

    character_id: int | str | None = Field(
        None, description="whose order this is (SillyTavern: 100000 and 100001 are defaults)")
    order: list[PromptOrderItem] = Field(default_factory=list,
                                         description="prompts in the order they are sent")


class ChatCompletion(CanonicalModel):
    """A chat-completion prompt list and its utility prompts."""

    prompts: list[PromptEntry] = Field(default_factory=list,
                                       description="every prompt the preset defines")
    prompt_order: list[PromptOrder] = Field(default_factory=list,
                                            description="the send order, per character")
    impersonation_prompt: str | None = Field(None, description="asks to write as the user")
    new_chat_prompt: str | None = Field(None, description="marks the start of the chat")
    new_group_chat_prompt: str | None = Field(None, description="the same for group chats")
    new_example_chat_prompt: str | None = Field(None, description="marks each example chat")
    continue_nudge_prompt: str | None = Field(None, description="asks to continue a reply")
    group_nudge_prompt: str | None = Field(None, description="asks one member to speak")
    world_info_format: str | None = Field(None, description="template around world info")
    scenario_format: str | None = Field(None, description="template around the scenario")
    personality_format: str | None = Field(None, description="template around the "
                                                             "personality")
    send_if_empty: str | None = Field(None, description="sent when the user sends nothing")
    assistant_prefill: str | None = Field(None, description="start of the reply, prefilled")
    assistant_impersonation: str | None = Field(None, description="prefill when impersonating")
    continue_prefill: bool | None = Field(None, description="continue by prefilling")
    continue_postfix: str | None = Field(None, description="text after a continued reply")
    names_behavior: int | None = Field(
        None, description="how names reach the model (SillyTavern: -1 none, 0 default, "
                          "1 in completion object, 2 in message content)")
    wrap_in_quotes: bool | None = Field(None, description="wrap messages in quotes")
    squash_system_messages: bool | None = Field(None, description="merge adjacent system "
                                                                  "messages")


class Preset(EntityBase):
    """Generation settings and prompt templates; a file fills the sections it holds."""

    kind: Literal["preset"] = Field("preset", description="the entity kind, always preset")
    name: str | None = Field(None, description="the preset's or template's name")
    sampling: Sampling = Field(default_factory=Sampling, description="generation settings")
    instruct: InstructTemplate = Field(default_factory=InstructTemplate,
                                       description="instruct sequences")
    context: ContextTemplate = Field(default_factory=ContextTemplate,
                                     description="context template (story string)")
    system_prompt: SystemPrompt = Field(default_factory=SystemPrompt,
                                        description="system prompt template")
    reasoning: ReasoningTemplate = Field(default_factory=ReasoningTemplate,
                                         description="reasoning prefix and suffix")
    chat_completion: ChatCompletion = Field(default_factory=ChatCompletion,
                                            description="chat-completion prompt list")
    names: dict[str, str] = Field(
        default_factory=dict,
        description="the name each bundled part had, by section (a master export names its "
                    "instruct, context and system prompt separately)")


SECTIONS = ("sampling", "instruct", "context", "system_prompt", "reasoning", "chat_completion")
"""The preset's sections, in the order they are described."""

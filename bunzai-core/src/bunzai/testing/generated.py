"""Canonical entities of every kind, built in code, for conformance and firewall tests.

Two shapes per kind: ``rich`` fills every field a format could plausibly carry (so a writer
that silently drops something is caught by the loss-report check), and ``minimal`` holds almost
nothing (empty books and bare names are where detectors steal each other's files).  The text is
our own.  Entities carry passthrough and app data under :data:`FIXTURE_FORMAT`, a format no adapter
owns, so a writer that restores another format's passthrough is caught, and every writer must
report the fixture's app data it cannot carry.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..kinds import KINDS

FIXTURE_FORMAT = "bunzai-kit-fixture"
"""A format id no adapter owns: passthrough stored under it must never reach a file."""

VARIANTS = ("rich", "minimal")


def _png() -> bytes:
    from ..io.containers.png import minimal_png
    return minimal_png(2, 2, (200, 120, 40, 255))


def _entries() -> list[Any]:
    from ..model import LorebookEntry

    return [
        LorebookEntry(
            id=1, keys=["lighthouse", "beacon"], secondary_keys=["storm"],
            content="The lighthouse on Gull Point has been dark for nine winters.",
            comment="Gull Point lighthouse", name="lighthouse", enabled=True, constant=False,
            selective=True, selective_logic="and_any", insertion_order=110, priority=20,
            case_sensitive=False, match_whole_words=True, use_regex=False,
            position="after_char", depth=4, role="system", probability=80,
            use_probability=True, group="coast", group_override=False, group_weight=50,
            use_group_scoring=False, scan_depth=3, exclude_recursion=True,
            prevent_recursion=False, delay_until_recursion=1, sticky=2, cooldown=1, delay=0,
            vectorized=False, automation_id="gull", display_index=0, ignore_budget=False,
            match_persona_description=True, match_character_description=False,
            match_character_personality=False, match_character_depth_prompt=False,
            match_scenario=True, match_creator_notes=False, outlet_name="coastline",
            triggers=["normal", "continue"], folder="3",
            character_filter={"isExclude": False, "names": ["Keeper"], "tags": []},
            extensions={"kit_app": {"note": "entry extension kept verbatim"}},
            app_data={FIXTURE_FORMAT: {"entry_setting": "app data only the fixture knows"}},
            passthrough={FIXTURE_FORMAT: {"entry_only_the_fixture_knows": True}},
        ),
        LorebookEntry(
            id=2, keys=["ferry"], content="The ferry runs twice a day, never on Sundays.",
            comment="The ferry", enabled=False, constant=True, insertion_order=90,
        ),
        LorebookEntry(id=3, comment="Coast", is_folder=True),
    ]


def _lorebook(variant: str) -> Any:
    from ..model import Lorebook

    if variant == "minimal":
        return Lorebook()
    return Lorebook(
        name="Gull Point", description="A small coastal town, for tests.", scan_depth=4,
        token_budget=512, recursive_scanning=True, entries=_entries(),
        extensions={"kit_app": {"book": "extension kept verbatim"}},
        app_data={FIXTURE_FORMAT: {"book_setting": "app data only the fixture knows"}},
        passthrough={FIXTURE_FORMAT: {"book_only_the_fixture_knows": [1, 2]}},
    )


def _regex(variant: str) -> list[Any]:
    from ..model import RegexScript

    if variant == "minimal":
        return [RegexScript(name="noop", pattern="x")]
    return [
        RegexScript(
            id="3f1c2a9e-0000-4000-8000-000000000001", name="Italicise stage directions",
            pattern=r"\*([^*]+)\*", flags="gi", replace="<i>$1</i>", trim_strings=["  "],
            placement=["ai_output"], disabled=False, markdown_only=True, prompt_only=False,
            run_on_edit=True, substitute_regex=0, min_depth=0, max_depth=8,
            extensions={"kit_app": {"regex": "extension kept verbatim"}},
            app_data={FIXTURE_FORMAT: {"regex_setting": "app data only the fixture knows"}},
            passthrough={FIXTURE_FORMAT: {"regex_only_the_fixture_knows": "x"}},
        ),
        RegexScript(
            id="3f1c2a9e-0000-4000-8000-000000000002", name="Curly quotes",
            pattern="\"([^\"]*)\"", flags="g", replace="\u201c$1\u201d",
            placement=["user_input", "ai_output"], disabled=True,
        ),
    ]


def _character(variant: str) -> Any:
    from ..model import Asset, Character

    if variant == "minimal":
        return Character(name="Wren")
    return Character(
        name="Wren Halloway", nickname="Wren",
        description="{{char}} keeps the Gull Point lighthouse and distrusts the mainland.",
        personality="patient, dry, stubborn", scenario="A storm strands {{user}} at the light.",
        first_mes="You're soaked. Come in before the lamp needs me.",
        mes_example="<START>\n{{user}}: Why is the light dark?\n{{char}}: Ask the council.",
        creator_notes="Written for bunzai's conformance tests.",
        creator_notes_multilingual={"fr": "Ecrit pour les tests."},
        system_prompt="Stay in character as {{char}}.",
        post_history_instructions="Keep replies under 120 words.",
        alternate_greetings=["The kettle's on.", "Mind the third stair."],
        group_only_greetings=["Everyone inside, now."], tags=["test", "coastal"],
        creator="bunzai tests", character_version="1.2", source=["bunzai:test"],
        creation_date=1700000000, modification_date=1700003600,
        lorebook=_lorebook("rich"),
        assets=[Asset(type="icon", name="main", uri="embeded://assets/icon/main.png",
                      ext="png", media_type="image/png", data=_png())],
        regex_scripts=_regex("rich")[:1],
        triggers=[{"comment": "opaque trigger", "type": "start", "effect": []}],
        extensions={"kit_app": {"card": "extension kept verbatim"}, "talkativeness": "0.5"},
        app_data={FIXTURE_FORMAT: {"card_setting": "app data only the fixture knows"}},
        passthrough={FIXTURE_FORMAT: {"card_only_the_fixture_knows": {"a": 1}}},
    )


def _persona(variant: str) -> list[Any]:
    from ..model import Asset, Persona

    if variant == "minimal":
        return [Persona(name="Traveller")]
    return [
        Persona(name="Ada", description="{{user}} is a cartographer mapping the coast.",
                title="the cartographer", note="prefers boats", avatar_id="ada.png",
                is_default=True, position=0, depth=2, role=0, lorebook="Gull Point",
                connections=[{"type": "character", "id": "wren.png"}],
                avatar=Asset(type="user_icon", name="ada", ext="png", media_type="image/png",
                             data=_png()),
                extensions={"kit_app": {"persona": "extension kept verbatim"}},
                app_data={FIXTURE_FORMAT: {"persona_setting": "app data only the fixture knows"}},
                passthrough={FIXTURE_FORMAT: {"persona_only_the_fixture_knows": 1}}),
        Persona(name="Bo", description="{{user}} is a ferry pilot.", avatar_id="bo.png"),
    ]


def _module(variant: str) -> Any:
    from ..model import Asset, Module

    if variant == "minimal":
        return Module(name="Empty module")
    return Module(
        id="8a7d4c1e-0000-4000-8000-00000000000a", name="Coastal weather",
        description="Storm lore and a weather regex.", namespace="coastal",
        lorebook=_lorebook("rich"), regex_scripts=_regex("rich"),
        triggers=[{"comment": "opaque trigger", "type": "manual", "effect": []}],
        assets=[Asset(type="asset", name="fog", ext="png", media_type="image/png",
                      data=_png())],
        low_level_access=False,
        extensions={"kit_app": {"module": "extension kept verbatim"}},
        app_data={FIXTURE_FORMAT: {"module_setting": "app data only the fixture knows"}},
        passthrough={FIXTURE_FORMAT: {"module_only_the_fixture_knows": True}},
    )


def _chat(variant: str) -> Any:
    from datetime import UTC, datetime

    from ..model import Alternative, Attachment, Chat, ChatMessage, Participant

    if variant == "minimal":
        return Chat(messages=[ChatMessage(role="user", text="Hello?")])

    def at(minute: int) -> datetime:
        return datetime(2024, 11, 3, 21, minute, 5, 250000, tzinfo=UTC)

    return Chat(
        title="Storm night at Gull Point",
        participants=[Participant(name="Ada", role="user", id="user-ada", avatar="ada.png",
                                  app_data={FIXTURE_FORMAT: {"persona": "ada-local"}}),
                      Participant(name="Wren Halloway", role="character", id="wren",
                                  avatar="wren.png"),
                      Participant(name="Gull Point", role="narrator")],
        created=at(0), time_zone="local", notes="Keep the storm loud.",
        memory="Ada arrived by ferry.",
        scenario="A storm strands Ada at the light.", greeting="You're soaked. Come in.",
        example_dialogue="<START>\nAda: Why is the light dark?\nWren: Ask the council.",
        system_prompt="Stay in character as Wren.", branch_of="Storm night (main)",
        lorebook=_lorebook("rich"),
        messages=[
            ChatMessage(role="narrator", speaker="Gull Point", text="Rain hammers the glass.",
                        time=at(1)),
            ChatMessage(role="user", speaker="Ada", text="Is anyone there?", time=at(2),
                        id="m-2", attachments=[
                            Attachment(type="image", name="ferry.png", uri="ferry.png",
                                       title="the ferry at dusk", media_type="image/png",
                                       data=_png(),
                                       app_data={FIXTURE_FORMAT: {"caption_style": "film"}})]),
            ChatMessage(role="character", speaker="Wren Halloway",
                        text="Only me, and the lamp.", time=at(3), reasoning="She is wary.",
                        model="kit-model-7b", alternatives=[
                            Alternative(text="Who's asking?", time=at(3)),
                            Alternative(text="Only me, and the lamp.", time=at(4),
                                        reasoning="She is wary.",
                                        app_data={FIXTURE_FORMAT: {"rating": 5}})], chosen=1,
                        bookmark="checkpoint: the lamp"),
            ChatMessage(role="user", speaker="Ada", text="(out of character: brb)",
                        hidden=True, time=at(5)),
            ChatMessage(role="system", speaker="System", text="Ada joined the chat.",
                        time=at(6), extensions={"kit_app": {"message": "kept verbatim"}},
                        app_data={FIXTURE_FORMAT: {"message_setting": "only the fixture"}},
                        passthrough={FIXTURE_FORMAT: {"message_layout": 1}}),
        ],
        extensions={"kit_app": {"chat": "extension kept verbatim"}},
        app_data={FIXTURE_FORMAT: {"chat_setting": "app data only the fixture knows"}},
        passthrough={FIXTURE_FORMAT: {"chat_only_the_fixture_knows": True}},
    )


def _preset(variant: str) -> Any:
    from ..model.preset import (
        ChatCompletion,
        ContextTemplate,
        InstructTemplate,
        Preset,
        PromptEntry,
        PromptOrder,
        PromptOrderItem,
        ReasoningTemplate,
        Sampling,
        SystemPrompt,
    )

    if variant == "minimal":
        return Preset(name="Plain")
    return Preset(
        name="Lamplight",
        names={"system_prompt": "Keeper"},
        sampling=Sampling(temperature=0.9, top_p=0.92, top_k=40, min_p=0.05,
                          repetition_penalty=1.08, repetition_penalty_range=1024,
                          dry_multiplier=0.8, dry_base=1.75, dry_allowed_length=2,
                          dry_sequence_breakers=["\n", ":"], max_tokens=300, max_context=8192,
                          stop_strings=["\nAda:"], mirostat_mode=0,
                          sampler_order=["repetition_penalty", "top_k", "top_p", "temperature"]),
        instruct=InstructTemplate(user_prefix="<|user|>", assistant_prefix="<|model|>",
                                  system_prefix="<|system|>", user_suffix="<|end|>\n",
                                  assistant_suffix="<|end|>\n", system_suffix="<|end|>\n",
                                  stop_sequence="<|end|>", wrap=True, macros=True,
                                  names_behavior="force"),
        context=ContextTemplate(story_string="{{#if system}}{{system}}\n{{/if}}"
                                             "{{#if description}}{{description}}\n{{/if}}",
                                example_separator="***", chat_start="***"),
        system_prompt=SystemPrompt(content="Write {{char}}'s next reply by the lamp."),
        reasoning=ReasoningTemplate(prefix="<think>", suffix="</think>", separator="\n"),
        chat_completion=ChatCompletion(
            prompts=[PromptEntry(identifier="main", name="Main", role="system",
                                 content="Keep the lamp lit."),
                     PromptEntry(identifier="chatHistory", name="Chat History", marker=True)],
            prompt_order=[PromptOrder(character_id=100001, order=[
                PromptOrderItem(identifier="main"), PromptOrderItem(identifier="chatHistory")])],
            impersonation_prompt="Write as {{user}}."),
        extensions={"kit_app": {"preset": "extension kept verbatim"}},
        app_data={FIXTURE_FORMAT: {"preset_setting": "app data only the fixture knows"}},
        passthrough={FIXTURE_FORMAT: {"preset_only_the_fixture_knows": 1}},
    )


_BUILDERS: dict[str, Callable[[str], Any]] = {
    "character": _character, "lorebook": _lorebook, "persona": _persona, "regex": _regex,
    "module": _module, "chat": _chat, "preset": _preset,
}


def canonical_examples(kind: str, variant: str) -> list[Any]:
    """Fresh canonical entities of ``kind`` (a list: regex and persona examples hold two)."""
    if kind not in KINDS or variant not in VARIANTS:
        raise ValueError(f"no generated example for kind {kind!r}, variant {variant!r}")
    built = _BUILDERS[kind](variant)
    return list(built) if isinstance(built, list) else [built]


def vaud_json_bytes(kind: str, variant: str) -> bytes:
    """The example written by core's ``vaud-json`` writer (a canonical JSON file)."""
    from ..native import VaudJsonAdapter

    return VaudJsonAdapter().write_many(canonical_examples(kind, variant), {}).data


__all__ = ["FIXTURE_FORMAT", "VARIANTS", "canonical_examples", "vaud_json_bytes"]

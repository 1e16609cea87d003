"""The conformance kit on every bunzai-formats-tavern adapter (dogfood).

Each class takes its samples from the repository's routing table (``tests/corpus_routes.py``):
the real corpus files, the generated samples and our own samples in the repository routed to
that format, read in place; every other routed file is a foreign sample it must not claim.
RoleCall has no public export, so its two adapters use the small cards in ``samples/`` written
for these tests.  An adapter that is not installed yet is skipped with the reason.
"""

from __future__ import annotations

from pathlib import Path

from bunzai.sdk.cards import COMPLETED_KEYS
from bunzai.testing import require_corpus
from bunzai.testing.routes import RoutedConformance

pytest_plugins = ["bunzai.testing.plugin"]
require_corpus()

HERE = Path(__file__).parent / "samples"


class TestSillyTavern(RoutedConformance):
    format_id = "sillytavern"
    completed_keys = COMPLETED_KEYS
    sample_waivers = {"test_passthrough_is_layout_only": {
        "*ccv3_st_export_like*": "its entry position 'before_char_defs' is none of the card "
                                 "spec's values: a card written without the source's layout is "
                                 "a clean spec card, which reports the position as dropped",
        "*.webp": "bunzai writes no WebP: without the source's layout the card is written as a "
                  "PNG card, its avatar converted to PNG (reported)",
    }}
    robustness_count = 8  # JSON V1/V2/V3, PNG chara/ccv3, WebP and JPEG EXIF cards


class TestSillyTavernLorebook(RoutedConformance):
    format_id = "sillytavern-lorebook"


class TestSillyTavernRegex(RoutedConformance):
    format_id = "sillytavern-regex"


class TestSillyTavernPersona(RoutedConformance):
    format_id = "sillytavern-persona"
    _settings = ("a settings.json is read for its personas and written as a persona backup, "
                 "never as settings.json (see the adapter's README)")
    _selected = ("a settings.json says which persona is selected; a backup cannot, with or "
                 "without the source's layout, and the writer reports it")
    sample_waivers = {"test_same_format_round_trip_is_lossless": {"*settings*": _settings},
                      "test_same_format_round_trip_keeps_the_file": {"*settings*": _settings},
                      "test_passthrough_is_layout_only": {"*settings*": _selected}}


class TestAgnai(RoutedConformance):
    format_id = "agnai"


class TestAgnaiMemory(RoutedConformance):
    format_id = "agnai-memory"


class TestPygmalion(RoutedConformance):
    format_id = "pygmalion"
    completed_keys = tuple(f"character.{k}" for k in COMPLETED_KEYS)  # pygmalion.chat wrapper


class TestRoleCall(RoutedConformance):
    format_id = "rolecall"
    completed_keys = COMPLETED_KEYS
    extra_samples = [HERE / "rolecall-lighthouse-keeper.json"]


class TestRoleCallPersona(RoutedConformance):
    format_id = "rolecall-persona"
    completed_keys = COMPLETED_KEYS  # a persona card is a card: written with what V2 requires
    extra_samples = [HERE / "rolecall-persona-ferry-pilot.json"]


class TestSillyTavernChat(RoutedConformance):
    format_id = "sillytavern-chat"


class TestTavernAIChat(RoutedConformance):
    format_id = "tavernai-chat"
    _legacy = ("a legacy \"Name: text\" array is written only when asked for (-O shape=array: "
               "no other app imports it); otherwise the chat is written as TavernAI 1.5 JSON "
               "Lines, which names a user and dates every message (reported)")
    sample_waivers = {"test_passthrough_is_layout_only": {"tavernai-legacy-chat*": _legacy},
                      "test_same_format_round_trip_is_lossless": {
                          "tavernai-legacy-chat*": _legacy},
                      "test_same_format_round_trip_keeps_the_file": {
                          "tavernai-legacy-chat*": _legacy}}


class TestKoboldAILite(RoutedConformance):
    format_id = "koboldai-lite"


class TestAgnaiChat(RoutedConformance):
    format_id = "agnai-chat"
    sample_waivers = {"test_passthrough_is_layout_only": {
        "agnai-chat-messages.json": "messages copied from Agnai's store carry dates; Agnai's "
                                    "own export, written without that layout, has none "
                                    "(its importer dates messages itself: reported)",
    }}


class TestOobaboogaChat(RoutedConformance):
    format_id = "oobabooga-chat"


class TestCAIHistory(RoutedConformance):
    format_id = "cai-history"


class TestSillyTavernInstruct(RoutedConformance):
    format_id = "sillytavern-instruct"


class TestSillyTavernContext(RoutedConformance):
    format_id = "sillytavern-context"


class TestSillyTavernSysPrompt(RoutedConformance):
    format_id = "sillytavern-sysprompt"


class TestSillyTavernReasoning(RoutedConformance):
    format_id = "sillytavern-reasoning"


class TestSillyTavernTextGen(RoutedConformance):
    format_id = "sillytavern-textgen"


class TestSillyTavernKobold(RoutedConformance):
    format_id = "sillytavern-kobold"


class TestSillyTavernNovel(RoutedConformance):
    format_id = "sillytavern-novel"


class TestSillyTavernOpenAI(RoutedConformance):
    format_id = "sillytavern-openai"


class TestSillyTavernMaster(RoutedConformance):
    format_id = "sillytavern-master"


class TestOobaboogaPreset(RoutedConformance):
    format_id = "oobabooga-preset"


class TestOobaboogaInstruct(RoutedConformance):
    format_id = "oobabooga-instruct"


class TestHFChatTemplate(RoutedConformance):
    format_id = "hf-chat-template"


class TestKoboldAILiteSettings(RoutedConformance):
    format_id = "koboldai-lite-settings"

"""Where every real corpus file and every generated sample must route.

The firewall test reads this table: each format issue adds its classes and files here instead of
writing another copy of the harness.  ``None`` means "must be unrecognized (exit 3) or rejected
as malformed (exit 4)".
"""

from __future__ import annotations

CLASS_ROUTES: dict[str, str | None] = {
    "ccv1-json": "sillytavern",
    "ccv2-json": "sillytavern",
    "ccv3-json": "sillytavern",
    "png-chara-v1": "sillytavern",
    "png-chara-v2": "sillytavern",
    "png-ccv3": "sillytavern",
    "png-both": "sillytavern",
    "st-worldbook": "sillytavern-lorebook",
    "st-regex": "sillytavern-regex",
    "st-persona": "sillytavern-persona",
    "agnai": "agnai-memory",
    "pygmalion": "pygmalion",
    "charx": "risu-charx",
    "byaf": "backyard-byaf",
    "wyvern-png": "sillytavern",
    "voxpkg": "voxta",
    "nai-lorebook": "novelai-lorebook",
    "negative": None,
    # ../shared/corpus-chats (its own MANIFEST.tsv)
    "st-chat": "sillytavern-chat",
    "st-group-chat": "sillytavern-chat",
    "tavernai-chat": "tavernai-chat",
    "tavernai-legacy-chat": "tavernai-chat",
    "backyard-chat": "backyard-chat",
    "kobold-lite-save": "koboldai-lite",
    # ../shared/corpus-presets (its own MANIFEST.tsv)
    "st-instruct": "sillytavern-instruct",
    "st-context": "sillytavern-context",
    "st-sysprompt": "sillytavern-sysprompt",
    "st-textgen": "sillytavern-textgen",
    "st-kobold": "sillytavern-kobold",
    "st-novel": "sillytavern-novel",
    "st-openai": "sillytavern-openai",
    "ooba-preset": "oobabooga-preset",
    "ooba-instruct-legacy": "oobabooga-instruct",
    "ooba-instruct-jinja": "oobabooga-instruct",
}
"""Corpus class (MANIFEST.tsv of the corpus and of the chat corpus) -> format id."""

FILE_ROUTES: dict[str, str | None] = {
    # corpus files whose class does not decide (class "other"), by file-name stem
    "other__aldozulhaq_TavernAI__Aqua__ce4ac1755d.webp": "sillytavern",
    "other__ahoylabs_byaf__v2__b1152a4dc5.png": "backyard",
    "other__tammy3211_RisuAI_bot_test__lorebook__9b1a73126e.json": "risu-lorebook",
    "other__tammy3211_RisuAI_bot_test__regex__14900b8990.json": "risu-regex",
    "other__tammy3211_RisuAI_bot_test__regex__59fc2d057d.json": "risu-regex",
    # broken tool outputs: every value written as text (NovelAI's lorebookVersion key is there:
    # recognised and refused, see UNREADABLE); JSON cut off mid-entry (no adapter can parse it:
    # core refuses it as unreadable JSON, exit 4)
    "nai-lorebook__grahamwaters_lorebook_generator_for_novelai__lorebook_generated__68263913fa"
    ".lorebook": "novelai-lorebook",
    "nai-lorebook__grahamwaters_lorebook_generator_for_novelai__Ripple_Mon_Oct_17_2022__260219df47"
    ".lorebook": None,
    # a 0-byte chat backup SillyTavern left behind: no content to recognise, refused as an
    # empty file (exit 3, see EXITS); read as an empty chat only with --from sillytavern-chat
    "st-chat__seoulrebel_ST_Codex__chat_2025_04_24_06h00m54s_20250424_06005__e3b0c44298.jsonl":
        None,
}
"""Corpus file name -> format id, overriding the class route."""

SAMPLE_ROUTES: dict[str, str | None] = {
    # generated samples under ../shared/samples, relative paths
    "risu/gen_risu_export.charx": "risu-charx",
    "risu/gen_risu_card_v3.png": "risu",
    "risu/gen_risu_module.risum": "risu-module",
    "risu/gen_malformed_version1.risum": "risu-module",  # recognised, refused on read (exit 4)
    "risu/gen_risu_lorebook_export.json": "risu-lorebook",
    "risu/gen_risu_regex_export.json": "risu-regex",
    "risu/gen_risu_persona.png": "risu-persona",
    "risu/gen_risu_preset.risup": "risu-preset",
    "risu/rpack_map.bin": None,
    "tavern/st_regex_hide_think_numeric_substitute.json": "sillytavern-regex",
    "tavern/st_regex_hide_summary_boolean_substitute.json": "sillytavern-regex",
    "tavern/st_persona_backup_derived_legacy_descriptor.json": "sillytavern-persona",
    "tavern/synthetic_agnai_native_character.json": "agnai",
    "tavern/synthetic_agnai_memory_book.json": "agnai-memory",
}
"""Sample path (relative to the samples folder) -> format id."""

_TAVERN = "bunzai-formats-tavern/src/bunzai_tavern/"
_RISU = "bunzai-formats-risu/src/bunzai_risu/"
_BACKYARD = "bunzai-formats-backyard/src/bunzai_backyard/"

REPO_ROUTES: dict[str, str | None] = {
    # our own files, written to each app's writer for formats with no public file; paths from
    # the repository root, each format's page names the source version its samples follow
    _TAVERN + "tavernai_chat/tests/samples/tavernai-room-chat.jsonl": "tavernai-chat",
    _TAVERN + "tavernai_chat/tests/samples/caitools-tavern-chat.jsonl": "tavernai-chat",
    _TAVERN + "agnai_chat/tests/samples/agnai-chat-export.json": "agnai-chat",
    _TAVERN + "agnai_chat/tests/samples/agnai-chat-messages.json": "agnai-chat",
    _TAVERN + "oobabooga_chat/tests/samples/oobabooga-history.json": "oobabooga-chat",
    _TAVERN + "oobabooga_chat/tests/samples/oobabooga-history-2023.json": "oobabooga-chat",
    _TAVERN + "cai_history/tests/samples/cai-history-dump.json": "cai-history",
    _TAVERN + "koboldai_lite/tests/samples/kobold-lite-chat-mode.json": "koboldai-lite",
    _TAVERN + "koboldai_lite/tests/samples/kobold-lite-instruct-mode.json": "koboldai-lite",
    _RISU + "chat/tests/samples/risu-chat-export.json": "risu-chat",
    _RISU + "chat/tests/samples/risu-chat-export-v1.json": "risu-chat",
    _BACKYARD + "byaf/tests/samples/byaf-chat-regenerated-replies.byaf": "backyard-byaf",
    _TAVERN + "sillytavern_reasoning/tests/samples/st-reasoning-ponder.json":
        "sillytavern-reasoning",
    _TAVERN + "sillytavern_master/tests/samples/st-master-lamplight.json": "sillytavern-master",
    _TAVERN + "oobabooga_preset/tests/samples/ooba-preset-ferry.yaml": "oobabooga-preset",
    _TAVERN + "oobabooga_instruct/tests/samples/ooba-instruct-lantern.yaml": "oobabooga-instruct",
    _TAVERN + "oobabooga_instruct/tests/samples/ooba-instruct-toolbox.yaml": "oobabooga-instruct",
    _TAVERN + "hf_chat_template/tests/samples/heron-tokenizer_config.json": "hf-chat-template",
    _TAVERN + "hf_chat_template/tests/samples/quill-tokenizer_config.json": "hf-chat-template",
    _TAVERN + "hf_chat_template/tests/samples/wren-chat_template.jinja": "hf-chat-template",
    _TAVERN + "hf_chat_template/tests/samples/tally-tools.jinja": "hf-chat-template",
    _TAVERN + "koboldai_lite_settings/tests/samples/lite-settings-lighthouse.json":
        "koboldai-lite-settings",
}
"""Repository file (relative to the repository root) -> format id: the matrix converts them
and the conformance kit uses them as it does the corpus."""

UNREADABLE: set[str] = {
    "risu/gen_malformed_version1.risum",
    # a scenario-only Voxta package: its scenario casts characters the package does not include
    "voxpkg__axAilotl_card_architect__Desktop_Critics_Real_Time_Commentary_Edi__e4b2ed1a92"
    ".voxpkg",
    # a NovelAI lorebook whose every value a tool wrote as text
    "nai-lorebook__grahamwaters_lorebook_generator_for_novelai__lorebook_generated__68263913fa"
    ".lorebook",
}
"""Files (sample paths or corpus names) that route to their format but must be refused on read
(exit 4): the adapter recognises the format and names the problem."""

EXITS: dict[str, int] = {
    "st-chat__seoulrebel_ST_Codex__chat_2025_04_24_06h00m54s_20250424_06005__e3b0c44298.jsonl": 3,
}
"""Files routed to no format whose exit code is known: 3 (nothing recognised it, an empty file
among them) or 4 (recognised as unreadable).  Other negatives may give either."""

READ_ONLY_SHAPES: dict[str, str] = {
    "st-persona__Mersidler_silly__settings__43b39926b7.json":
        "a settings.json is read for its personas and written as a persona backup, which "
        "cannot say which persona is selected (reported)",
    "st-persona__SillyTavern_SillyTavern__settings__84ae96b9a1.json":
        "a settings.json is read for its personas and written as a persona backup, which "
        "cannot say which persona is selected (reported)",
    "tavernai-legacy-chat__SillyTavern_SillyTavern__1673181146000__fb89fe9b14.json":
        "a TavernAI 1.1 array is rewritten as the JSON Lines other apps import, which name a "
        "user and date every message (reported); -O shape=array writes the array back",
}
"""Files their format reads but writes in another shape: a same-format write may report a
loss (it must still be honest, like every conversion)."""

REWRITE_OPTIONS: dict[str, dict[str, object]] = {
    # RisuAI imports only its export envelope, so its writers wrap a bare array unless asked
    "other__tammy3211_RisuAI_bot_test__lorebook__9b1a73126e.json": {"array": True},
    "other__tammy3211_RisuAI_bot_test__regex__14900b8990.json": {"array": True},
    "other__tammy3211_RisuAI_bot_test__regex__59fc2d057d.json": {"array": True},
}
"""Writer options a same-format rewrite of a file needs to keep the file's shape."""

"""``agnai``: Agnaistic native character exports (Download -> JSON -> Agnaistic)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bunzai.sdk import FormatAdapter, detect_json

from .._common.neutral import ST_NEUTRAL
from .._common.options import indent_option
from .._common.paths import MEMORY_ENTRY_FIELDS, book, memory_neutral
from .._common.runs import AGNAI_CARD

_FIVE = ("name", "persona", "greeting", "scenario", "sampleChat")
"""Agnai's own test for a native character without ``kind``."""


def score(data: Any) -> tuple[float, str]:
    if not isinstance(data, Mapping) or "schema_version" in data or "spec" in data:
        return 0.0, ""
    if data.get("kind") == "character":
        if any(k in data for k in ("persona", "greeting", "sampleChat")):
            return 0.95, "Agnai character (kind: character)"
        return 0.0, ""
    if "kind" not in data and all(k in data for k in _FIVE):
        return 0.9, "Agnai character fields (name, persona, greeting, scenario, sampleChat)"
    return 0.0, ""


class AgnaiAdapter(FormatAdapter):
    """Agnaistic native characters: structured persona, greeting, memory book."""

    format_id = "agnai"
    kind = "character"
    runs = AGNAI_CARD
    label = "Agnai character"
    aliases = ("agnaistic",)
    options = (indent_option(2, "JSON indent; 0 is compact"),)
    signature = {"json": ("persona", "greeting", "sampleChat")}  # every rule needs one
    detection = (
        ("kind 'character' with persona/greeting/sampleChat", 0.95),
        ("no kind, all of name, persona, greeting, scenario, sampleChat", 0.9),
        ("cards (spec), canonical JSON, anything else", 0.0),
    )
    carries = ("name", "description", "scenario", "first_mes", "mes_example", "creator_notes",
               "system_prompt", "post_history_instructions", "alternate_greetings", "tags",
               "creator", "character_version", "creation_date", "modification_date",
               "extensions", "assets", *book("lorebook.", MEMORY_ENTRY_FIELDS))
    reasons = (
        ("personality", "Agnai has no personality field: it is joined into the description's "
                        "text persona"),
        ("nickname", "Agnai characters have no nickname"),
        ("creator_notes_multilingual", "Agnai keeps creator notes in one language"),
        ("group_only_greetings", "Agnai has no group-only greetings"),
        ("source", "Agnai characters do not record their source"),
        ("regex_scripts", "Agnai has no regex scripts"),
        ("triggers", "Agnai has no trigger scripts"),
        ("lorebook.entries[*]", "Agnai memory entries have no such setting"),
        ("lorebook.entries[*].case_sensitive", "Agnai ignores case sensitivity"),
        ("lorebook.entries[*].extensions", "Agnai empties an entry's extensions on import"),
    )
    neutral = (*ST_NEUTRAL, *memory_neutral("lorebook.", "agnai"))
    losses = (
        ("extensions.agnai.persona", "approximated: replaced by a text persona when it no "
                                     "longer renders to the description (as Agnai does)"),
        ("assets", "dropped except the main icon (Agnai's avatar)"),
    )

    reader = "read:read_character"
    writer = "write:write_character"

    detect = detect_json(score)

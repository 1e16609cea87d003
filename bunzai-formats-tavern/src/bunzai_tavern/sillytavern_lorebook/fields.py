"""SillyTavern World Info field tables (specs §7.2; Chub's hybrid names as second spellings).

Every key of ST's entry template maps to one canonical attribute.  The V2 names Chub writes next
to the ST ones (``keys`` beside ``key``, ``enabled`` beside ``disable`` …) are second spellings of
the same attribute: when they agree with the ST value they are regenerated from the canonical
entry on write, when they disagree the ST value wins and the V2 value is kept as it was.

Most files carry only SillyTavern's names; they are read with :data:`ST_ENTRY`, the same table
with one spelling per attribute, which reads a value of the expected type without converting
or copying it.  Its readings restore through :data:`ENTRY` like any other.
"""

from __future__ import annotations

from bunzai.sdk import POSITIONS, ROLES, SELECTIVE_LOGIC
from bunzai.sdk.fields import (
    BOOL,
    DICT,
    ID,
    INT,
    INT_OR_BOOL,
    NOT_BOOL,
    NUM,
    STRLIST,
    Field,
    Table,
    enum,
    field,
    slot,
)

from .._common.book_root import book_table

POSITION = enum(POSITIONS, "position")
ROLE = enum(ROLES, "role")
LOGIC = enum(SELECTIVE_LOGIC, "selectiveLogic")

ENTRY = Table((
    field("keys", "key", "keys", conv=STRLIST, absent=[], warn_mismatch=True),
    field("secondary_keys", "keysecondary", "secondary_keys", conv=STRLIST, absent=[],
          warn_mismatch=True),
    field("comment"),
    field("content", absent=""),
    field("constant", conv=BOOL),
    field("vectorized", conv=BOOL),
    field("selective", conv=BOOL),
    field("selective_logic", "selectiveLogic", conv=LOGIC),
    slot("addMemo"),
    field("insertion_order", "order", "insertion_order", conv=NUM, warn_mismatch=True),
    field("position", conv=POSITION),
    field("enabled", ("disable", NOT_BOOL), ("enabled", BOOL), absent=True, warn_mismatch=True),
    field("ignore_budget", "ignoreBudget", conv=BOOL),
    field("exclude_recursion", "excludeRecursion", conv=BOOL),
    field("prevent_recursion", "preventRecursion", conv=BOOL),
    field("match_persona_description", "matchPersonaDescription", conv=BOOL),
    field("match_character_description", "matchCharacterDescription", conv=BOOL),
    field("match_character_personality", "matchCharacterPersonality", conv=BOOL),
    field("match_character_depth_prompt", "matchCharacterDepthPrompt", conv=BOOL),
    field("match_scenario", "matchScenario", conv=BOOL),
    field("match_creator_notes", "matchCreatorNotes", conv=BOOL),
    field("delay_until_recursion", "delayUntilRecursion", conv=INT_OR_BOOL),
    field("probability", conv=NUM),
    field("use_probability", "useProbability", conv=BOOL),
    field("depth", conv=INT),
    field("outlet_name", "outletName"),
    field("group"),
    field("group_override", "groupOverride", conv=BOOL),
    field("group_weight", "groupWeight", conv=NUM),
    field("scan_depth", "scanDepth", conv=INT, null=True),
    field("case_sensitive", "caseSensitive", "case_sensitive", conv=BOOL, null=True),
    field("match_whole_words", "matchWholeWords", conv=BOOL, null=True),
    field("use_group_scoring", "useGroupScoring", conv=BOOL, null=True),
    field("automation_id", "automationId"),
    field("role", conv=ROLE, null=True),
    field("sticky", conv=INT, null=True),
    field("cooldown", conv=INT, null=True),
    field("delay", conv=INT, null=True),
    field("triggers", conv=STRLIST),
    field("id", ("uid", ID), ("id", ID)),
    field("display_index", "displayIndex", conv=INT, quiet=True),
    field("extensions", conv=DICT, absent={}, omit_empty=True),
    field("character_filter", "characterFilter", conv=DICT),
    field("name"),
    field("priority", conv=NUM),
    field("use_regex", conv=BOOL),
))
"""One World Info entry, in the key order current SillyTavern writes (``uid`` near the end);
``name``/``priority``/``use_regex`` are card-book keys Chub writes and ST keeps untouched."""

SECOND_SPELLINGS = frozenset(n for f in ENTRY.fields for n, _ in f.names[1:])
"""Chub's V2 names; an entry holding none of them is read with :data:`ST_ENTRY`."""

ST_ENTRY = Table(tuple(Field(f.attr, f.names[:1], f.absent, f.null, f.foreign, f.omit_empty,
                             f.warn_mismatch, f.quiet) for f in ENTRY.fields))

BOOK = book_table(camel_first=False)
"""Root keys of a World Info file other than ``entries`` (ST itself writes none of these; Chub
and hand-made books do, and ST keeps them)."""

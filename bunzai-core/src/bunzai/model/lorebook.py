"""Lorebooks (world info): a superset of the CCv3 lorebook and SillyTavern world-info entries.

Every optional field uses ``None`` for "absent" so a reader never invents a default that the
source did not state: SillyTavern and the card spec disagree on defaults (probability 100 vs
null, selective true vs false), and a converter that fills them in changes behaviour.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from .common import CanonicalModel, EntityBase, JSONValue

POSITIONS = (
    "before_char",
    "after_char",
    "an_top",
    "an_bottom",
    "at_depth",
    "em_top",
    "em_bottom",
    "outlet",
)
"""Canonical insertion positions (SillyTavern's 0..7 in order); other values are kept as given."""

SELECTIVE_LOGIC = ("and_any", "not_all", "not_any", "and_all")
"""SillyTavern's selectiveLogic 0..3."""

ROLES = ("system", "user", "assistant")


class LorebookEntry(CanonicalModel):
    """One entry. Field names follow the CCv3 spec where it has one, SillyTavern otherwise."""

    id: int | str | None = None
    keys: list[str] = Field(default_factory=list)
    secondary_keys: list[str] = Field(default_factory=list)
    content: str = ""
    comment: str | None = Field(None, description="title / memo (SillyTavern comment)")
    name: str | None = Field(None, description="CCv3/Agnai entry name")
    enabled: bool = True
    constant: bool | None = None
    selective: bool | None = None
    selective_logic: str | None = Field(None, description="and_any, not_all, not_any, and_all")
    insertion_order: int | float | None = None
    priority: int | float | None = None
    case_sensitive: bool | None = None
    match_whole_words: bool | None = None
    use_regex: bool | None = None
    position: str | None = Field(None, description="one of POSITIONS, or a format's own value")
    depth: int | None = None
    role: str | None = Field(None, description="system, user or assistant")
    probability: float | int | None = None
    use_probability: bool | None = None
    group: str | None = None
    group_override: bool | None = None
    group_weight: float | int | None = None
    use_group_scoring: bool | None = None
    scan_depth: int | None = None
    exclude_recursion: bool | None = None
    prevent_recursion: bool | None = None
    delay_until_recursion: int | bool | None = None
    sticky: int | None = None
    cooldown: int | None = None
    delay: int | None = None
    vectorized: bool | None = None
    automation_id: str | None = None
    display_index: int | None = None
    ignore_budget: bool | None = None
    match_persona_description: bool | None = None
    match_character_description: bool | None = None
    match_character_personality: bool | None = None
    match_character_depth_prompt: bool | None = None
    match_scenario: bool | None = None
    match_creator_notes: bool | None = None
    outlet_name: str | None = None
    triggers: list[str] | None = None
    character_filter: dict[str, JSONValue] | None = None
    folder: str | None = Field(None, description="id of the folder entry this entry sits in")
    is_folder: bool = Field(False, description="a folder node (RisuAI), not an insertable entry")
    extensions: dict[str, JSONValue] = Field(default_factory=dict)
    app_data: dict[str, dict[str, JSONValue]] = Field(
        default_factory=dict, description="user data only one app understands (see EntityBase)")
    passthrough: dict[str, JSONValue] = Field(
        default_factory=dict, description="per-format layout, never user data (see EntityBase)")


class Lorebook(EntityBase):
    """A standalone lorebook, or the book embedded in a character."""

    kind: Literal["lorebook"] = "lorebook"
    name: str | None = None
    description: str | None = None
    scan_depth: int | None = None
    token_budget: int | None = None
    recursive_scanning: bool | None = None
    entries: list[LorebookEntry] = Field(default_factory=list)

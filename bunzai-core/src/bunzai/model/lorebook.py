"""Lorebooks (world info): a superset of the CCv3 lorebook and SillyTavern world-info entries.

Every optional field uses ``None`` for "absent" so a reader never invents a default that the
source did not state: SillyTavern and the card spec disagree on defaults (probability 100 vs
null, selective true vs false), and a converter that fills them in changes behaviour.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from .common import (
    SEE_ENTITY_APP_DATA,
    CanonicalModel,
    EntityBase,
    JSONValue,
    app_data_field,
    extensions_field,
    passthrough_field,
)

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

    id: int | str | None = Field(None, description="the entry's id in its app (a number or a text)")
    keys: list[str] = Field(default_factory=list,
        description="words that activate the entry when they appear in the scanned text")
    secondary_keys: list[str] = Field(default_factory=list,
        description="optional second keys, combined with keys by selective_logic")
    content: str = Field("", description="the text put into the prompt when the entry activates")
    comment: str | None = Field(None, description="title / memo (SillyTavern comment)")
    name: str | None = Field(None, description="CCv3/Agnai entry name")
    enabled: bool = Field(True, description="a disabled entry never activates")
    constant: bool | None = Field(None, description="always in the prompt, whatever the keys")
    selective: bool | None = Field(None, description="the secondary keys take part in matching")
    selective_logic: str | None = Field(None, description="and_any, not_all, not_any, and_all")
    insertion_order: int | float | None = Field(
        None, description="order among the activated entries in the prompt")
    priority: int | float | None = Field(
        None, description="which entries stay when the token budget runs out (CCv3)")
    case_sensitive: bool | None = Field(None, description="keys match only in the same letter case")
    match_whole_words: bool | None = Field(None, description="keys match only whole words")
    use_regex: bool | None = Field(None, description="keys are regular expressions")
    position: str | None = Field(None, description="one of POSITIONS, or a format's own value")
    depth: int | None = Field(
        None, description="for position at_depth: how many messages from the end it goes in")
    role: str | None = Field(None, description="system, user or assistant")
    probability: float | int | None = Field(
        None, description="chance in percent that an activated entry goes in")
    use_probability: bool | None = Field(None, description="probability applies")
    group: str | None = Field(
        None, description="inclusion group: of its activated entries only one goes in")
    group_override: bool | None = Field(
        None, description="wins its inclusion group by order instead of by chance")
    group_weight: float | int | None = Field(
        None, description="weight in its inclusion group's random pick")
    use_group_scoring: bool | None = Field(
        None, description="its group's winner is the entry with the most matching keys")
    scan_depth: int | None = Field(None,
        description="how many recent messages are scanned for its keys (instead of the book's)")
    exclude_recursion: bool | None = Field(
        None, description="not activated by other entries' content")
    prevent_recursion: bool | None = Field(None, description="its content activates no other entry")
    delay_until_recursion: int | bool | None = Field(
        None, description=("activated only by other entries' content (a number: from that "
                     "recursion level on)"))
    sticky: int | None = Field(
        None, description="stays active for this many messages once activated")
    cooldown: int | None = Field(None, description="cannot activate again for this many messages")
    delay: int | None = Field(
        None, description="cannot activate before the chat has this many messages")
    vectorized: bool | None = Field(None,
        description="also activated by meaning (SillyTavern's vector storage), not only by keys")
    automation_id: str | None = Field(
        None, description="the Quick Reply automation it runs when activated (SillyTavern)")
    display_index: int | None = Field(None, description="its place in the app's editor list")
    ignore_budget: bool | None = Field(
        None, description="goes in even when the token budget is spent")
    match_persona_description: bool | None = Field(
        None, description="keys are also looked for in the user's persona description")
    match_character_description: bool | None = Field(
        None, description="keys are also looked for in the character's description")
    match_character_personality: bool | None = Field(
        None, description="keys are also looked for in the character's personality")
    match_character_depth_prompt: bool | None = Field(
        None, description="keys are also looked for in the character's depth prompt")
    match_scenario: bool | None = Field(
        None, description="keys are also looked for in the scenario")
    match_creator_notes: bool | None = Field(
        None, description="keys are also looked for in the creator's notes")
    outlet_name: str | None = Field(
        None, description="for position outlet: the outlet it fills ({{outlet::name}})")
    triggers: list[str] | None = Field(None,
        description="generation types it activates on (normal, continue, swipe, …); empty: all")
    character_filter: dict[str, JSONValue] | None = Field(
        None, description="characters or tags it is limited to, or kept from")
    folder: str | None = Field(None, description="id of the folder entry this entry sits in")
    is_folder: bool = Field(False, description="a folder node (RisuAI), not an insertable entry")
    extensions: dict[str, JSONValue] = extensions_field()
    app_data: dict[str, dict[str, JSONValue]] = app_data_field(SEE_ENTITY_APP_DATA)
    passthrough: dict[str, JSONValue] = passthrough_field()


class Lorebook(EntityBase):
    """A standalone lorebook, or the book embedded in a character."""

    kind: Literal["lorebook"] = Field("lorebook", description="the entity kind, always lorebook")
    name: str | None = Field(None, description="the book's name")
    description: str | None = Field(
        None, description="what the book is for; never sent to the model")
    scan_depth: int | None = Field(
        None, description="how many recent messages are scanned for keys")
    token_budget: int | None = Field(
        None, description="the most tokens the book's entries may take in a prompt")
    recursive_scanning: bool | None = Field(
        None, description="activated entries' content may activate further entries")
    entries: list[LorebookEntry] = Field(default_factory=list, description="the book's entries")

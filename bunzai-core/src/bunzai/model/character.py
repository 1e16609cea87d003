"""Characters: a superset of Character Card V3."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from .common import Asset, EntityBase
from .lorebook import Lorebook
from .regex import RegexScript


class Character(EntityBase):
    """A character card. ``None`` on an optional field means the source did not state it."""

    kind: Literal["character"] = Field("character", description="the entity kind, always character")
    name: str = Field("", description="the character's name: what {{char}} stands for")
    nickname: str | None = Field(
        None, description="a name {{char}} stands for instead of name (CCv3)")
    description: str = Field(
        "", description="who the character is: the main text sent with every prompt")
    personality: str = Field("", description="a short summary of the character's personality")
    scenario: str = Field("", description="the situation the chat starts in")
    first_mes: str = Field("", description="the greeting: the chat's first message")
    mes_example: str = Field(
        "", description="example dialogue showing how the character speaks (<START> blocks)")
    creator_notes: str = Field(
        "", description="the creator's notes to users; never sent to the model")
    creator_notes_multilingual: dict[str, str] | None = Field(
        None, description="creator notes by language code (CCv3)")
    system_prompt: str = Field(
        "", description=("the card's system prompt, used instead of the app's ({{original}} "
                     "keeps the app's)"))
    post_history_instructions: str = Field(
        "", description="instructions sent after the chat history")
    alternate_greetings: list[str] = Field(default_factory=list,
        description="further greetings a user can start with instead of first_mes")
    group_only_greetings: list[str] = Field(
        default_factory=list, description="greetings used only in group chats (CCv3)")
    tags: list[str] = Field(default_factory=list, description="the card's tags")
    creator: str = Field("", description="who made the card")
    character_version: str = Field("", description="the card's own version text")
    source: list[str] | None = Field(
        None, description="where the card came from: URLs or ids (CCv3)")
    creation_date: int | None = Field(None, description="when the card was made, in Unix seconds")
    modification_date: int | None = Field(
        None, description="when the card was last changed, in Unix seconds")
    lorebook: Lorebook | None = Field(None, description="the embedded character book")
    assets: list[Asset] = Field(default_factory=list,
        description=("pictures, sounds and other files the card carries (icon, backgrounds, "
                     "emotions)"))
    regex_scripts: list[RegexScript] = Field(
        default_factory=list, description="character-scoped regex scripts"
    )
    triggers: list[dict[str, object]] | None = Field(
        None, description="RisuAI trigger scripts, kept opaque and never run"
    )

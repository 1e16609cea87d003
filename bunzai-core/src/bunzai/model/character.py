"""Characters: a superset of Character Card V3."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from .common import Asset, EntityBase
from .lorebook import Lorebook
from .regex import RegexScript


class Character(EntityBase):
    """A character card. ``None`` on an optional field means the source did not state it."""

    kind: Literal["character"] = "character"
    name: str = ""
    nickname: str | None = None
    description: str = ""
    personality: str = ""
    scenario: str = ""
    first_mes: str = ""
    mes_example: str = ""
    creator_notes: str = ""
    creator_notes_multilingual: dict[str, str] | None = None
    system_prompt: str = ""
    post_history_instructions: str = ""
    alternate_greetings: list[str] = Field(default_factory=list)
    group_only_greetings: list[str] = Field(default_factory=list)
    tags: list[str] = Field(default_factory=list)
    creator: str = ""
    character_version: str = ""
    source: list[str] | None = None
    creation_date: int | None = Field(None, description="Unix seconds")
    modification_date: int | None = Field(None, description="Unix seconds")
    lorebook: Lorebook | None = Field(None, description="the embedded character book")
    assets: list[Asset] = Field(default_factory=list)
    regex_scripts: list[RegexScript] = Field(
        default_factory=list, description="character-scoped regex scripts"
    )
    triggers: list[dict[str, object]] | None = Field(
        None, description="RisuAI trigger scripts, kept opaque and never run"
    )

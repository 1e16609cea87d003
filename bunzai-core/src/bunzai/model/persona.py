"""User personas (SillyTavern persona management, RisuAI persona cards, RoleCall personas)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from .common import Asset, EntityBase, JSONValue


class Persona(EntityBase):
    """One persona: who ``{{user}}`` is."""

    kind: Literal["persona"] = Field("persona", description="the entity kind, always persona")
    name: str = Field("", description="the persona's name: what {{user}} stands for")
    description: str = Field("", description="who the user is, sent with the prompt")
    title: str | None = Field(None, description="a short label the app shows beside the name")
    note: str | None = Field(None, description="a note to the user; never sent to the model")
    avatar_id: str | None = Field(None, description="the app's avatar key (SillyTavern file name)")
    avatar: Asset | None = Field(None, description="the persona's picture")
    is_default: bool = Field(False, description="the app picks this persona for new chats")
    position: int | None = Field(None, description="SillyTavern: 0 in prompt … 4 at depth, 9 none")
    depth: int | None = Field(
        None, description="for an at-depth position: how many messages from the end it goes in")
    role: int | None = Field(None, description="0 system, 1 user, 2 assistant")
    lorebook: str | None = Field(None, description="name of a linked lorebook")
    connections: list[dict[str, JSONValue]] | None = Field(
        None, description="the characters or chats the persona is tied to")

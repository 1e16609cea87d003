"""User personas (SillyTavern persona management, RisuAI persona cards, RoleCall personas)."""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from .common import Asset, EntityBase, JSONValue


class Persona(EntityBase):
    """One persona: who ``{{user}}`` is."""

    kind: Literal["persona"] = "persona"
    name: str = ""
    description: str = ""
    title: str | None = None
    note: str | None = None
    avatar_id: str | None = Field(None, description="the app's avatar key (SillyTavern file name)")
    avatar: Asset | None = None
    is_default: bool = False
    position: int | None = Field(None, description="SillyTavern: 0 in prompt … 4 at depth, 9 none")
    depth: int | None = None
    role: int | None = Field(None, description="0 system, 1 user, 2 assistant")
    lorebook: str | None = Field(None, description="name of a linked lorebook")
    connections: list[dict[str, JSONValue]] | None = None

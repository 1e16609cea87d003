"""Modules: a bundle of lorebook, regex scripts, trigger scripts and assets (RisuAI ``.risum``).

A module is not a character (it has no persona text or greetings), and squeezing it into a
lorebook or a regex kind would drop the other half, so it is a kind of its own.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from .common import Asset, EntityBase, JSONValue
from .lorebook import Lorebook
from .regex import RegexScript


class Module(EntityBase):
    """A reusable bundle of behaviour that can be attached to characters."""

    kind: Literal["module"] = Field("module", description="the entity kind, always module")
    id: str | None = Field(
        None, description="the module's id (RisuAI gives it a new one on import)")
    name: str = Field("", description="the module's name")
    description: str = Field("", description="what the module does")
    namespace: str | None = Field(
        None, description="the stable name characters and chats enable the module by")
    lorebook: Lorebook | None = Field(None, description="the lorebook entries the module adds")
    regex_scripts: list[RegexScript] = Field(
        default_factory=list, description="the regex scripts the module adds")
    triggers: list[dict[str, JSONValue]] | None = Field(
        None, description="RisuAI trigger scripts, kept opaque and never run")
    assets: list[Asset] = Field(default_factory=list, description="the files the module carries")
    low_level_access: bool | None = Field(
        None, description="grants scripts direct model/storage access; never set by bunzai"
    )

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

    kind: Literal["module"] = "module"
    id: str | None = None
    name: str = ""
    description: str = ""
    namespace: str | None = None
    lorebook: Lorebook | None = None
    regex_scripts: list[RegexScript] = Field(default_factory=list)
    triggers: list[dict[str, JSONValue]] | None = None
    assets: list[Asset] = Field(default_factory=list)
    low_level_access: bool | None = Field(
        None, description="grants scripts direct model/storage access; never set by bunzai"
    )

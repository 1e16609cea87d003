"""Regex scripts (SillyTavern regex, RisuAI custom scripts).

Patterns are data: bunzai never compiles or runs them during conversion, because the apps use
JavaScript regex semantics that Python's ``re`` does not share.
"""

from __future__ import annotations

from typing import Literal

from pydantic import Field

from .common import EntityBase

PLACEMENTS = ("user_input", "ai_output", "slash_command", "world_info", "reasoning", "display")


class RegexScript(EntityBase):
    """One find/replace script."""

    kind: Literal["regex"] = Field("regex", description="the entity kind, always regex")
    id: str | None = Field(None, description="the script's id in its app")
    name: str = Field("", description="the script's name")
    pattern: str = Field("", description="regex source, without slashes or flags")
    flags: str | None = Field(None, description="JavaScript flags (g, i, m, s, u, …)")
    replace: str = Field("", description="the replacement ({{match}} and $1 … put in what matched)")
    trim_strings: list[str] = Field(
        default_factory=list, description="texts taken out of the match before it is replaced")
    placement: list[str] = Field(
        default_factory=list, description="where it runs: PLACEMENTS, or a format's own value"
    )
    disabled: bool = Field(False, description="the script does not run")
    markdown_only: bool | None = Field(None, description="alters display only")
    prompt_only: bool | None = Field(None, description="alters the outgoing prompt only")
    run_on_edit: bool | None = Field(None, description="also runs when a message is edited")
    substitute_regex: int | None = Field(None, description="0 none, 1 raw, 2 escaped")
    min_depth: int | None = Field(
        None, description="runs only on messages at least this far from the end (0: the last)")
    max_depth: int | None = Field(
        None, description="runs only on messages at most this far from the end")

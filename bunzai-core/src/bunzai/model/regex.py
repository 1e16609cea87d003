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

    kind: Literal["regex"] = "regex"
    id: str | None = None
    name: str = ""
    pattern: str = Field("", description="regex source, without slashes or flags")
    flags: str | None = Field(None, description="JavaScript flags (g, i, m, s, u, …)")
    replace: str = ""
    trim_strings: list[str] = Field(default_factory=list)
    placement: list[str] = Field(
        default_factory=list, description="where it runs: PLACEMENTS, or a format's own value"
    )
    disabled: bool = False
    markdown_only: bool | None = Field(None, description="alters display only")
    prompt_only: bool | None = Field(None, description="alters the outgoing prompt only")
    run_on_edit: bool | None = None
    substitute_regex: int | None = Field(None, description="0 none, 1 raw, 2 escaped")
    min_depth: int | None = None
    max_depth: int | None = None

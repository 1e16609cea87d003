"""The prompt renderer for format plugins: the chats a template is proven on and SillyTavern's
rules for a canonical preset.

A format whose own template language builds prompts (a Jinja chat template) turns its template
into instruct sequences and must show that the sequences build the prompt the template does;
it renders both sides here rather than importing the engine, and its tests compare the prompts
a conversion builds (``render_difference``).
"""

from __future__ import annotations

from ..prompts.render import (
    DEFAULT_STORY_STRING,
    Scene,
    Turn,
    marker_scenes,
    render_difference,
    render_entity,
    render_preset,
    substitute,
)

__all__ = ["DEFAULT_STORY_STRING", "Scene", "Turn", "marker_scenes", "render_difference",
           "render_entity", "render_preset", "substitute"]

"""``bunzai template render``: the prompt a preset or template file builds for a chat."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import UsageError
from ..host.registry import get_registry
from ..prompts.render import marker_scenes, render_entity, scene_from
from .reading import read_file

if TYPE_CHECKING:
    from ..host.registry import Registry


def render_file(source: Any, chat: Any = None, card: Any = None, *,
                registry: Registry | None = None) -> str:
    """What ``bunzai template render`` prints: the template file's prompt for the chat (or
    the first marker chat) and the card."""
    reg = registry or get_registry()
    reading = read_file(source, registry=reg)
    if reading.error is not None:
        raise reading.error
    entity = reading.entities[0]
    if getattr(entity, "kind", None) != "preset":
        raise UsageError(f"this file is a {getattr(entity, 'kind', '?')}, not a preset or "
                         "template")
    scene = scene_from(chat, card) if chat is not None or card is not None \
        else marker_scenes()[1]
    return render_entity(reg, entity, scene)

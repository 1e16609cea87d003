"""What the chat-template preset formats (Hugging Face's, text-generation-webui's) share as
adapters: a template is an instruct preset whose sequences ``chat_template.py`` derives, read,
written and rendered by the format folder's ``io`` module."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from bunzai.sdk import Detection, FormatAdapter, hookimpl

from .chat_template import CARRIED

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput


class TemplateAdapter(FormatAdapter):
    """Base of a chat-template format: set ``score`` (the format's detection) and give the
    folder an ``io`` module with ``read_template``, ``write_template`` and
    ``render_prompt``."""

    kind = "preset"
    carries = CARRIED
    reader = "io:read_template"
    writer = "io:write_template"

    @staticmethod
    def score(input: AdapterInput) -> tuple[float, str]:
        """(score, reason) for a file."""
        raise NotImplementedError

    def detect(self, input: AdapterInput) -> Detection:
        s, why = self.score(input)
        return Detection(s, why)

    @hookimpl
    def bunzai_render_prompt(self, entity: Any, scene: Any) -> str | None:
        """The prompt the app would build from the template for ``scene``."""
        render = self._named("io:render_prompt")
        return render(entity, scene, self.format_id)  # type: ignore[no-any-return]


__all__ = ["TemplateAdapter"]

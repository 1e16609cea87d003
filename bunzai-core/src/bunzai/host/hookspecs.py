"""The hooks a bunzai plugin implements.

A format plugin is one object (module, class or instance) registered from the entry-point group
``bunzai.formats`` under its format id.  It implements ``bunzai_format_info``, ``bunzai_detect``,
``bunzai_to_canonical`` and ``bunzai_from_canonical``; the other hooks are optional.  Core never
calls these through ``pm.hook``: the registry calls each adapter's own implementation, so the
answer of one adapter is always attributed to it.  Plugins in the ``bunzai.plugins`` group may
implement only the optional hooks (CLI commands, label rules).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

import pluggy

if TYPE_CHECKING:
    import typer

    from ..errors import Issue
    from ..io.input import AdapterInput
    from ..model import Entity
    from .types import Detection, FormatInfo, LabelRule, ReadResult, WriteResult

PROJECT = "bunzai"
hookspec = pluggy.HookspecMarker(PROJECT)
hookimpl = pluggy.HookimplMarker(PROJECT)


@hookspec
def bunzai_format_info() -> FormatInfo:
    """Describe the adapter: id, kind, label, output suffix, options, scores and losses."""
    raise NotImplementedError


@hookspec
def bunzai_detect(input: AdapterInput) -> Detection | None:
    """Score ``input`` 0..1 for this adapter: 0 is "not mine", 0.5 and up can win.

    Must be cheap and must not raise: use the input's shared views (``input.json``,
    ``input.png_json("chara")``, ``input.zip``) instead of parsing the bytes again.
    """
    raise NotImplementedError


@hookspec
def bunzai_to_canonical(input: AdapterInput, options: Mapping[str, Any]) -> ReadResult:
    """Read ``input`` into one or more canonical entities of this adapter's kind.

    Raise :class:`bunzai.errors.MalformedInput` (or a subclass) for anything unreadable.
    """
    raise NotImplementedError


@hookspec
def bunzai_from_canonical(
    entities: Sequence[Entity], options: Mapping[str, Any]
) -> WriteResult:
    """Write entities of this adapter's kind; return the files and an honest loss report.

    Core passes one entity at a time unless the adapter's ``FormatInfo.multi`` is true.
    """
    raise NotImplementedError


@hookspec
def bunzai_validate(input: AdapterInput, entities: Sequence[Entity]) -> list[Issue]:
    """Optional: violations of the format's own rules, each with a JSON path into the source."""
    raise NotImplementedError


@hookspec
def bunzai_label_rules() -> list[LabelRule]:
    """Optional: origin-labeler rules this plugin contributes (app evidence)."""
    raise NotImplementedError


@hookspec
def bunzai_chats_in(entity: Entity) -> list[Entity] | None:
    """Optional: the chats an entity this adapter read carries (a Backyard archive's scenario
    logs), as canonical chats; ``None`` when the entity is not this adapter's."""
    raise NotImplementedError


@hookspec
def bunzai_embed_chat(entity: Entity, chat: Entity) -> Entity:
    """Optional: a copy of ``entity`` (read by this adapter) carrying ``chat`` as one more of
    its chats."""
    raise NotImplementedError


@hookspec
def bunzai_render_prompt(entity: Entity, scene: Any) -> str | None:
    """Optional: the prompt a template this adapter read builds for ``scene`` (a
    ``bunzai.prompts.render.Scene``) by the format's own template language (Jinja); ``None``
    when the entity holds no template of this format."""
    raise NotImplementedError


@hookspec
def bunzai_register_commands(app: typer.Typer) -> None:
    """Optional: add commands to the ``bunzai`` CLI."""
    raise NotImplementedError


FORMAT_HOOKS = ("bunzai_format_info", "bunzai_detect", "bunzai_to_canonical",
                "bunzai_from_canonical")
"""The hooks every format adapter must implement."""

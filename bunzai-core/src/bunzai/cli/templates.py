"""``bunzai template``: the prompt a preset or prompt template builds."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from ..errors import BunzaiError
from .common import loaded_registry
from .group import SETTINGS, Command, command_group
from .output import fail

template_app = typer.Typer(help="Show the prompt a preset or prompt template builds.",
                           no_args_is_help=True, **SETTINGS)
command_group("template", template_app)


@template_app.callback()
def template_group() -> None:
    """Show the prompt a preset or prompt template builds."""


@template_app.command("render", cls=Command)
def template_render(
    template: Annotated[Path, typer.Argument(metavar="TEMPLATE",
                                             help="Preset or prompt template file.")],
    chat: Annotated[Path | None, typer.Option(
        "--chat", metavar="CHAT", show_default=False,
        help="Chat to render (default: a short chat of marker messages).")] = None,
    card: Annotated[Path | None, typer.Option(
        "--card", metavar="CARD", show_default=False,
        help="Character card whose fields fill the story string.")] = None,
) -> None:
    """Print the exact prompt text TEMPLATE builds for a chat (SillyTavern's rules; Jinja
    templates through Jinja)."""
    from ..api import read
    from ..engine.templates import render_file

    try:
        reg = loaded_registry()
        chat_entity = read(chat, registry=reg) if chat is not None else None
        card_entity = read(card, registry=reg) if card is not None else None
        text = render_file(template, chat_entity, card_entity, registry=reg)
    except BunzaiError as exc:
        fail(exc)
    typer.echo(text, nl=False)

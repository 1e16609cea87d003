"""The ``bunzai.plugins`` entry point: adds ``bunzai studio`` to the CLI.

Every registry load imports this module (the host loads all plugins), so it imports nothing but
core's hook marker; the command and the web stack are imported only when they are used.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from bunzai import hookimpl

if TYPE_CHECKING:
    import typer


@hookimpl
def bunzai_register_commands(app: typer.Typer) -> None:
    """Register ``bunzai studio``."""
    from .command import add_command

    add_command(app)

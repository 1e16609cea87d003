"""``bunzai studio``: the command's options; the server is imported only when it runs."""

from __future__ import annotations

from typing import Annotated

import typer

from . import DEFAULT_MAX_UPLOAD, ENV_MAX_UPLOAD


def add_command(app: typer.Typer) -> None:
    """Add the ``studio`` command to a typer app (core's CLI)."""

    @app.command("studio")
    def studio(
        host: Annotated[str, typer.Option(
            "--host", metavar="HOST",
            help="Address to listen on. Loopback by default: the studio has no login, so "
                 "anyone who can reach it can use it.")] = "127.0.0.1",
        port: Annotated[int, typer.Option("--port", metavar="PORT",
                                         help="Port (0 picks a free one).")] = 8765,
        open_browser: Annotated[bool, typer.Option(
            "--open", help="Open the page in the default web browser.")] = False,
        max_upload: Annotated[str | None, typer.Option(
            "--max-upload", metavar="SIZE", envvar=ENV_MAX_UPLOAD, show_default=False,
            help=f"Largest upload accepted: bytes, or with K, M, G, KiB, MiB, GiB (default "
                 f"{DEFAULT_MAX_UPLOAD // (1024 * 1024)} MiB).")] = None,
    ) -> None:
        """Serve the studio: a local web page to inspect, check and convert files."""
        from bunzai import BunzaiError

        from .server import serve
        from .uploads import parse_size

        try:
            limit = parse_size(max_upload) if max_upload else DEFAULT_MAX_UPLOAD
            serve(host, port, open_browser=open_browser, max_upload=limit)
        except BunzaiError as exc:
            typer.echo(f"bunzai: error: {exc}", err=True)
            raise typer.Exit(exc.exit_code) from None

"""The ``bunzai`` command line: it presents what the engine (:mod:`bunzai.api`) does, and
nothing more.

Exit codes (documented in the README and relied on by scripts): 0 ok; 1 validation failed,
files differ or active content found; 2 usage error; 3 unrecognized or ambiguous input; 4
unreadable or malformed input; 5 conversion refused (cross-kind, existing output) or the output
could not be written (disk full, permission denied).

Every command that reads files takes several: files, folders (every file inside) and globs.  Each
file gets its own block, or its own JSON line with ``--json``; a bad file is reported on stderr
and the rest go on; the exit status is the worst file's.  Arguments (``--from``, ``--to``,
``--option``) are checked before any file is read.  The commands live by family in this
package (:mod:`.files`, :mod:`.convert`, :mod:`.books`, :mod:`.library`, :mod:`.templates`,
:mod:`.info`), each imported only when one of its commands runs; :mod:`.group` is the lazy
command group and its list of core commands, :mod:`.output` what they print.
"""

from __future__ import annotations

import os
import sys
from typing import TYPE_CHECKING, Any

import typer

from ..errors import BunzaiError, speaking
from .group import app
from .output import CLI_WORDS, ClosedPipeSafe

if TYPE_CHECKING:
    from ..host.registry import Registry

__all__ = ["app", "invoke", "main"]

def invoke(*args: str, registry: Registry | None = None) -> Any:
    """Run ``bunzai`` in-process with typer's test runner (exit code, stdout, stderr): for
    tests of commands, a plugin's included; ``registry`` replaces the process-wide one."""
    from typer.testing import CliRunner

    from ..host.registry import set_registry

    if registry is not None:
        set_registry(registry)
    try:
        return CliRunner().invoke(app, list(args))
    finally:
        if registry is not None:
            set_registry(None)


def main(argv: list[str] | None = None) -> None:
    """Console entry point."""
    args = sys.argv[1:] if argv is None else argv
    real = sys.stdout
    sys.stdout = ClosedPipeSafe(real)
    try:
        with speaking(CLI_WORDS):
            _run(args)
    finally:
        sys.stdout.flush()
        sys.stdout = real


def _run(args: list[str]) -> None:
    """The command; what escapes it is one line on stderr and an exit code."""
    try:
        app(args=args, prog_name="bunzai")
    except BunzaiError as exc:  # safety net: commands handle their own errors
        typer.echo(f"bunzai: error: {exc}", err=True)
        raise SystemExit(exc.exit_code) from None
    except (SystemExit, KeyboardInterrupt):
        raise
    except Exception as exc:
        if os.environ.get("BUNZAI_DEBUG"):
            raise
        typer.echo(f"bunzai: internal error: {type(exc).__name__}: {exc} "
                   "(set BUNZAI_DEBUG=1 for a traceback; please report it)", err=True)
        raise SystemExit(4) from None


if __name__ == "__main__":  # pragma: no cover
    main()

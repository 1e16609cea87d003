"""What is installed: ``bunzai formats``, ``bunzai plugins`` and ``bunzai schema``."""

from __future__ import annotations

from typing import Annotated

import typer

from ..errors import UsageError
from .common import JsonOpt, loaded_registry
from .group import command
from .output import emit_json, fail, say


@command("formats")
def formats_command(
    as_json: JsonOpt = False,
    markdown: Annotated[bool, typer.Option("--markdown", help="The roster as Markdown "
                                           "(docs/FORMAT-SUPPORT.md).")] = False,
) -> None:
    """List every installed format: id, kind, read/write, aliases and options."""
    from ..engine.roster import roster_json, roster_markdown

    reg = loaded_registry()
    if markdown:
        typer.echo(roster_markdown(reg), nl=False)
    elif as_json:
        emit_json(roster_json(reg))
    else:
        for info in reg.formats():
            rw = ("r" if info.can_read else "-") + ("w" if info.can_write else "-")
            alias = f"  (aliases: {', '.join(info.aliases)})" if info.aliases else ""
            default = f"  (default {info.kind} format)" if info.default_for_kind else ""
            say(f"{info.id:<24} {info.kind:<10} {rw}  {info.label}{alias}{default}")
            for opt in info.options.values():
                shown = "" if opt.default_text is None else f" (default: {opt.default_text})"
                where = "read option" if opt.reader else "option"
                say(f"{'':<24}   {where} {opt.name}={opt.values}{shown}: {opt.help}")


@command("plugins")
def plugins_command(as_json: JsonOpt = False) -> None:
    """List plugin distributions, their adapters, and plugins that were refused (and why)."""
    from ..engine.roster import plugins_json

    reg = loaded_registry()
    data = plugins_json(reg)
    if as_json:
        emit_json(data)
        return
    for dist in data["distributions"]:
        compat = "" if dist["compatible"] else "  INCOMPATIBLE"
        say(f"{dist['name']} {dist['version'] or ''}{compat}")
        for a in dist["adapters"]:
            say(f"  {a['format']:<24} {a['kind']:<10} api {a['api_version']}")
        for p in dist["plugins"]:
            say(f"  plugin {p}")
    if data["broken"]:
        say("broken plugins:")
        for b in data["broken"]:
            say(f"  {b['name']} ({b['distribution']}): {b['reason']}")


@command("schema")
def schema_command(
    kind: Annotated[str, typer.Argument(metavar="KIND", help="character, lorebook, persona, "
                                        "regex, module, chat or preset.")],
    glossary: Annotated[bool, typer.Option("--glossary", help="Print what each field means, "
                                           "as a table, instead of the schema.")] = False,
) -> None:
    """Print the JSON Schema of a canonical kind (each field described), or its glossary."""
    from ..kinds import KINDS
    if kind not in KINDS:
        fail(UsageError(f"unknown kind {kind!r} (kinds: {', '.join(KINDS)})"))
    if glossary:
        from ..engine.glossary import glossary_text
        typer.echo(glossary_text(kind), nl=False)
        return

    import json

    from ..model import json_schema

    typer.echo(json.dumps(json_schema(kind), indent=2, ensure_ascii=False))

"""The CLI reference, ``docs/cli.md``, generated from the command tree itself:
``python -m bunzai.cli.docgen DOCS_DIR`` (``python3 dev.py docs`` runs it).

Every core command and subcommand, in the order ``--help`` lists them, with its usage line, its
help and its arguments and options as ``--help`` shows them.  Nothing depends on the terminal's
width, on the shell or on which plugins are installed (plugin commands are documented with their
plugin), so the file is the same on every machine and ``tests/test_cli_reference.py`` fails when
it differs from what this renders.
"""

from __future__ import annotations

import re
from typing import Any

import typer
import typer.main
from typer.core import TyperGroup

from .group import CORE, app

HEADER = """# Command line reference

Generated from the `bunzai` command itself by `python3 dev.py docs` (a test fails when this page
is stale); `bunzai COMMAND --help` shows the same. Only core's commands are here: a plugin's
commands (such as `bunzai studio`, from `bunzai-studio`, see
[its page](../bunzai-studio/README.md)) are listed by `bunzai --help` and documented with the
plugin. What the exit codes mean and what to do about the common refusals:
[troubleshooting.md](troubleshooting.md).
"""

COMPLETION = ("install_completion", "show_completion")
"""The root's shell completion options: their help depends on whether the shell can be detected,
so they are described in words rather than copied."""


def _text(text: str) -> str:
    """Help text as one Markdown line: whitespace folded, what Markdown would take for markup
    (``<title>``, a table's ``|``, ``*``) escaped."""
    return re.sub(r"([\\<>|*`_])", r"\\\1", " ".join(text.split()))


def _paragraphs(doc: str | None) -> list[str]:
    return [_text(p) + "\n" for p in (doc or "").strip().split("\n\n") if p.strip()]


def _anchor(name: str) -> str:
    return "-".join(name.split()).lower()


def _link(name: str) -> str:
    return f"[`{name}`](#{_anchor(name)})"


def _table(title: str, rows: list[tuple[str, str]]) -> list[str]:
    if not rows:
        return []
    bar = "\\|"
    return [f"| {title} | |", "|---|---|",
            *(f"| `{a.replace('|', bar)}` | {_text(b)} |" for a, b in rows), ""]


def _params(command: Any, ctx: Any, skip: tuple[str, ...] = ()) -> list[str]:
    """The Arguments and Options tables, as the command's ``--help`` lists them."""
    arguments, options = [], []
    for p in command.get_params(ctx):
        if p.name in skip or getattr(p, "hidden", False):
            continue
        if p.param_type_name == "argument":
            arguments.append((p.metavar or (p.name or "").upper(), str(getattr(p, "help", "")
                                                                       or "")))
        elif (record := p.get_help_record(ctx)) is not None:
            options.append(record)
    return _table("Argument", arguments) + _table("Option", options)


def _section(command: Any, path: list[str], parent: Any) -> list[str]:
    ctx = typer.Context(command, info_name=path[-1], parent=parent)
    name = " ".join(path)
    usage = " ".join([name, *command.collect_usage_pieces(ctx)])
    lines = [f"## `{name}`", "", "```", usage, "```", "", *_paragraphs(command.help)]
    subs = command.list_commands(ctx) if isinstance(command, TyperGroup) else []
    children = [(s, command.get_command(ctx, s)) for s in subs]
    if children:
        lines += ["| Command | |", "|---|---|"]
        lines += [f"| {_link(f'{name} {s}')} | {_text(c.get_short_help_str(limit=1000))} |"
                  for s, c in children]
        lines.append("")
    lines += _params(command, ctx)
    for s, child in children:
        lines += _section(child, [*path, s], ctx)
    return lines


def cli_markdown() -> str:
    """``docs/cli.md``: the root's help and options, then every core command in the order
    ``bunzai --help`` lists them."""
    root = typer.main.get_command(app)
    ctx = typer.Context(root, info_name="bunzai", **root.context_settings)
    lines = [HEADER, "```", " ".join(["bunzai", *root.collect_usage_pieces(ctx)]), "```", "",
             *_paragraphs(root.help), *_paragraphs(root.epilog)]
    lines += ["| Command | |", "|---|---|"]
    lines += [f"| {_link(f'bunzai {n}')} | {_text(lazy.help)} |" for n, lazy in CORE.items()]
    lines.append("")
    lines += ["Options taken before the command (`-q` and `-v` are also taken after it):", ""]
    lines += _params(root, ctx, skip=COMPLETION)
    lines += ["`--install-completion` installs tab completion of bunzai's commands and options "
              "for your shell; `--show-completion` prints it, to copy or adapt.", ""]
    for name, lazy in CORE.items():
        lines += _section(lazy.command(), ["bunzai", name], ctx)
    return "\n".join(lines).rstrip("\n") + "\n"


def main(argv: list[str] | None = None) -> int:
    from ..engine.docgen import write_pages

    return write_pages(argv, lambda: {"cli.md": cli_markdown()})


if __name__ == "__main__":
    raise SystemExit(main())

"""The ``bunzai`` command group: core's commands known by name and first docstring line and
built only when they run, plugin commands added from the ``bunzai.plugins`` entry points.

``bunzai --help`` and ``--version`` import no format plugin and no pydantic model (click's
lazy-group pattern, through typer's public ``cls`` and ``typer.main.get_command``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, MutableMapping
from importlib import import_module
from typing import Annotated, Any

import typer
import typer.main
from typer.core import TyperCommand, TyperGroup

from .._version import __version__
from . import output
from .common import loaded_registry

SETTINGS: dict[str, Any] = {"add_completion": False, "rich_markup_mode": None,
                            "pretty_exceptions_enable": False}

def _loud(ctx: Any, param: Any, value: bool) -> None:
    """``-q``/``-v`` given after the command: they add to what the root options said."""
    if value:
        if param.name == "quiet":
            output.QUIET = True
        else:
            output.VERBOSE = True


_EVERYDAY: list[Any] = []


def everyday_options() -> list[Any]:
    """``--quiet`` and ``--verbose`` as every command takes them, after its name too
    (``bunzai convert card.png --to charx -q``), as they are taken before it: typer's own
    options, made once from a function that declares them."""
    if not _EVERYDAY:
        def declare(
            quiet: Annotated[bool, typer.Option(
                "--quiet", "-q", callback=_loud, expose_value=False,
                help="Print only errors (and --json output).")] = False,
            verbose: Annotated[bool, typer.Option(
                "--verbose", "-v", callback=_loud, expose_value=False,
                help="Print more detail: every loss report entry, full text diffs.")] = False,
        ) -> None:
            """Never run: it only declares the options."""

        one = typer.Typer(**SETTINGS)
        one.command()(declare)
        _EVERYDAY.extend(typer.main.get_command(one).params)
    return _EVERYDAY


def _missing(params: list[Any]) -> list[Any]:
    taken = {o for p in params for o in p.opts}
    return [o for o in everyday_options() if taken.isdisjoint(o.opts)]


def add_everyday_options(command: Any) -> Any:
    """``command`` (a plugin's too; every command of a group) taking ``-q``/``-v``, unless it
    has options of those names itself."""
    subcommands = getattr(command, "commands", None)
    if isinstance(subcommands, dict):
        for sub in subcommands.values():
            add_everyday_options(sub)
    else:
        command.params.extend(_missing(command.params))
    return command


class Command(TyperCommand):
    """A command whose help shows arguments by their metavar (``FILE…``), as people read them,
    and which takes ``-q``/``-v`` after its name as well."""

    def get_params(self, ctx: Any) -> list[Any]:
        params: list[Any] = super().get_params(ctx)
        help_option = self.get_help_option(ctx)
        last = [help_option] if params and params[-1] is help_option else []
        return params[:len(params) - len(last)] + _missing(params) + last

    def collect_usage_pieces(self, ctx: Any) -> list[str]:
        pieces = [self.options_metavar] if self.options_metavar else []
        for p in self.get_params(ctx):
            if p.param_type_name == "argument":
                pieces.append(p.metavar or (p.name or "").upper())
        return pieces

    def format_options(self, ctx: Any, formatter: Any) -> None:
        params = self.get_params(ctx)
        args = [(p.metavar or (p.name or "").upper(), str(getattr(p, "help", "") or ""))
                for p in params if p.param_type_name == "argument"]
        opts = [rec for p in params if p.param_type_name == "option"
                and (rec := p.get_help_record(ctx)) is not None]
        for title, rows in (("Arguments", args), ("Options", opts)):
            if rows:
                with formatter.section(title):
                    formatter.write_dl(rows)


class Lazy:
    """A command known by name and one line of help; built when it first runs."""

    def __init__(self, build: Callable[[], Any], help: str) -> None:
        self._build = build
        self._command: Any = None
        self.help = help

    def command(self) -> Any:
        if self._command is None:
            self._command = self._build()
        return self._command


COMMANDS: dict[str, tuple[str, str]] = {
    "inspect": ("files", "What a file is: container, format, confidence, every candidate, and "
                         "a summary."),
    "validate": ("files", "Check files against their format's rules and the canonical model "
                          "(exit 1 if invalid)."),
    "audit": ("files", "What files run when opened: scripts, triggers, HTML, remote files (exit "
                       "1 if any)."),
    "label": ("files", "Guess which app made (origin) and last saved (last writer) a file, with "
                       "evidence."),
    "convert": ("convert", "Convert files to another format of the same kind, printing what was "
                           "lost."),
    "diff": ("files", "Semantic diff of two files of the same kind, whatever their formats (exit "
                      "1 if different)."),
    "extract": ("files", "Write every embedded asset with a safe name and its real extension, "
                         "plus manifest.json."),
    "library": ("library", "Inspect a whole library, or move it to another app in one go."),
    "lorebook": ("books", "Extract, embed and merge lorebooks."),
    "chat": ("books", "Take the chats out of a card (a Backyard archive) and put one in."),
    "template": ("templates", "Show the prompt a preset or prompt template builds."),
    "formats": ("info", "List every installed format: id, kind, read/write, aliases and "
                        "options."),
    "plugins": ("info", "List plugin distributions, their adapters, and plugins that were "
                        "refused (and why)."),
    "schema": ("info", "Print the JSON Schema of a canonical kind (each field described), or its "
                       "glossary."),
}
"""Core's commands in the order ``--help`` lists them: the module of this package that
defines each, and the line the list shows (the first line of the command's own help; a test
holds the two equal).  Known here, the list is printed without importing the modules that
define the commands, which is most of what ``bunzai --help`` would otherwise cost (see
docs/performance.md)."""

def first_line(doc: str | None) -> str:
    """The line a command list shows for a command: the first of its help."""
    return (doc or "").strip().split("\n")[0].strip()


_BUILDERS: dict[str, Callable[[], Any]] = {}
"""How each core command is built, filled as the module that defines it is imported."""


def _builder(name: str) -> Callable[[], Any]:
    def build() -> Any:
        import_module(f".{COMMANDS[name][0]}", __package__)
        return _BUILDERS[name]()
    return build


CORE: dict[str, Lazy] = {name: Lazy(_builder(name), help)
                         for name, (_module, help) in COMMANDS.items()}
"""Core's commands, in the order the help lists them, each built when it first runs."""


def command(name: str) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Define a core command listed in :data:`COMMANDS`: a one-command typer app, made and
    turned into click only when the command runs."""
    def register(func: Callable[..., Any]) -> Callable[..., Any]:
        def build() -> Any:
            one = typer.Typer(**SETTINGS)
            one.command(name, cls=Command)(func)
            return typer.main.get_command(one)

        _BUILDERS[name] = build
        return func
    return register


def command_group(name: str, group: typer.Typer) -> None:
    """Define a core command listed in :data:`COMMANDS` that is a group of subcommands."""
    _BUILDERS[name] = lambda: typer.main.get_command(group)


class _Catalog(MutableMapping[str, Any]):
    """The group's commands by name, core's and plugins', each built on first use (typer's
    group reads ``commands`` for its "did you mean" suggestions)."""

    def __init__(self) -> None:
        self.plugins: dict[str, Lazy] = {}

    def _lazy(self, name: str) -> Lazy | None:
        return CORE.get(name) or self.plugins.get(name)

    def __getitem__(self, name: str) -> Any:
        lazy = self._lazy(name)
        if lazy is None:
            raise KeyError(name)
        return lazy.command()

    def __setitem__(self, name: str, command: Any) -> None:
        self.plugins[name] = Lazy(_constant(command), command.get_short_help_str())

    def __delitem__(self, name: str) -> None:
        del self.plugins[name]

    def __iter__(self) -> Iterator[str]:
        yield from CORE
        yield from (n for n in self.plugins if n not in CORE)

    def __len__(self) -> int:
        return len(set(CORE) | set(self.plugins))


class _Commands(TyperGroup):
    """The root group: core commands built on demand, plugin commands added when needed."""

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.catalog = _Catalog()
        self.commands = self.catalog
        self._plugins_loaded = False

    def list_commands(self, ctx: Any) -> list[str]:
        self._load_plugins()
        return list(self.catalog)

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        if cmd_name in CORE:
            return CORE[cmd_name].command()
        self._load_plugins()
        if cmd_name in self.catalog.plugins:
            return self.catalog[cmd_name]
        from ..host.hints import command_hint
        hint = command_hint(cmd_name, loaded_registry().distributions())
        if hint and not ctx.resilient_parsing:
            ctx.fail(f"No such command {cmd_name!r}; {hint}")
        return None

    def _load_plugins(self) -> None:
        """Every plugin's commands (the registry loads every plugin distribution)."""
        if self._plugins_loaded:
            return
        self._plugins_loaded = True
        host = typer.Typer(**SETTINGS)
        loaded_registry().register_commands(host)
        for name, command in _commands_of(host).items():
            if name not in CORE:
                self.catalog[name] = add_everyday_options(command)

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        with formatter.section("Commands"):
            formatter.write_dl([(n, lazy.help) for n, lazy in CORE.items()])
        listed = _plugin_listing()
        if listed:
            with formatter.section("Plugin commands"):
                formatter.write_dl([(n, f"{text} [{dist}]")
                                    for n, (text, dist) in listed.items()])


def _constant(value: Any) -> Callable[[], Any]:
    return lambda: value


def _commands_of(host: typer.Typer) -> dict[str, Any]:
    """The click commands plugins added to ``host``, by name."""
    if not host.registered_commands and not host.registered_groups:
        return {}
    group = typer.main.get_group(host)
    ctx = typer.Context(group)
    found: dict[str, Any] = {}
    for name in group.list_commands(ctx):
        command = group.get_command(ctx, name)
        if command is not None:
            found[name] = command
    return found


_LISTED: dict[str, tuple[str, str]] | None = None


def _plugin_listing() -> dict[str, tuple[str, str]]:
    """Plugin commands for ``bunzai --help`` as (help, distribution), from the
    ``bunzai.plugins`` entry points only: the format adapters are not imported for a help page,
    and the commands are not built.  A plugin that fails here is left out (``bunzai plugins``
    says why)."""
    global _LISTED
    if _LISTED is not None:
        return _LISTED
    from ..host.entrypoints import PLUGINS_GROUP, allowed, entry_points

    _LISTED = {}
    for ep in entry_points((PLUGINS_GROUP,), allowed()):
        try:
            plugin = ep.load()
            hook = getattr(plugin, "bunzai_register_commands", None)
            if hook is None:
                continue
            host = typer.Typer(**SETTINGS)
            hook(app=host)
            for info in host.registered_commands:  # names and help only: nothing is built
                name = str(info.name or getattr(info.callback, "__name__", ""))
                name = name.lower().replace("_", "-")
                if name and name not in CORE:
                    doc = info.help or getattr(info.callback, "__doc__", None)
                    _LISTED[name] = (first_line(doc), ep.distribution)
        except Exception:  # a broken plugin is left out here; 'bunzai plugins' says why
            continue
    return _LISTED


app = typer.Typer(
    name="bunzai",
    cls=_Commands,
    help="Read, check and convert AI role-play files: character cards, lorebooks, personas, "
         "regex scripts, chats.",
    no_args_is_help=True,
    add_completion=True,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
    epilog="Commands that read files take files, folders and globs. Exit codes: 0 ok, "
           "1 invalid or different, 2 usage, 3 unrecognized/ambiguous, 4 malformed, "
           "5 conversion refused or output not written.",
)


def _version(value: bool) -> None:
    if value:
        typer.echo(f"bunzai {__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    ctx: typer.Context,
    version: Annotated[bool, typer.Option("--version", callback=_version, is_eager=True,
                                          help="Show the version and exit.")] = False,
    quiet: Annotated[bool, typer.Option("--quiet", "-q", help="Print only errors (and "
                                        "--json output).")] = False,
    verbose: Annotated[bool, typer.Option("--verbose", "-v", help="Print more detail: every "
                                          "loss report entry, full text diffs.")] = False,
) -> None:
    """bunzai: what is this file, where is it from, is it valid, and give it to me as X."""
    output.QUIET, output.VERBOSE = quiet, verbose
    from ..errors import speaking
    ctx.with_resource(speaking(output.CLI_WORDS))  # errors say --force, not force=True



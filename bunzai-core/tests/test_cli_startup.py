"""``bunzai CMD`` builds only the command it runs, help only lists names: what users see is
the same as building every command."""

from __future__ import annotations

from collections.abc import Callable

import pytest
import typer.main

from bunzai.cli import app, main
from bunzai.cli.group import CORE as _CORE


def _run(capsys: pytest.CaptureFixture[str], entry: Callable[[], object]) -> tuple[int, str]:
    with pytest.raises(SystemExit) as exit_:
        entry()
    out = capsys.readouterr()
    return int(exit_.value.code or 0), out.out + out.err


def _main(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    """What ``bunzai ARGS`` prints."""
    return _run(capsys, lambda: main(list(args)))


@pytest.fixture(autouse=True)
def _width(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "100")


@pytest.mark.parametrize("command", sorted(_CORE))
def test_every_command_is_listed_with_its_own_help(
        command: str, capsys: pytest.CaptureFixture[str]) -> None:
    code, listing = _main(capsys, "--help")
    built = _CORE[command].command()
    assert code == 0
    first = (built.help or "").strip().split("\n")[0]
    assert f"  {command}" in listing and first[:40] in " ".join(listing.split())
    code, own = _main(capsys, command, "--help")
    assert code == 0 and f"Usage: bunzai {command}" in own


def test_help_lists_the_plugin_commands(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _main(capsys, "--help")
    assert code == 0 and "Plugin commands:" in out
    assert "studio" in out and "[bunzai-studio]" in out


@pytest.mark.parametrize("args", [[], ["-h"], ["-v", "--help"], ["-h", "inspect"]])
def test_help_however_asked_is_the_command_list(args: list[str],
                                                capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _main(capsys, *args)
    assert code in (0, 2) and "Commands:" in out
    assert all(f"  {c}" in out for c in _CORE), out


def test_version(capsys: pytest.CaptureFixture[str]) -> None:
    assert _main(capsys, "--version") == (0, f"bunzai {__import__('bunzai').__version__}\n")


def test_help_shows_metavars_people_read(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _main(capsys, "convert", "--help")
    assert code == 0
    assert "Usage: bunzai convert [OPTIONS] FILE…" in out
    assert "--to FORMAT" in out and "-O, --option KEY=VALUE" in out and "-d, --out-dir DIR" in out
    assert "<" not in out and "{" not in out  # no <list[Path]>, no {SRC...}
    code, out = _main(capsys, "lorebook", "merge", "--help")
    assert "BOOK…" in out and "<" not in out


def test_shell_completion_sees_every_command_and_option(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("_BUNZAI_COMPLETE", "complete_bash")
    monkeypatch.setenv("COMP_WORDS", "bunzai inspect --")
    monkeypatch.setenv("COMP_CWORD", "2")
    code, out = _main(capsys)
    assert code == 0 and set(out.split()) >= {"--from", "--json", "--max-size"}
    monkeypatch.setenv("COMP_WORDS", "bunzai ")
    monkeypatch.setenv("COMP_CWORD", "1")
    code, out = _main(capsys)
    assert code == 0 and set(out.split()) >= {*_CORE, "studio"}


def test_a_mistyped_command_is_still_suggested(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _main(capsys, "lorebook", "extrct")
    assert code == 2 and "Did you mean 'extract'?" in out
    code, out = _main(capsys, "inspct")
    assert code == 2 and "Did you mean 'inspect'?" in out


def test_a_command_after_root_flags_runs(capsys: pytest.CaptureFixture[str]) -> None:
    assert _main(capsys, "-q", "schema", "regex")[0] == 0
    code, out = _main(capsys, "-v", "schema", "nothing")
    assert code == 2 and "unknown kind" in out


def test_the_group_is_built_through_typer() -> None:
    """CliRunner and other typer tooling see the same app (``typer.main.get_command``)."""
    group = typer.main.get_command(app)
    assert list(group.commands)[: len(_CORE)] == list(_CORE)


def test_the_command_list_is_each_commands_own_first_help_line() -> None:
    """``--help`` prints the list from a table, without importing the commands' modules: a
    command whose help changes, or one defined outside the table, fails here."""
    import pkgutil
    from importlib import import_module

    import bunzai.cli
    from bunzai.cli import group

    for info in pkgutil.iter_modules(bunzai.cli.__path__):
        if info.name != "__main__":  # it runs the command line
            import_module(f"bunzai.cli.{info.name}")
    assert set(group._BUILDERS) == set(group.COMMANDS)
    for name, (module, line) in group.COMMANDS.items():
        built = _CORE[name].command()
        assert group.first_line(built.help) == line, name
        assert built.callback is None or built.callback.__module__ == f"bunzai.cli.{module}"


def test_help_imports_no_command_module() -> None:
    """The modules that define the commands are what ``bunzai --help`` would spend most of
    its start on."""
    import subprocess
    import sys

    code = ("import sys; from bunzai.cli import main\n"
            "try:\n    main(['--help'])\nexcept SystemExit:\n    pass\n"
            "print(sorted(m for m in sys.modules if m.startswith('bunzai.cli.')), "
            "file=sys.stderr)")
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          check=True)
    loaded = eval(done.stderr.strip().splitlines()[-1])
    assert loaded == ["bunzai.cli.common", "bunzai.cli.group", "bunzai.cli.output"], loaded

"""``bunzai CMD`` builds only the command it runs, help only the command list; what users see
must not change."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from bunzai.cli import _CORE_COMMANDS, app, main


def _run(capsys: pytest.CaptureFixture[str], entry: Callable[[], object]) -> tuple[int, str]:
    with pytest.raises(SystemExit) as exit_:
        entry()
    out = capsys.readouterr()
    return int(exit_.value.code or 0), out.out + out.err


def _main(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    """What ``bunzai ARGS`` prints."""
    return _run(capsys, lambda: main(list(args)))


def _full(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str]:
    """What the app with every command prints for the same arguments."""
    return _run(capsys, lambda: app(args=list(args), prog_name="bunzai"))


@pytest.fixture(autouse=True)
def _width(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("COLUMNS", "100")


@pytest.mark.parametrize("command", sorted(_CORE_COMMANDS))
def test_command_help_is_the_full_apps(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert _main(capsys, command, "--help") == _full(capsys, command, "--help")


@pytest.mark.parametrize("args", [[], ["--help"], ["-h"], ["-v", "--help"], ["--version"],
                                  ["-h", "inspect"], ["--help", "lorebook", "merge"]])
def test_help_and_version_are_the_full_apps(args: list[str],
                                            capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _main(capsys, *args)
    assert (code, out) == _full(capsys, *args)
    if "--version" not in args:
        assert all(f"  {c}" in out for c in _CORE_COMMANDS), out


def test_shell_completion_sees_every_command_and_option(
        capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("_BUNZAI_COMPLETE", "complete_bash")
    monkeypatch.setenv("COMP_WORDS", "bunzai inspect --")
    monkeypatch.setenv("COMP_CWORD", "2")
    code, out = _main(capsys)
    assert code == 0 and set(out.split()) >= {"--from", "--json", "--max-size"}


def test_a_mistyped_subcommand_is_still_suggested(capsys: pytest.CaptureFixture[str]) -> None:
    code, out = _main(capsys, "lorebook", "extrct")
    assert code == 2 and "Did you mean 'extract'?" in out


def test_a_command_after_root_flags_runs(capsys: pytest.CaptureFixture[str]) -> None:
    assert _main(capsys, "-q", "schema", "regex")[0] == 0
    assert _main(capsys, "-v", "schema", "nothing") == _full(capsys, "-v", "schema", "nothing")

"""docs/cli.md is what the command tree renders: current, complete and the same on every
machine."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bunzai.cli import invoke
from bunzai.cli.docgen import cli_markdown
from bunzai.cli.group import CORE

PAGE = Path(__file__).resolve().parents[1] / "docs" / "cli.md"
FIX = "regenerate it with 'python3 dev.py docs'"


def _sections(text: str) -> dict[str, str]:
    parts = re.split(r"^## `([^`]+)`$", text, flags=re.M)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


def _commands() -> list[list[str]]:
    """Every core command and subcommand, as the words after ``bunzai``."""
    found: list[list[str]] = []
    pending = [[name] for name in CORE]
    while pending:
        path = pending.pop(0)
        found.append(path)
        result = invoke(*path, "--help")
        assert result.exit_code == 0, result.output
        listed = result.output.split("Commands:\n", 1)
        if len(listed) == 2:
            pending += [[*path, line.split()[0]] for line in listed[1].splitlines()
                        if line.startswith("  ") and not line.startswith("   ")]
    return found


def test_the_cli_reference_is_current() -> None:
    assert PAGE.exists(), f"docs/cli.md is missing: {FIX}"
    assert PAGE.read_text(encoding="utf-8") == cli_markdown(), f"docs/cli.md is stale: {FIX}"


def test_every_core_command_has_its_usage_and_every_option_its_help_shows() -> None:
    sections = _sections(PAGE.read_text(encoding="utf-8"))
    commands = _commands()
    assert len(commands) > len(CORE)  # the groups' subcommands were found too
    for path in commands:
        name = " ".join(["bunzai", *path])
        assert name in sections, f"{name} has no section in docs/cli.md"
        shown = invoke(*path, "--help").output
        usage = shown.split("\n", 1)[0].removeprefix("Usage: ")
        assert f"```\n{usage}\n```" in sections[name]
        for flags in re.findall(r"^  (-[-\w]+(?:, -[-\w]+)*)", shown, flags=re.M):
            assert f"| `{flags}" in sections[name], f"{name}: {flags} is not in docs/cli.md"


def test_the_reference_does_not_depend_on_the_terminal_width(
        monkeypatch: pytest.MonkeyPatch) -> None:
    wide = cli_markdown()
    monkeypatch.setenv("COLUMNS", "32")
    assert cli_markdown() == wide

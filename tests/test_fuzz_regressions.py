"""Every input the fuzzer ever found stays fixed: through the harness and through the CLI."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
from typer.testing import CliRunner

from bunzai.cli import app
from bunzai.host.registry import Registry, set_registry

if str(Path(__file__).resolve().parents[1]) not in sys.path:  # the fuzz package at the root
    sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
from fuzz.harness import check

from .fuzz_regressions import Regression, regressions

CASES = regressions()


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
def test_no_escape_on_the_whole_read_path(case: Regression) -> None:
    esc = check(case.data)
    assert esc is None, f"{case.name} escapes again ({case.found}):\n{esc.details()}"


@pytest.mark.parametrize("case", CASES, ids=[c.name for c in CASES])
@pytest.mark.parametrize("command", ["validate", "inspect"])
def test_cli_answers_without_internal_error(registry: Registry, tmp_path, case: Regression,
                                            command: str) -> None:
    path = tmp_path / case.filename
    path.write_bytes(case.data)
    set_registry(registry)
    try:
        res = CliRunner().invoke(app, [command, str(path)])
    finally:
        set_registry(None)
    assert res.exception is None or isinstance(res.exception, SystemExit), repr(res.exception)
    assert "internal error" not in res.stderr and "Traceback" not in res.stderr
    assert res.exit_code in (0, 1, 3, 4), res.stderr


@pytest.mark.parametrize("text", [
    b'{"a": "\\ud800"}',                                  # orjson path
    b'{"a": "\\udc00", "n": 123456789012345678901234}',    # standard-library path
])
def test_lone_surrogates_are_refused_by_both_parsers(text: bytes) -> None:
    from bunzai.errors import MalformedInput
    from bunzai.io.jsonio import loads

    with pytest.raises(MalformedInput, match="surrogate"):
        loads(text)


def test_surrogate_pairs_and_escaped_backslashes_still_parse() -> None:
    from bunzai.io.jsonio import loads

    big = 123456789012345678901234
    assert loads(b'{"a": "\\ud83d\\ude00", "n": %d}' % big) == {"a": "\U0001f600", "n": big}
    assert loads(b'{"a": "\\\\ud800", "n": %d}' % big) == {"a": "\\ud800", "n": big}

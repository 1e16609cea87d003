"""Session fixtures of the interop suite: the libraries installed once, one Node process."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from .node import Checker, Unavailable, install, locked_versions, unavailable

TALLY: dict[str, dict[str, int]] = {}
"""library -> {"checked", "accepted", "inherited"}: what the session measured."""


@pytest.fixture(scope="session")
def checker(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Checker]:
    """The Node process running the card libraries (installed from the lock file, once)."""
    try:
        prefix = install(tmp_path_factory.mktemp("interop-node"))
        proc = Checker(prefix)
    except Unavailable as exc:
        unavailable(str(exc))
    try:
        yield proc
    finally:
        proc.close()


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if not TALLY:
        return
    versions = locked_versions()
    terminalreporter.section("interop: the ecosystem's libraries on bunzai's outputs")
    for library, counts in sorted(TALLY.items()):
        name = library.split(" ")[0]
        version = versions.get(name, "")
        terminalreporter.write_line(
            f"{name} {version} {library.split(' ', 1)[1]}: {counts.get('checked', 0)} checked, "
            f"{counts.get('accepted', 0)} accepted, "
            f"{counts.get('inherited', 0)} refused exactly as the source file is")

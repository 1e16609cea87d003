"""Core tests run against core alone unless a test asks for installed plugins."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest


@pytest.fixture
def write_package(tmp_path: Path, monkeypatch: pytest.MonkeyPatch
                  ) -> Iterator[Callable[[dict[str, str]], None]]:
    """Write a package a test imports, as ``{"pkg/sub/module.py": source}``, onto a temporary
    ``sys.path`` (every folder a package); its modules are forgotten after the test."""
    tops: set[str] = set()

    def write(files: dict[str, str]) -> None:
        for name, source in files.items():
            path = tmp_path / name
            path.parent.mkdir(parents=True, exist_ok=True)
            for folder in path.relative_to(tmp_path).parents[:-1]:
                (tmp_path / folder / "__init__.py").touch()
            path.write_text(textwrap.dedent(source))
            tops.add(Path(name).parts[0])

    monkeypatch.syspath_prepend(str(tmp_path))
    yield write
    for name in [m for m in sys.modules if m.split(".")[0] in tops]:
        del sys.modules[name]

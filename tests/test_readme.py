"""The README's Python example runs as written (a doctest on the project's own sample card)."""

from __future__ import annotations

import doctest
import re
import shutil
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]


def test_the_python_api_example_runs(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    found = re.search(r"```pycon\n(.*?)```", text, re.S)
    assert found, "the README has no Python example"
    shutil.copyfile(ROOT / "examples" / "cards" / "bunzai-sample.png", tmp_path / "card.png")
    monkeypatch.chdir(tmp_path)
    test = doctest.DocTestParser().get_doctest(found.group(1), {}, "README", "README.md", 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    runner.run(test)
    result = runner.summarize(verbose=False)
    assert result.attempted >= 10 and result.failed == 0


def test_dir_lists_the_public_api() -> None:
    import bunzai

    names = set(dir(bunzai))
    assert {"detect", "read", "write", "convert", "BunzaiError", "Option", "validate_file",
            "inspect_file"} <= names
    assert set(bunzai.__all__) <= names
    for name in bunzai.__all__:
        assert getattr(bunzai, name) is not None

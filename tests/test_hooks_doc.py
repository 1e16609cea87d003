"""docs/hooks.md documents every hook specification, with the specification's own signature.

Adding a hook (or an argument) to ``bunzai/hookspecs.py`` without documenting it fails here.
"""

from __future__ import annotations

import inspect
import re
from pathlib import Path

import pytest

from bunzai.host import hookspecs

DOC = Path(__file__).resolve().parents[1] / "docs" / "hooks.md"
HEADING = re.compile(r"^#{2,4} `(bunzai_\w+)\(([^)]*)\)`\s*$", re.M)


def specs() -> dict[str, list[str]]:
    """Hook name -> argument names, read from the specifications pluggy registers."""
    marker = f"{hookspecs.PROJECT}_spec"
    return {name: list(inspect.signature(fn).parameters)
            for name, fn in vars(hookspecs).items()
            if callable(fn) and hasattr(fn, marker)}


def documented() -> dict[str, list[str]]:
    text = DOC.read_text(encoding="utf-8")
    return {m.group(1): [a.strip() for a in m.group(2).split(",") if a.strip()]
            for m in HEADING.finditer(text)}


@pytest.mark.parametrize("hook", sorted(specs()))
def test_hook_is_documented_with_its_signature(hook: str) -> None:
    docs = documented()
    assert hook in docs, f"docs/hooks.md has no '### `{hook}(...)`' section"
    assert docs[hook] == specs()[hook], (
        f"docs/hooks.md documents {hook}({', '.join(docs[hook])}) but the specification is "
        f"{hook}({', '.join(specs()[hook])})")


def test_every_documented_hook_exists() -> None:
    assert set(documented()) <= set(specs()), set(documented()) - set(specs())


def test_every_hook_section_says_what_it_returns() -> None:
    sections = re.split(r"^#{2,4} ", DOC.read_text(encoding="utf-8"), flags=re.M)
    for hook in specs():
        (section,) = [s for s in sections if s.startswith(f"`{hook}(")]
        assert "**Returns:**" in section, f"{hook}: say what it returns"


def test_the_required_hooks_are_the_ones_the_host_enforces() -> None:
    text = DOC.read_text(encoding="utf-8")
    required = text.split("## Required for format adapters")[1].split("## Optional")[0]
    assert {m[0] for m in HEADING.findall(required)} == set(hookspecs.FORMAT_HOOKS)

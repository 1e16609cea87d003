"""The documents a user needs are linked from both indexes, and every link there leads to a
file of the checkout."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
INDEXES = [ROOT / "README.md", ROOT / "docs" / "README.md"]
NEEDED = ["docs/install.md", "docs/cli.md", "docs/troubleshooting.md", "bunzai-studio/README.md"]


def _links(index: Path) -> list[Path]:
    text = index.read_text(encoding="utf-8")
    targets = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text)
    return [(index.parent / t).resolve() for t in targets if "://" not in t]


@pytest.mark.parametrize("index", INDEXES, ids=lambda p: str(p.relative_to(ROOT)))
def test_an_index_links_every_user_document_and_says_how_to_render_the_api(index: Path) -> None:
    linked = set(_links(index))
    missing = [n for n in NEEDED if (ROOT / n).resolve() not in linked]
    assert not missing, f"{index.relative_to(ROOT)} does not link {missing}"
    assert "dev.py apidocs" in index.read_text(encoding="utf-8")


@pytest.mark.parametrize("index", INDEXES, ids=lambda p: str(p.relative_to(ROOT)))
def test_every_link_of_an_index_leads_to_a_file(index: Path) -> None:
    broken = [str(p) for p in _links(index) if not p.exists()]
    assert not broken, f"{index.relative_to(ROOT)} links files that do not exist: {broken}"

"""Enables bunzai's pytest plugin (fixtures and the conformance kit's report header), and finds
the real NovelAI files of bunzai's shared corpus, read in place (never copied here).

The corpus is found the way ``bunzai.testing`` finds it: ``$BUNZAI_CORPUS``, else
``shared/corpus`` beside the bunzai checkout.  Tests that need it are skipped without it.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from bunzai.testing import corpus_files

pytest_plugins = ["bunzai.testing.plugin"]


@pytest.fixture(scope="session")
def nai_corpus() -> dict[str, Path]:
    """The corpus's NovelAI files by a short name: empty-v4, example-v4, tool-v6, every-value-
    text, cut-off."""
    names = {"A_hiss_of_smoke": "empty-v4", "lorebook_example": "example-v4",
             "test_lorebook": "tool-v6", "lorebook_generated": "every-value-text",
             "Ripple": "cut-off"}
    found = {short: p for p in corpus_files("nai-lorebook")
             for stem, short in names.items() if f"__{stem}" in p.name}
    if not found:
        pytest.skip("bunzai's shared corpus is not here (set BUNZAI_CORPUS)")
    return found

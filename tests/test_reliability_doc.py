"""docs/reliability.md states the limits and the hostile-case outcomes as they are today."""

from __future__ import annotations

from .hostile.table import DOC, render


def test_generated_tables_are_current() -> None:
    doc = DOC.read_text(encoding="utf-8")
    assert render(doc) == doc, "regenerate with 'python -m tests.hostile.table --write'"


def test_the_document_is_linked_from_the_docs_index() -> None:
    index = (DOC.parent / "README.md").read_text(encoding="utf-8")
    assert "(reliability.md)" in index

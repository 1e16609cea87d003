"""Generated documentation must match the installed adapters."""

from __future__ import annotations

from pathlib import Path

from bunzai.engine.docgen import render
from bunzai.host.registry import Registry

DOCS = Path(__file__).resolve().parents[1] / "docs"


def test_generated_docs_are_current(registry: Registry) -> None:
    stale = [rel for rel, text in render(registry).items()
             if not (DOCS / rel).exists() or (DOCS / rel).read_text(encoding="utf-8") != text]
    assert not stale, f"regenerate with 'python dev.py docs': {stale}"


def test_roster_matches_the_cli_output(registry: Registry) -> None:
    from bunzai.engine.roster import roster_markdown
    assert (DOCS / "FORMAT-SUPPORT.md").read_text(encoding="utf-8") == roster_markdown(registry)


def test_every_adapter_folder_has_its_own_doc_page(registry: Registry) -> None:
    from bunzai.engine.roster import adapter_readme
    missing = [fid for fid, h in registry.adapters.items() if not adapter_readme(h)]
    assert not missing, f"adapters without a README.md in their folder: {missing}"

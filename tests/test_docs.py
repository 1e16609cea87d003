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


def test_a_format_page_lists_each_field_a_write_drops_with_the_reason_it_reports(
        registry: Registry) -> None:
    """The page's loss table is the one the loss report gives: a chat written as a webui
    history drops its texts and each message's extras, and the page names every one of them
    with the same reason (derived from ``carries`` and ``reasons``, not written twice)."""
    from bunzai.engine.roster import format_page
    from bunzai.loss.neutral import pattern_of
    from bunzai.model import Chat, ChatMessage

    chat = Chat(title="Harbour", memory="The tide is out.", scenario="A quay at dusk.",
                greeting="Ahoy.", messages=[
                    ChatMessage(role="user", text="Rope?", hidden=True, bookmark="b1"),
                    ChatMessage(text="Here.", reasoning="Helpful.", model="m-7")])
    dropped = [e for e in registry.write([chat], "oobabooga-chat").loss
               if e.action == "dropped"]
    assert len(dropped) >= 6
    page = format_page(registry.adapters["oobabooga-chat"])
    rows = [line for line in page.splitlines() if line.startswith("| ")]
    for entry in dropped:
        parent, _, name = pattern_of(entry.path).rpartition(".")
        assert any(f"`{name}`" in row and (not parent or f"`{parent}`:" in row)
                   and row.endswith(f"| {entry.reason} |") for row in rows), entry


def test_a_field_the_writer_carries_is_not_listed_as_dropped(registry: Registry) -> None:
    from bunzai.engine.roster import dropped_fields

    info = registry.adapters["sillytavern-chat"].info
    listed = {pattern for pattern, _, _ in dropped_fields(info) or ()}
    assert {"memory", "title", "messages[*].extensions"} <= listed
    assert not listed & {"notes", "messages[*].text", "messages[*].reasoning"}

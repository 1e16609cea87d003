"""``lorebook merge`` keeps what the books themselves hold, not only their entries: a book's own
app data (a NovelAI book's categories, which its entries name) survives the merge, and a later
book's settings that the merged book cannot also hold are reported, not dropped in silence."""

from __future__ import annotations

from bunzai.engine.lorebooks import merge_books
from bunzai.model import Lorebook, LorebookEntry


def _book(name: str, category: str, scan_depth: int | None = None) -> Lorebook:
    entry = LorebookEntry(keys=[f"{name} key"], content=f"about {name}",
                          app_data={"novelai-lorebook": {"category": category}})
    return Lorebook(name=name, scan_depth=scan_depth, entries=[entry],
                    app_data={"novelai-lorebook": {
                        "categories": [{"id": category, "name": f"{name} places"}],
                        "settings": {"orderByKeyLocations": False}}})


def test_each_books_categories_stay_with_the_entries_that_name_them() -> None:
    merged, report = merge_books([_book("harbour", "cat-a"), _book("moor", "cat-b")])
    cats = merged.app_data["novelai-lorebook"]["categories"]
    assert [c["id"] for c in cats] == ["cat-a", "cat-b"]  # type: ignore[index, union-attr]
    named = {e.app_data["novelai-lorebook"]["category"] for e in merged.entries}
    assert named <= {c["id"] for c in cats}  # type: ignore[index, union-attr]
    assert not any("categories" in c for c in report.conflicts), report.conflicts


def test_a_later_books_settings_are_reported_when_not_kept() -> None:
    first, second = _book("harbour", "cat-a", 4), _book("moor", "cat-b", 9)
    second.app_data["novelai-lorebook"]["settings"] = {"orderByKeyLocations": True}
    merged, report = merge_books([first, second])
    assert merged.scan_depth == 4
    assert any("book 2's scan_depth 9 not kept" in c for c in report.conflicts)
    assert any("book 2's name 'moor' not kept" in c for c in report.conflicts)
    assert any("novelai-lorebook settings" in c for c in report.conflicts), report.conflicts


def test_ids_that_read_the_same_in_a_file_are_renumbered() -> None:
    """1 from one book and "1" from another are one id once a format writes ids as text."""
    first = Lorebook(entries=[LorebookEntry(id="1", keys=["lamp"], content="a lamp")])
    second = Lorebook(entries=[LorebookEntry(id=1, keys=["rope"], content="a rope")])
    merged, report = merge_books([first, second])
    assert len({str(e.id) for e in merged.entries}) == 2
    assert any("reused id 1" in c for c in report.conflicts), report.conflicts

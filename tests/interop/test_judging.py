"""The suite's judgement itself: the libraries refuse what the writer fixes repaired, and the
comparison with the source names every difference the loss report does not cover.  (A suite
that cannot fail proves nothing.)"""

from __future__ import annotations

from typing import Any

from bunzai.loss.report import LossReport
from bunzai.model import Character, LorebookEntry

from . import cases as C
from .node import Checker
from .test_libraries import _book_problem, _ccardlib_problem, _ccu_problem

SIX = {"name": "Odile", "description": "Keeps the tide tables.", "personality": "",
       "scenario": "", "first_mes": "The tide turns at six.", "mes_example": ""}


def test_the_libraries_refuse_what_the_writer_used_to_write(checker: Checker) -> None:
    # a V2 card holding only the six V1 fields (bunzai's old upgrade of a V1 card), and book
    # entries with a text id (a RisuAI folder's) in a V3 card and in a standalone V2 book
    thin_v2 = {"spec": "chara_card_v2", "spec_version": "2.0", "data": dict(SIX)}
    text_id = {"keys": ["quay"], "content": "Stone steps.", "extensions": {}, "enabled": True,
               "insertion_order": 100, "use_regex": False, "id": "9b2e1c"}
    v3 = {"spec": "chara_card_v3", "spec_version": "3.0", "data": {
        **SIX, "creator_notes": "", "system_prompt": "", "post_history_instructions": "",
        "alternate_greetings": [], "tags": [], "creator": "", "character_version": "",
        "extensions": {}, "group_only_greetings": [],
        "character_book": {"extensions": {}, "entries": [text_id]}}}
    bare_book = {"extensions": {}, "entries": [{
        "keys": ["quay"], "content": "Stone steps.", "enabled": True, "insertion_order": 1,
        "extensions": {}, "id": "9b2e1c"}]}
    thin, full, book = checker.run([
        {"op": "card_json", "card": thin_v2}, {"op": "card_json", "card": v3},
        {"op": "book_json", "book": bare_book, "spec": "v2"}])
    assert _ccardlib_problem(thin_v2, thin) is not None
    assert _ccu_problem(thin_v2, thin) is not None
    assert _ccardlib_problem(v3, full) is not None  # entry ids are numbers to both
    assert full["cf_schema"] and "id" in full["cf_schema"][0]
    assert _book_problem(book) is not None and book["cf_book_schema"]


def test_a_difference_the_report_does_not_name_fails() -> None:
    source = Character(name="Odile", tags=["harbour"])
    view: dict[str, Any] = {"name": "Odile", "tags": []}
    assert C.compare_fields(view, source, LossReport(), "lib", ["name", "tags"]) == [
        'lib: tags is [], the source says ["harbour"], and the loss report does not say so']
    named = LossReport()
    named.dropped("tags", "no tags here")
    assert C.compare_fields(view, source, named, "lib", ["name", "tags"]) == []


def test_entries_are_compared_field_by_field() -> None:
    canon = [LorebookEntry(keys=["quay"], content="Stone steps.", enabled=False),
             LorebookEntry(keys=["lamp"], content="Lit at dusk.", constant=True)]
    lib = [{"keys": ["quay", " "], "content": "@@dont_activate\nStone steps.",
            "content_plain": "Stone steps.", "enabled": True},
           {"keys": ["lamp"], "content": "Lit at dusk.", "constant": None}]
    problems = C.compare_entries(lib, canon, LossReport(), "lorebook.", "lib")
    # a blank key and a decorator line are not differences; the enabled flag and the lost
    # constant are
    assert [p.split(" is ")[0] for p in problems] == ["lib: lorebook.entries[0].enabled",
                                                       "lib: lorebook.entries[1].constant"]
    missing = C.compare_entries(lib[:1], canon, LossReport(), "", "lib", names=("content",))
    assert missing == ["lib: entries[1] is missing, and the loss report does not say so"]
    # a library that sorts entries: matched back by position map
    swapped = C.compare_entries([lib[1], lib[0]], canon, LossReport(), "", "lib",
                                order={0: 1, 1: 0}, names=("keys",))
    assert swapped == []

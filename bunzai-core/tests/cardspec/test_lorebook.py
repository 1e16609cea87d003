"""cardspec: character_book <-> canonical Lorebook, and the ST entry-extension mapping."""

from __future__ import annotations

from typing import Any

import pytest

from bunzai.cardspec import build_book, entry_from_v2, entry_to_v2, parse_book
from bunzai.errors import Issue
from bunzai.io.compare import json_equal
from bunzai.loss.report import LossReport
from bunzai.model import Lorebook, LorebookEntry

FID = "test-format"

# What SillyTavern's convertWorldInfoToCharacterBook writes for one entry (values varied).
ST_ENTRY: dict[str, Any] = {
    "id": 3, "keys": ["harbor", "docks"], "secondary_keys": ["night"], "comment": "Harbor",
    "content": "Tar and salt.", "constant": False, "selective": True, "insertion_order": 90,
    "enabled": True, "position": "after_char", "use_regex": True,
    "extensions": {
        "position": 4, "exclude_recursion": True, "display_index": 2, "probability": 35,
        "useProbability": True, "depth": 2, "selectiveLogic": 3, "group": "g1",
        "group_override": True, "group_weight": 60, "prevent_recursion": False,
        "delay_until_recursion": 2, "scan_depth": None, "match_whole_words": None,
        "use_group_scoring": False, "case_sensitive": None, "automation_id": "",
        "role": 1, "vectorized": False, "sticky": 5, "cooldown": 0, "delay": None,
        "outlet_name": "", "match_persona_description": True, "triggers": ["normal"],
        "ignore_budget": False, "custom_tool": {"keep": "me"},
    },
}


def test_st_extensions_become_fields() -> None:
    e = entry_from_v2(ST_ENTRY, format_id=FID)
    assert (e.position, e.depth, e.role, e.selective_logic) == ("at_depth", 2, "user", "and_all")
    assert (e.probability, e.use_probability, e.sticky, e.cooldown) == (35, True, 5, 0)
    assert (e.group, e.group_override, e.group_weight) == ("g1", True, 60)
    assert e.delay_until_recursion == 2 and e.exclude_recursion is True
    assert e.display_index == 2 and e.triggers == ["normal"]
    assert e.match_persona_description is True
    assert e.delay is None and e.scan_depth is None  # null means "global", not a value
    assert e.extensions == {"custom_tool": {"keep": "me"}}  # only unknown keys stay behind


def test_st_entry_round_trips_exactly() -> None:
    e = entry_from_v2(ST_ENTRY, format_id=FID)
    e = LorebookEntry.model_validate_json(e.model_dump_json())
    out = entry_to_v2(e, format_id=FID, v3=False)
    assert json_equal(out, ST_ENTRY)
    assert list(out) == list(ST_ENTRY) and list(out["extensions"]) == list(ST_ENTRY["extensions"])


def test_an_entry_the_reader_owns_reads_and_round_trips_like_a_shared_one() -> None:
    """A reader's own parse is taken without copies, and the source is left as it was: an
    owned entry keeps the order of its extension keys for the rewrite, as a shared one does."""
    import copy

    source = copy.deepcopy(ST_ENTRY)
    shared = entry_from_v2(source, format_id=FID)
    assert source == ST_ENTRY  # a shared parse is only read
    owned = entry_from_v2(copy.deepcopy(ST_ENTRY), format_id=FID, owned=True)
    assert owned == shared
    out = entry_to_v2(owned, format_id=FID, v3=False)
    assert list(out["extensions"]) == list(ST_ENTRY["extensions"])


def test_fields_travel_to_another_format_by_their_st_names() -> None:
    e = entry_from_v2(ST_ENTRY, format_id=FID)
    loss = LossReport()
    out = entry_to_v2(e, format_id="another-format", v3=True, loss=loss)
    ext = out["extensions"]
    assert out["position"] == "after_char" and ext["position"] == 4
    assert (ext["role"], ext["selectiveLogic"], ext["probability"], ext["sticky"]) == (1, 3, 35, 5)
    assert "delay" not in ext  # unstated stays unstated
    again = entry_from_v2(out, format_id="another-format")
    for field in ("position", "role", "selective_logic", "probability", "use_probability",
                  "sticky", "cooldown", "group", "group_weight", "depth", "triggers"):
        assert getattr(again, field) == getattr(e, field), field
    assert not loss  # everything stated had a place


def test_edits_reach_the_extension_keys() -> None:
    e = entry_from_v2(ST_ENTRY, format_id=FID)
    e.probability = 80
    e.position = "before_char"
    e.delay = 3
    out = entry_to_v2(e, format_id=FID, v3=False)
    assert out["extensions"]["probability"] == 80
    assert out["position"] == "before_char" and out["extensions"]["position"] == 0
    assert out["extensions"]["delay"] == 3


def test_wrong_typed_extension_values_stay_untouched() -> None:
    raw = {"keys": ["a"], "content": "", "enabled": True, "insertion_order": 1,
           "extensions": {"depth": "4", "weight": "1.0", "role": None, "position": 9}}
    e = entry_from_v2(raw, format_id=FID)
    assert e.depth is None and e.position is None and e.role is None
    assert e.extensions == {"depth": "4", "weight": "1.0", "position": 9}
    assert entry_to_v2(e, format_id=FID, v3=False) == raw


def test_case_sensitive_top_level_wins_over_a_different_st_copy() -> None:
    raw = {"keys": ["a"], "content": "", "enabled": True, "insertion_order": 1,
           "case_sensitive": True, "extensions": {"case_sensitive": False}}
    e = entry_from_v2(raw, format_id=FID)
    assert e.case_sensitive is True and e.extensions == {"case_sensitive": False}
    assert entry_to_v2(e, format_id=FID, v3=False) == raw


def test_nonstandard_position_string_is_kept_by_its_own_format_only() -> None:
    raw = {"keys": ["a"], "content": "x", "enabled": True, "insertion_order": 1,
           "position": "after_char_defs", "extensions": {}}
    e = entry_from_v2(raw, format_id=FID)
    assert e.position == "after_char_defs"
    assert entry_to_v2(e, format_id=FID, v3=False) == raw
    # another format's card book holds only the spec's two positions: strict readers refuse
    # any other string, so it is left out and reported
    loss = LossReport()
    out = entry_to_v2(e, format_id="other", v3=False, loss=loss, path="entries[0]")
    assert "position" not in out
    assert loss.covers("entries[0].position")


def test_risu_folders_map_to_canonical_folders() -> None:
    folder = {"keys": ["\uf000folder:1"], "content": "", "extensions": {}, "enabled": True,
              "insertion_order": 100, "mode": "folder"}
    child = {"keys": ["k"], "content": "c", "extensions": {}, "enabled": True,
             "insertion_order": 100, "mode": "normal", "folder": "\uf000folder:1"}
    book = parse_book({"entries": [folder, child], "extensions": {}}, format_id=FID)
    assert book.entries[0].is_folder and book.entries[1].folder == "\uf000folder:1"
    assert not book.entries[1].is_folder
    out = build_book(book, v3=True, format_id=FID, loss=LossReport())
    assert out["entries"] == [folder, child]


def test_minimal_and_odd_books() -> None:
    handmade = {"name": "King", "entries": [{"keys": ["crown"], "content": "Old."}]}
    book = parse_book(handmade, format_id=FID)
    assert book.entries[0].enabled is True and book.entries[0].insertion_order is None
    assert build_book(book, v3=False, format_id=FID, loss=LossReport()) == handmade

    warnings: list[Issue] = []
    keyed = {"entries": {"7": {"keys": ["a"], "content": "x"}, "8": "junk"}}
    book = parse_book(keyed, format_id=FID, warnings=warnings)
    assert len(book.entries) == 1 and warnings
    assert build_book(book, v3=False, format_id=FID, loss=LossReport()) == keyed


def test_book_level_fields_and_unknown_keys() -> None:
    raw = {"name": "B", "description": None, "scan_depth": 4, "token_budget": 512,
           "recursive_scanning": False, "extensions": {"risu_fullWordMatching": True},
           "entries": [], "lexicon": [{"w": 1}]}
    book = parse_book(raw, format_id=FID)
    assert (book.scan_depth, book.token_budget, book.recursive_scanning) == (4, 512, False)
    assert build_book(book, v3=True, format_id=FID, loss=LossReport()) == raw


@pytest.mark.parametrize("v3", [False, True])
def test_fresh_book_is_spec_complete(v3: bool) -> None:
    book = Lorebook(name="N", entries=[LorebookEntry(keys=["k"], content="c",
                                                     insertion_order=5, use_regex=True)])
    loss = LossReport()
    out = build_book(book, v3=v3, format_id=FID, loss=loss)
    entry = out["entries"][0]
    assert out["extensions"] == {} and entry["extensions"] == {}
    assert entry["enabled"] is True and entry["insertion_order"] == 5
    assert entry["use_regex"] is True
    assert not loss


# -- entry ids are numbers ------------------------------------------------------------------------


def test_text_ids_become_numbers_and_the_folder_identity_travels_in_extensions() -> None:
    folder = LorebookEntry(id="9b2e1c", is_folder=True, comment="Harbour")
    child = LorebookEntry(id=4, keys=["quay"], content="Stone steps.", folder="9b2e1c")
    plain_id = LorebookEntry(id="7", keys=["tide"], content="Six o'clock.")
    book = Lorebook(entries=[folder, child, plain_id])
    loss = LossReport()
    out = build_book(book, v3=True, format_id="other", loss=loss)
    ids = [e["id"] for e in out["entries"]]
    assert ids == [0, 4, 7] and all(isinstance(i, int) for i in ids)
    assert out["entries"][0]["extensions"]["risu_id"] == "9b2e1c"
    assert out["entries"][1]["folder"] == "9b2e1c"
    assert not loss.covers("lorebook.entries[2].id")  # "7" as 7: an id is never user data
    assert not loss.covers("lorebook.entries[0].id")  # the text id comes back: not a loss
    back = parse_book(out, format_id="reader")
    assert back.entries[0].id == "9b2e1c" and back.entries[0].is_folder
    assert back.entries[0].extensions == {}
    assert back.entries[1].folder == back.entries[0].id
    # and the reader's own format writes both back as they were
    again = build_book(back, v3=True, format_id="reader", loss=LossReport())
    assert again == out


def test_numbers_for_text_ids_do_not_collide_with_numeric_ones() -> None:
    book = Lorebook(entries=[LorebookEntry(id=0), LorebookEntry(id="a"), LorebookEntry(id=1),
                             LorebookEntry(id="b")])
    out = build_book(book, v3=False, format_id="other", loss=LossReport())
    assert [e["id"] for e in out["entries"]] == [0, 2, 1, 3]

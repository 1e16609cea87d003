"""sillytavern-lorebook: World Info, Chub hybrids and standalone V2/V3 books."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from bunzai import testing
from bunzai.sdk import Lorebook, LorebookEntry, MalformedInput
from bunzai.testing import (
    Registry,
    as_input,
    conversion_problems,
    corpus_dir,
    corpus_files,
    ids,
    label,
    load_registry,
    uncovered_differences,
    validate,
)
from bunzai_tavern._common.stsettings import is_settings

FID = "sillytavern-lorebook"
WORLDBOOKS = corpus_files("st-worldbook")


@cache
def reg() -> Registry:
    return load_registry()


def read(obj: Any, fmt: str | None = FID) -> Any:
    return testing.read(reg(), obj, fmt, "book.json")


def write(entity: Any, fmt: str = FID, **options: Any) -> Any:
    return reg().write([entity], fmt, options)


def detect(obj: Any) -> dict[str, float]:
    return testing.scores(reg(), obj)


def findings(obj: Any) -> list[Any]:
    """What ``bunzai validate --from sillytavern-lorebook`` says: the reader's warnings, then
    the format's own rules."""
    res = read(obj)
    inp = as_input(json.dumps(obj).encode(), "book.json")
    return [*res.warnings, *reg().validate(reg().get(FID), inp, res.entities)]


# -- the corpus ---------------------------------------------------------------------------------

@pytest.mark.skipif(not WORLDBOOKS, reason="corpus not available")
@pytest.mark.parametrize("path", WORLDBOOKS, ids=ids(WORLDBOOKS))
def test_corpus_world_info_round_trips_exactly(path: Path) -> None:
    rep = reg().detect(as_input(path))
    assert rep.winner is not None and rep.winner.format == FID
    _, res, _ = reg().read(as_input(path))
    out = write(res.entities[0])
    assert not out.loss
    assert json.loads(out.files[0].data) == json.loads(path.read_bytes())
    assert conversion_problems(reg(), res.entities, FID) == []


@pytest.mark.skipif(not WORLDBOOKS, reason="corpus not available")
@pytest.mark.parametrize("path", WORLDBOOKS, ids=ids(WORLDBOOKS))
@pytest.mark.parametrize(("target", "options"), [
    (FID, {"variant": "v3"}), (FID, {"variant": "v2"}), ("agnai-memory", {}),
])
def test_corpus_cross_format_losses_are_reported(path: Path, target: str,
                                                 options: dict[str, str]) -> None:
    _, res, _ = reg().read(as_input(path))
    assert conversion_problems(reg(), res.entities, target, options) == []


# -- World Info field mapping -------------------------------------------------------------------

FULL_ENTRY: dict[str, Any] = {
    "key": ["lighthouse", "/beacon\\s+\\d+/i"], "keysecondary": ["storm"],
    "comment": "The lighthouse", "content": "A white tower watches the bay.",
    "constant": False, "vectorized": True, "selective": True, "selectiveLogic": 3,
    "addMemo": True, "order": 250, "position": 4, "disable": True, "ignoreBudget": True,
    "excludeRecursion": True, "preventRecursion": False,
    "matchPersonaDescription": True, "matchCharacterDescription": False,
    "matchCharacterPersonality": True, "matchCharacterDepthPrompt": False,
    "matchScenario": True, "matchCreatorNotes": False, "delayUntilRecursion": 2,
    "probability": 35, "useProbability": True, "depth": 6, "outletName": "harbour",
    "group": "coast, weather", "groupOverride": True, "groupWeight": 60, "scanDepth": 3,
    "caseSensitive": True, "matchWholeWords": None, "useGroupScoring": False,
    "automationId": "tide-1", "role": 2, "sticky": 0, "cooldown": None, "delay": 5,
    "triggers": ["normal", "swipe"], "uid": 7, "displayIndex": "9",
    "characterFilter": {"isExclude": True, "names": ["Keeper"], "tags": []},
    "someFutureFlag": {"x": 1},
}


def test_every_world_info_field_maps_to_its_canonical_field() -> None:
    book = read({"entries": {"7": FULL_ENTRY}}).entities[0]
    e = book.entries[0]
    assert (e.id, e.keys, e.secondary_keys) == (7, FULL_ENTRY["key"], ["storm"])
    assert (e.comment, e.content, e.enabled) == ("The lighthouse", FULL_ENTRY["content"], False)
    assert (e.position, e.depth, e.role, e.selective_logic) == ("at_depth", 6, "assistant",
                                                                 "and_all")
    assert (e.insertion_order, e.probability, e.use_probability) == (250, 35, True)
    assert (e.group, e.group_override, e.group_weight) == ("coast, weather", True, 60)
    assert (e.sticky, e.cooldown, e.delay, e.delay_until_recursion) == (0, None, 5, 2)
    assert (e.scan_depth, e.case_sensitive, e.match_whole_words) == (3, True, None)
    assert (e.use_group_scoring, e.automation_id, e.vectorized) == (False, "tide-1", True)
    assert (e.ignore_budget, e.outlet_name, e.triggers) == (True, "harbour", ["normal", "swipe"])
    assert (e.match_persona_description, e.match_scenario, e.match_creator_notes) == (
        True, True, False)
    assert e.display_index == 9  # "9" as written by Chub, read as a number
    assert e.character_filter == {"isExclude": True, "names": ["Keeper"], "tags": []}
    assert e.name is None and e.use_regex is None  # not World Info fields: not invented


def test_world_info_writes_back_every_key_with_its_original_type() -> None:
    book = read({"entries": {"7": FULL_ENTRY}}).entities[0]
    out = json.loads(write(book).files[0].data)
    assert out == {"entries": {"7": FULL_ENTRY}}
    assert list(out["entries"]["7"]) == list(FULL_ENTRY)  # key order too
    assert out["entries"]["7"]["displayIndex"] == "9"
    assert out["entries"]["7"]["cooldown"] is None and out["entries"]["7"]["sticky"] == 0


def test_an_edited_field_is_written_from_the_canonical_value() -> None:
    book = read({"entries": {"7": FULL_ENTRY}}).entities[0]
    e = book.entries[0]
    e.display_index, e.role, e.sticky, e.enabled, e.keys = 2, None, 4, True, ["tower"]
    out = json.loads(write(book).files[0].data)["entries"]["7"]
    assert out["displayIndex"] == 2 and out["role"] is None and out["sticky"] == 4
    assert out["disable"] is False and out["key"] == ["tower"]


def test_absent_stays_absent_and_default_stays_stated() -> None:
    sparse = {"uid": 0, "key": ["a"], "content": "x"}
    stated = {**sparse, "uid": 1, "probability": 100, "useProbability": True, "role": 0,
              "selective": True, "scanDepth": None}
    book = read({"entries": {"0": sparse, "1": stated}}).entities[0]
    a, b = book.entries
    assert (a.probability, a.use_probability, a.role, a.selective, a.scan_depth) == (
        None, None, None, None, None)
    assert (b.probability, b.use_probability, b.role, b.selective) == (100, True, "system",
                                                                       True)
    out = json.loads(write(book).files[0].data)["entries"]
    assert out["0"] == sparse and out["1"] == stated
    # and through a V3 book and back, nothing is filled in for the sparse entry
    v3 = json.loads(write(book, variant="v3").files[0].data)
    back = read(v3).entities[0]
    assert (back.entries[0].probability, back.entries[0].role, back.entries[0].sticky) == (
        None, None, None)
    assert (back.entries[1].probability, back.entries[1].role) == (100, "system")


def test_old_boolean_delay_until_recursion_keeps_its_type() -> None:
    book = read({"entries": {"0": {"uid": 0, "key": [], "delayUntilRecursion": False}}})
    e = book.entities[0].entries[0]
    assert e.delay_until_recursion is False
    out = json.loads(write(book.entities[0]).files[0].data)
    assert out["entries"]["0"]["delayUntilRecursion"] is False


def test_st_copies_in_extensions_agree_and_leave_canonical_extensions() -> None:
    entry = {"uid": 0, "key": ["k"], "content": "c", "depth": 4, "probability": 100,
             "role": None, "extensions": {"depth": 4, "probability": 100, "role": 0,
                                          "weight": "1.0"}}
    book = read({"entries": {"0": entry}}).entities[0]
    e = book.entries[0]
    # depth/probability are the same fact twice; role disagrees (null vs 0) and stays
    assert e.extensions == {"role": 0, "weight": "1.0"}
    assert json.loads(write(book).files[0].data)["entries"]["0"] == entry


def test_uid_that_differs_from_its_key_is_kept_and_reported() -> None:
    res = read({"entries": {"5": {"uid": 6, "key": ["x"], "content": "y"}}})
    assert [w.path for w in res.warnings if "does not match" in w.message] == [
        "$.entries['5'].uid"]
    assert res.entities[0].entries[0].id == 6  # SillyTavern identifies entries by uid
    out = json.loads(write(res.entities[0]).files[0].data)
    assert list(out["entries"]) == ["5"] and out["entries"]["5"]["uid"] == 6


def shifted_world(count: int) -> dict[str, Any]:
    """A World Info file whose object keys run one ahead of their uids (keys "1".."count",
    uids 0..count-1), as tools that number from one write it."""
    return {"entries": {str(i + 1): {"uid": i, "key": [f"isle {i}"], "keysecondary": [],
                                     "comment": f"Isle {i}", "content": f"Isle {i} has a bell.",
                                     "constant": False, "selective": True, "order": 100,
                                     "position": 0, "disable": False, "displayIndex": i}
                        for i in range(count)}}


def test_keys_that_disagree_with_their_uids_follow_the_uid_and_round_trip_exactly() -> None:
    src = shifted_world(34)
    data = json.dumps(src, indent=4).encode()
    res = read(data)
    book = res.entities[0]
    assert [e.id for e in book.entries] == list(range(34))
    out = write(book)
    assert not out.loss
    assert out.data == data  # the same file, keys and uids as they were
    assert conversion_problems(reg(), [book], FID) == []


def test_keys_that_disagree_with_their_uids_are_one_warning_with_a_count() -> None:
    res = read(shifted_world(34))
    uid_warnings = [w for w in res.warnings if "uid" in w.message]
    assert len(uid_warnings) == 1
    (w,) = uid_warnings
    assert w.path == "$.entries['1'].uid"
    assert "34 entries" in w.message and "$.entries['2'].uid" in w.message
    issues = validate(reg(), shifted_world(34), "w.json")
    assert len([i for i in issues if "uid" in i.message]) == 1  # validate says it once too
    assert issues == findings(shifted_world(34))


def test_repeated_uids_are_kept_where_the_file_had_them() -> None:
    src = {"entries": {"6": {"uid": 5, "key": ["a"], "content": "A"},
                       "5": {"uid": 5, "key": ["b"], "content": "B"}}}
    res = read(src)
    assert [e.id for e in res.entities[0].entries] == [5, 5]
    assert any("already" in w.message for w in res.warnings)
    assert json.loads(write(res.entities[0]).files[0].data) == src


def test_a_foreign_book_never_gets_a_uid_twice() -> None:
    book = Lorebook(entries=[LorebookEntry(id=4, keys=["a"]), LorebookEntry(id=4, keys=["b"]),
                             LorebookEntry(id="4", keys=["c"])])
    out = write(book)
    uids = [e["uid"] for e in json.loads(out.data)["entries"].values()]
    assert len(set(uids)) == 3 and 4 in uids
    assert not out.loss  # ids are not user data: a fresh uid loses nothing


def test_entries_without_uid_stay_without_uid() -> None:
    src = {"entries": {"4": {"key": ["a"], "content": "x"}, "9": {"key": ["b"]}}}
    book = read(src).entities[0]
    assert [e.id for e in book.entries] == [None, None]
    out = write(book)
    assert not out.loss and json.loads(out.files[0].data) == src


def test_world_info_root_fields_and_original_data_survive() -> None:
    src = {"name": "Coast", "description": "d", "scanDepth": 2, "tokenBudget": 900,
           "recursiveScanning": True, "extensions": {"tool": {"v": 1}},
           "entries": {"0": {"uid": 0, "key": ["k"], "content": "c"}},
           "originalData": {"name": "Coast", "entries": [{"keys": ["k"], "content": "c"}]}}
    book = read(src).entities[0]
    assert (book.name, book.scan_depth, book.token_budget) == ("Coast", 2, 900)
    assert book.recursive_scanning is True and book.extensions == {"tool": {"v": 1}}
    assert json.loads(write(book).files[0].data) == src


# -- Chub hybrids --------------------------------------------------------------------------------

def chub_entry(**over: Any) -> dict[str, Any]:
    e: dict[str, Any] = {
        "uid": 0, "key": ["dock"], "keysecondary": [], "comment": "Dock", "content": "Piers.",
        "order": 100, "disable": False, "displayIndex": "0", "caseSensitive": None,
        "id": 0, "keys": ["dock"], "secondary_keys": [], "insertion_order": 100,
        "enabled": True, "name": "Dock", "priority": 10, "case_sensitive": False,
        "extensions": {"weight": "1.0", "addMemo": True},
    }
    e.update(over)
    return e


def chub_book(*entries: dict[str, Any]) -> dict[str, Any]:
    return {"name": "Harbour", "description": "", "is_creation": False, "scan_depth": 50,
            "token_budget": 500, "recursive_scanning": False,
            "extensions": {"chub": {"id": 1, "full_path": "someone/harbour"}},
            "entries": {str(i): e for i, e in enumerate(entries)}}


def test_chub_hybrid_prefers_the_st_names_and_keeps_the_rest() -> None:
    src = chub_book(chub_entry(), {**chub_entry(uid=1, id=1, keys=["wharf"])})
    assert detect(src)[FID] == 0.9
    res = read(src)
    a, b = res.entities[0].entries
    assert (a.name, a.priority, a.keys, a.case_sensitive) == ("Dock", 10, ["dock"], None)
    assert b.keys == ["dock"]  # ST's "key" wins over the disagreeing V2 "keys"
    assert any("disagrees" in w.message and "keys" in w.path for w in res.warnings)
    assert json.loads(write(res.entities[0]).files[0].data) == src


def test_chub_hybrid_edit_updates_both_vocabularies_where_they_agreed() -> None:
    book = read(chub_book(chub_entry())).entities[0]
    book.entries[0].keys = ["pier"]
    book.entries[0].enabled = False
    out = json.loads(write(book).files[0].data)["entries"]["0"]
    assert out["key"] == out["keys"] == ["pier"]
    assert out["disable"] is True and out["enabled"] is False
    assert out["case_sensitive"] is False  # disagreed with caseSensitive: kept as it was


# -- standalone V2 / V3 books --------------------------------------------------------------------

V3_BOOK = {"spec": "lorebook_v3", "data": {
    "name": "Orchard", "description": "Trees", "extensions": {},
    "entries": [{"keys": ["apple"], "content": "Red.", "extensions": {"depth": 2},
                 "enabled": True, "insertion_order": 1, "use_regex": False, "id": "a1",
                 "name": "Apple", "priority": 3}]},
    "x_tool": "kept"}


def test_v3_book_reads_through_cardspec_and_writes_back_as_v3() -> None:
    assert detect(V3_BOOK)[FID] == 0.9
    book = read(V3_BOOK).entities[0]
    e = book.entries[0]
    assert (book.name, e.id, e.name, e.priority, e.use_regex, e.depth) == (
        "Orchard", "a1", "Apple", 3, False, 2)
    out = write(book)
    assert not out.loss and json.loads(out.files[0].data) == V3_BOOK


def test_hand_made_book_round_trips_without_gaining_fields() -> None:
    src = {"name": "Kings", "entries": [{"keys": ["crown"], "content": "Gold."},
                                        {"keys": ["throne"], "content": "Oak."}]}
    assert detect(src)[FID] == 0.75
    book = read(src).entities[0]
    assert [e.enabled for e in book.entries] == [True, True]
    assert book.entries[0].insertion_order is None  # not stated, not invented
    assert json.loads(write(book).files[0].data) == src


def test_full_v2_book_scores_above_a_hand_made_one() -> None:
    v2 = {"entries": [{"keys": ["a"], "content": "b", "enabled": True, "insertion_order": 0,
                       "extensions": {}}]}
    assert detect(v2)[FID] == 0.85


def test_a_v2_book_can_be_written_as_world_info_and_v3() -> None:
    src = {"name": "Kings", "entries": [{"keys": ["crown"], "content": "Gold.", "name": "Crown",
                                         "enabled": True, "insertion_order": 5,
                                         "extensions": {"position": 4, "depth": 2, "role": 1}}]}
    book = read(src).entities[0]
    wi = write(book, variant="worldinfo")
    obj = json.loads(wi.files[0].data)
    entry = obj["entries"]["0"]
    assert (entry["key"], entry["position"], entry["depth"], entry["role"]) == (
        ["crown"], 4, 2, 1)
    assert entry["comment"] == "Crown"  # ST's title
    assert [e.path for e in wi.loss] == ["entries[0].comment"]  # a fresh uid is no loss
    for variant in ("worldinfo", "v3"):
        assert conversion_problems(reg(), [book], FID, {"variant": variant}) == []


# -- other formats' books come out as World Info -------------------------------------------------

def test_a_foreign_book_is_written_as_world_info_with_honest_losses() -> None:
    book = Lorebook(name="Mixed", entries=[
        LorebookEntry(keys=["a"], content="A", name="First", folder="f1"),
        LorebookEntry(id=3, keys=["b"], content="B", position="risu_custom"),
        LorebookEntry(id=3, keys=["c"], content="C", is_folder=True),
    ])
    out = write(book)
    obj = json.loads(out.files[0].data)
    assert list(obj["entries"]) == ["0", "3", "1"]
    paths = {e.path for e in out.loss}
    assert paths == {"entries[0].folder", "entries[1].position", "entries[2].is_folder",
                     "entries[0].comment"}
    back = read(out.files[0].data).entities[0]
    assert uncovered_differences(book, back, out.loss) == []


# -- detection -----------------------------------------------------------------------------------

@pytest.mark.parametrize("obj", [
    {"name": "Hero", "description": "brave", "first_mes": "Hi"},  # V1 card
    {"spec": "chara_card_v2", "spec_version": "2.0",
     "data": {"name": "A", "character_book": {"entries": [{"keys": ["k"], "content": "c"}]}}},
    {"type": "risu", "ver": 1, "data": [{"key": "a, b", "content": "c"}]},
    {"lorebookVersion": 5, "entries": [{"text": "t", "keys": ["k"]}]},
    {"kind": "memory", "name": "m", "entries": [{"keywords": ["k"], "entry": "e"}]},
    {"entries": [{"keywords": ["k"], "entry": "e", "name": "n"}]},
    {"personas": {}, "persona_descriptions": {}},
    {"scriptName": "s", "findRegex": "/a/g"},
    {"kind": "lorebook", "schema_version": "1.0", "entries": [{"keys": ["k"], "content": "c"}]},
    {"name": "just a name", "description": "and a description"},
    [{"keys": ["a"], "content": "b"}],
])
def test_other_shapes_are_not_claimed(obj: Any) -> None:
    assert detect(obj).get(FID, 0.0) == 0.0


def test_a_worldbook_is_never_a_v1_card_and_vice_versa() -> None:
    wb = {"entries": {"0": {"uid": 0, "key": ["k"], "content": "c"}}}
    scores = detect(wb)
    assert scores[FID] == 0.9 and max(s for f, s in scores.items() if f != FID) < 0.5


def test_empty_world_info_is_claimed_in_band() -> None:
    assert detect({"entries": {}})[FID] == 0.6


# -- bad input -----------------------------------------------------------------------------------

@pytest.mark.parametrize("obj", [
    {"entries": None}, {"entries": "x"}, {"entries": 3}, [], "text", {"no": "entries"},
    {"spec": "lorebook_v3", "data": "x"},
])
def test_unreadable_shapes_are_malformed_not_crashes(obj: Any) -> None:
    with pytest.raises(MalformedInput):
        read(obj)


def test_wrong_types_inside_entries_are_read_tolerantly_and_written_back() -> None:
    src = {"entries": {"0": {"uid": 0, "key": "solo", "content": 12, "depth": "deep",
                             "role": 9, "position": "sideways", "probability": True},
                       "1": "not an entry", "2": {"uid": 2, "key": [1, "b"]}}}
    res = read(src)
    book = res.entities[0]
    e = book.entries[0]
    assert (e.keys, e.content, e.depth, e.role, e.position) == (["solo"], "12", None, None,
                                                                 None)
    assert book.entries[1].keys == ["1", "b"]
    paths = {w.path for w in res.warnings}
    assert {"$.entries['0'].depth", "$.entries['0'].role", "$.entries['1']"} <= paths
    assert json.loads(write(book).files[0].data) == src


# -- validation and labels -----------------------------------------------------------------------

def test_validate_reports_world_info_rules_with_json_paths() -> None:
    data = {"entries": {"0": {"uid": 1, "key": "x", "position": 12},
                        "1": {"key": ["a"], "role": 5}, "2": []}}
    got = [(i.path, i.severity) for i in findings(data)]
    for expected in (("$.entries['0'].uid", "warning"), ("$.entries['0'].key", "warning"),
                     ("$.entries['0'].position", "warning"), ("$.entries['1'].uid", "warning"),
                     ("$.entries['1'].role", "warning"), ("$.entries['2']", "warning")):
        assert got.count(expected) == 1, (expected, got)  # each finding said once


def test_a_broken_rule_in_many_entries_is_said_once() -> None:
    data = {"entries": {str(i): {"key": ["k"], "displayIndex": str(i)} for i in range(12)}}
    issues = findings(data)
    missing = [i for i in issues if i.path.endswith(".uid")]
    assert len(missing) == 1 and "12 entries" in missing[0].message
    assert len([i for i in issues if i.path.endswith(".displayIndex")]) == 1


def test_validate_reports_card_book_rules() -> None:
    data = {"spec": "lorebook_v3", "data": {"entries": [{"keys": "k"}]}}
    issues = validate(reg(), data, "b.json")
    got = {i.path for i in issues}
    assert {"$.data.entries[0].keys", "$.data.entries[0].content",
            "$.data.entries[0].use_regex", "$.data.extensions"} <= got


def test_labels_chub_lorebook_and_st_world_info() -> None:
    chub = chub_book(chub_entry())
    got = label(reg(), chub, "c.json")
    chub_guess = next(g for g in got.guesses if g.app == "Chub")
    assert chub_guess.role == "origin"
    assert "book-level extensions.chub" in chub_guess.evidence
    eldoria = corpus_dir() / "st-worldbook" / (
        "st-worldbook__SillyTavern_SillyTavern__Eldoria__bfc2548443.json")
    if eldoria.exists():
        got = label(reg(), eldoria)
        st = next(g for g in got.guesses if g.app == "SillyTavern")
        assert st.role == "last_writer"


def test_damaged_files_read_tolerantly_or_fail_cleanly_and_round_trip() -> None:
    from bunzai.testing.damage import check_damaged_round_trips

    seeds: list[Any] = [json.loads(p.read_bytes()) for p in WORLDBOOKS[:6] if p.exists()]
    seeds += [{"entries": {"7": FULL_ENTRY}}, chub_book(chub_entry()), V3_BOOK]
    # a settings.json is written as a backup or an export, not as read
    assert check_damaged_round_trips(reg(), FID, seeds, exact=lambda d: not is_settings(d)) > 30


def test_text_ids_from_other_formats_become_numeric_uids() -> None:
    book = Lorebook(entries=[
        LorebookEntry(id="9b2e1c", keys=["quay"], content="Stone steps."),
        LorebookEntry(id="7", keys=["tide"], content="Six o'clock."),
        LorebookEntry(id=0, keys=["lamp"], content="Lit at dusk."),
    ])
    for variant in ("worldinfo", "v2", "v3"):
        out = write(book, variant=variant)
        doc = json.loads(out.data)
        entries = doc["entries"] if variant != "v3" else doc["data"]["entries"]
        found = entries.values() if variant == "worldinfo" else entries
        ids = [e["uid"] if variant == "worldinfo" else e["id"] for e in found]
        assert all(isinstance(i, int) for i in ids), (variant, ids)
        assert len(set(ids)) == 3 and 7 in ids and 0 in ids
        assert not uncovered_differences(book, read(out.data).entities[0], out.loss), variant


# -- what is user data and what is layout ---------------------------------------------------------

def test_unknown_keys_are_app_data_and_layout_is_not() -> None:
    src = {"entries": {"0": {"uid": 0, "key": ["k"], "content": "c", "addMemo": True,
                             "someFutureFlag": {"x": 1}}},
           "originalData": {"name": "Coast", "entries": []}}
    book = read(json.dumps(src, indent=2).encode()).entities[0]
    assert book.app_data == {FID: {"originalData": {"name": "Coast", "entries": []}}}
    assert book.entries[0].app_data == {FID: {"addMemo": True, "someFutureFlag": {"x": 1}}}
    out = reg().write([book], "agnai-memory")
    dropped = {e.path for e in out.loss if e.action == "dropped"}
    assert "app_data.sillytavern-lorebook.originalData" in dropped
    assert "entries[0].app_data.sillytavern-lorebook.someFutureFlag" in dropped
    assert not any("addMemo" in p for p in dropped)  # the editor's memo toggle: not data
    assert conversion_problems(reg(), [book], "agnai-memory") == []


def test_a_lorebook_v3_files_own_keys_are_app_data() -> None:
    book = read(V3_BOOK).entities[0]
    assert book.app_data[FID] == {"lorebook_v3.x_tool": "kept"}
    out = write(book, variant="worldinfo")
    assert [e.path for e in out.loss if e.action == "dropped"] == [
        "app_data.sillytavern-lorebook.lorebook_v3.x_tool"]
    assert conversion_problems(reg(), [book], FID, {"variant": "worldinfo"}) == []

"""agnai-memory: Agnai memory books, and conversions with the other Tavern lorebooks."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from bunzai import testing
from bunzai.sdk import MalformedInput
from bunzai.testing import (
    Registry,
    as_input,
    conversion_problems,
    corpus_files,
    ids,
    load_registry,
    samples_dir,
    uncovered_differences,
)
from bunzai_tavern._common.stsettings import is_settings

FID = "agnai-memory"
FILES = [*corpus_files("agnai"), samples_dir() / "tavern" / "synthetic_agnai_memory_book.json"]
FILES = [p for p in FILES if p.exists()]


@cache
def reg() -> Registry:
    return load_registry()


def read(obj: Any, fmt: str | None = FID) -> Any:
    return testing.read(reg(), obj, fmt, "m.json")


def detect(obj: Any) -> dict[str, float]:
    return testing.scores(reg(), obj)


BOOK = {"kind": "memory", "name": "Ferry", "description": "River lore", "entries": [
    {"name": "Ferry", "entry": "A flat boat on a chain.", "keywords": ["ferry", "boat"],
     "priority": 5, "weight": 20, "enabled": True, "secondaryKeys": ["chain"],
     "selective": True, "selectiveLogic": 2, "probability": 50, "useProbability": True,
     "position": "after_char", "constant": False, "comment": "note", "id": 4,
     "excludeRecursion": True},
    {"name": "Off", "entry": "Unused.", "keywords": [], "priority": 0, "weight": 0,
     "enabled": False}]}


@pytest.mark.skipif(not FILES, reason="corpus not available")
@pytest.mark.parametrize("path", FILES, ids=ids(FILES))
def test_memory_books_round_trip_exactly(path: Path) -> None:
    rep = reg().detect(as_input(path))
    assert rep.winner is not None and rep.winner.format == FID and rep.winner.score == 0.95
    _, res, _ = reg().read(as_input(path))
    out = reg().write(res.entities, FID)
    assert not out.loss and json.loads(out.files[0].data) == json.loads(path.read_bytes())


@pytest.mark.skipif(not FILES, reason="corpus not available")
@pytest.mark.parametrize("path", FILES, ids=ids(FILES))
@pytest.mark.parametrize(("target", "options"), [
    ("sillytavern-lorebook", {}), ("sillytavern-lorebook", {"variant": "v3"}),
    ("sillytavern-lorebook", {"variant": "v2"}),
])
def test_memory_books_convert_to_st_books_honestly(path: Path, target: str,
                                                   options: dict[str, str]) -> None:
    _, res, _ = reg().read(as_input(path))
    assert conversion_problems(reg(), res.entities, target, options) == []


def test_fields_map_to_the_canonical_entry() -> None:
    book = read(BOOK).entities[0]
    a, b = book.entries
    assert (book.name, book.description) == ("Ferry", "River lore")
    assert (a.name, a.content, a.keys, a.priority, a.insertion_order) == (
        "Ferry", "A flat boat on a chain.", ["ferry", "boat"], 5, 20)
    assert (a.secondary_keys, a.selective, a.selective_logic) == (["chain"], True, "not_any")
    assert (a.probability, a.use_probability, a.position, a.comment, a.id) == (
        50, True, "after_char", "note", 4)
    assert a.exclude_recursion is True and b.enabled is False
    assert json.loads(reg().write([book], FID).files[0].data) == BOOK


def test_world_info_to_memory_reports_what_agnai_cannot_hold() -> None:
    wi = {"entries": {"0": {"uid": 0, "key": ["k"], "content": "c", "comment": "Title",
                            "position": 4, "depth": 6, "sticky": 2, "role": 1,
                            "caseSensitive": True,
                            "extensions": {"x": 1}}}}
    _, res, _ = reg().read(as_input(json.dumps(wi).encode(), "w.json"),
                           format="sillytavern-lorebook")
    book = res.entities[0]
    out = reg().write([book], FID)
    doc = json.loads(out.files[0].data)
    assert doc["kind"] == "memory"
    assert doc["entries"][0]["name"] == "Title"  # the comment titles the entry
    paths = {e.path for e in out.loss}
    assert {"entries[0].depth", "entries[0].sticky", "entries[0].role",
            "entries[0].case_sensitive", "entries[0].extensions.x"} <= paths
    assert not [line for line in out.loss.lines(verbose=True) if "name" in line]  # one title
    reasons = {e.path: e.reason for e in out.loss}
    assert "Agnai" in reasons["entries[0].case_sensitive"]
    back = read(out.files[0].data).entities[0]
    assert uncovered_differences(book, back, out.loss) == []


def test_a_title_written_as_agnais_name_is_no_loss_either_way() -> None:
    wi = {"entries": {str(i): {"uid": i, "key": [f"k{i}"], "content": f"c{i}",
                               "comment": f"Title {i}"} for i in range(3)}}
    _, res, _ = reg().read(as_input(json.dumps(wi).encode(), "w.json"),
                           format="sillytavern-lorebook")
    out = reg().write(res.entities, FID)
    assert [e["name"] for e in json.loads(out.files[0].data)["entries"]] == [
        "Title 0", "Title 1", "Title 2"]  # Agnai shows an entry's name as its title
    # the numbers World Info does not have are all the report names
    assert {e.path.split(".")[-1] for e in out.loss} == {"priority", "insertion_order"}
    assert conversion_problems(reg(), res.entities, FID) == []
    # and back: a name that repeats the comment is the same title, not a dropped field
    memory = read(out.files[0].data).entities
    back = reg().write(memory, "sillytavern-lorebook")
    assert back.loss.lines() == ["nothing lost"]
    assert conversion_problems(reg(), memory, "sillytavern-lorebook") == []
    # where there is no title at all, the comment is the loss; a name of its own is one more
    titles = {e.path for e in reg().write(memory, "voxta-lorebook").loss if "[0]" in e.path}
    assert "entries[0].comment" in titles and "entries[0].name" not in titles
    own = memory[0].model_copy(deep=True)
    own.entries[0].name = "Another title"
    assert "entries[0].name" in {e.path for e in reg().write([own], "voxta-lorebook").loss}


def test_kindless_agnai_vocabulary_scores_in_band() -> None:
    assert detect({"name": "x", "entries": [{"entry": "e", "keywords": ["k"]}]})[FID] == 0.7


@pytest.mark.parametrize("obj", [
    {"entries": {"0": {"uid": 0, "key": ["k"]}}},
    {"entries": [{"keys": ["k"], "content": "c"}]},
    {"kind": "character", "name": "x", "persona": {}},
    {"kind": "lorebook", "schema_version": "1.0", "entries": []},
    {"type": "risu", "data": []},
])
def test_other_shapes_are_not_claimed(obj: Any) -> None:
    assert detect(obj).get(FID, 0.0) == 0.0


@pytest.mark.parametrize("obj", [{"kind": "memory", "entries": None}, [], "x",
                                 {"kind": "memory", "entries": {"a": 1}}])
def test_unreadable_books_are_malformed(obj: Any) -> None:
    with pytest.raises(MalformedInput):
        read(obj)


def test_wrong_types_are_tolerated_and_kept() -> None:
    src = {"kind": "memory", "name": 3, "entries": [
        {"name": "n", "entry": "e", "keywords": "solo", "priority": "high", "weight": "7",
         "enabled": "yes"}, None]}
    res = read(src)
    e = res.entities[0].entries[0]
    assert (e.keys, e.priority, e.insertion_order, e.enabled) == (["solo"], None, 7, True)
    assert {"$.entries[0].priority", "$.entries[0].enabled", "$.entries[1]"} <= {
        w.path for w in res.warnings}
    assert json.loads(reg().write(res.entities, FID).files[0].data) == src


def test_an_item_that_is_no_entry_is_named_kept_and_reported_by_other_formats() -> None:
    src = {"kind": "memory", "name": "b", "entries": [
        {"name": "n", "entry": "e", "keywords": ["k"], "priority": 1, "weight": 2},
        "a note someone typed here", {"name": "m", "entry": "f", "keywords": ["j"],
                                      "priority": 1, "weight": 2}]}
    res = read(src)
    assert [(w.path, w.message) for w in res.warnings] == [
        ("$.entries[1]", "a string is not an entry; skipped")]
    book = res.entities[0]
    assert len(book.entries) == 2
    assert json.loads(reg().write([book], FID).files[0].data) == src
    for target in ("sillytavern-lorebook", "risu-lorebook"):
        out = reg().write([book], target)
        assert ("app_data.agnai-memory.skipped entries", "dropped") in {
            (e.path, e.action) for e in out.loss}, target
        assert conversion_problems(reg(), [book], target) == []


def findings(obj: Any) -> list[Any]:
    """What ``bunzai validate --from agnai-memory`` says: the reader's warnings, then the
    format's own rules."""
    res = read(obj)
    inp = as_input(json.dumps(obj).encode(), "m.json")
    return [*res.warnings, *reg().validate(reg().get(FID), inp, res.entities)]


def test_validate_reports_memory_rules_with_paths() -> None:
    data = {"kind": "memory", "name": "b",
            "entries": [{"entry": "e", "keywords": "k", "priority": "1"}, 5]}
    got = [(i.path, i.severity) for i in findings(data)]
    assert ("$.entries[0].keywords", "error") in got
    assert ("$.entries[0].priority", "warning") in got  # the reader says what it read
    assert ("$.entries[0].weight", "warning") in got
    assert ("$.entries[1]", "error") in got
    assert len(got) == len(set(got))  # nothing said twice


def test_validate_says_a_value_agnai_refuses_once_as_an_error() -> None:
    data = {"kind": "memory", "name": "b",
            "entries": [{"entry": "e", "keywords": "k", "priority": 1, "weight": 1}]}
    found = [(i.severity, i.path, i.message)
             for i in testing.validate(reg(), json.dumps(data).encode(), "m.json")]
    # the reader kept the string as it was; what matters is that Agnai drops the entry
    assert [f for f in found if f[1] == "$.entries[0].keywords"] == [
        ("error", "$.entries[0].keywords", "missing or not a list: Agnai drops the entry on "
                                           "import")]


def test_a_rule_broken_by_many_entries_is_said_once() -> None:
    data = {"kind": "memory", "name": "b",
            "entries": [{"entry": f"e{i}", "keywords": ["k"], "priority": 1} for i in range(9)]}
    weight = [i for i in findings(data) if i.path.endswith(".weight")]
    assert len(weight) == 1 and "9 entries" in weight[0].message


def test_what_agnai_ignores_is_app_data() -> None:
    src = {"kind": "memory", "name": "b", "is_creation": False, "entries": [
        {"name": "n", "entry": "e", "keywords": ["k"], "priority": 1, "weight": 2,
         "case_sensitive": True, "extensions": {"depth": 3}}]}
    book = read(src).entities[0]
    e = book.entries[0]
    assert e.case_sensitive is None and e.extensions == {}
    assert e.app_data == {FID: {"case_sensitive": True, "extensions": {"depth": 3}}}
    out = reg().write([book], "sillytavern-lorebook")
    dropped = {x.path for x in out.loss}
    assert {"entries[0].app_data.agnai-memory.case_sensitive",
            "entries[0].app_data.agnai-memory.extensions"} <= dropped
    assert not any("is_creation" in p for p in dropped)  # false: Chub's default
    assert conversion_problems(reg(), [book], "sillytavern-lorebook") == []


def test_damaged_files_read_tolerantly_or_fail_cleanly_and_round_trip() -> None:
    from bunzai.testing.damage import check_damaged_round_trips

    seeds: list[Any] = [json.loads(p.read_bytes()) for p in FILES if p.exists()]
    seeds += [BOOK]
    # a settings.json is written as a backup or an export, not as read
    assert check_damaged_round_trips(reg(), FID, seeds, exact=lambda d: not is_settings(d)) > 30


def test_a_book_from_elsewhere_passes_agnais_own_checks() -> None:
    from bunzai import validate_file

    wi = {"entries": {"0": {"uid": 0, "key": ["tide"], "content": "The tide turns."}}}
    _, res, _ = reg().read(as_input(json.dumps(wi).encode(), "w.json"),
                           format="sillytavern-lorebook")
    out = reg().write(res.entities, FID)
    doc = json.loads(out.files[0].data)
    assert doc["name"] == "" and doc["entries"][0]["priority"] == 0
    assert doc["entries"][0]["weight"] == 0
    found = validate_file(out.files[0].data, filename="book.json", from_format=FID,
                          strict=True, registry=reg())
    assert found.valid, [i.to_dict() for i in found.issues]
    assert {e.path for e in out.loss} == {"entries[0].priority", "entries[0].insertion_order"}

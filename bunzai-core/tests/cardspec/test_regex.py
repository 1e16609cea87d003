"""cardspec: SillyTavern regex scripts <-> canonical RegexScript, and card validation."""

from __future__ import annotations

from typing import Any

import pytest

from bunzai.cardspec import (
    build_st_regex,
    join_find_regex,
    parse_st_regex,
    split_find_regex,
    validate_card,
)
from bunzai.errors import Issue
from bunzai.loss.report import LossReport
from bunzai.model import RegexScript

FID = "test-format"


@pytest.mark.parametrize(("find", "pattern", "flags"), [
    ("/a+b/gi", "a+b", "gi"),
    ("/<think>[\\s\\S]*?<\\/think>/g*", "<think>[\\s\\S]*?<\\/think>", "g"),  # ST ignores junk
    ("/x/", "x", ""),
    ("plain words", "plain words", None),
    ("/a/b*", "/a/b*", None),  # flags ST would refuse: the whole string is the pattern
    ("/path/to/x/m", "path/to/x", "m"),
])
def test_split_find_regex_like_sillytavern(find: str, pattern: str, flags: str | None) -> None:
    assert split_find_regex(find) == (pattern, flags)


def test_join_is_the_inverse_for_clean_input() -> None:
    assert join_find_regex("a", "g") == "/a/g"
    assert join_find_regex("a b", None) == "a b"


OLD_STYLE: dict[str, Any] = {
    "scriptName": "Hide summary", "findRegex": "/<summary>.*?<\\/summary>/gs",
    "replaceString": "", "trimStrings": [], "placement": [2], "disabled": False,
    "markdownOnly": False, "promptOnly": True, "runOnEdit": True, "substituteRegex": False,
    "minDepth": 6, "maxDepth": 25, "id": "47a33178",
}


def test_old_style_script_round_trips_with_its_types() -> None:
    warnings: list[Issue] = []
    s = parse_st_regex(OLD_STYLE, format_id=FID, warnings=warnings)
    assert not warnings  # a boolean substituteRegex is the old, valid form
    assert (s.name, s.pattern, s.flags) == ("Hide summary", "<summary>.*?<\\/summary>", "gs")
    assert s.substitute_regex == 0 and s.prompt_only is True and s.min_depth == 6
    s = RegexScript.model_validate_json(s.model_dump_json())
    out = build_st_regex(s, format_id=FID)
    assert out == OLD_STYLE and list(out) == list(OLD_STYLE)  # id last, as it was


def test_junk_after_flags_is_kept_until_the_pattern_changes() -> None:
    raw = {"scriptName": "t", "findRegex": "/a/g*", "placement": [2, 6]}
    s = parse_st_regex(raw, format_id=FID)
    assert s.placement == ["ai_output", "reasoning"]
    assert build_st_regex(s, format_id=FID)["findRegex"] == "/a/g*"
    s.pattern = "b"
    assert build_st_regex(s, format_id=FID)["findRegex"] == "/b/g"


def test_unknown_placement_numbers_and_keys_survive() -> None:
    raw = {"scriptName": "t", "findRegex": "x", "placement": [4, 0], "someTool": 1}
    s = parse_st_regex(raw, format_id=FID)
    assert s.placement == ["sillytavern:4", "display"]
    assert build_st_regex(s, format_id=FID) == raw


def test_fresh_script_leaves_unstated_fields_out_and_reports_what_it_changes() -> None:
    # What a script's JSON has no key for (its extensions) is dropped by the format's declared
    # carried paths; the codec reports what it writes differently.
    s = RegexScript(name="r", pattern="p", flags="g", placement=["user_input", "editinput"],
                    extensions={"app": {"x": 1}})
    loss = LossReport()
    out = build_st_regex(s, format_id=FID, loss=loss, path="regex_scripts[0]")
    assert out == {"scriptName": "r", "findRegex": "/p/g", "replaceString": "",
                   "trimStrings": [], "placement": [1], "disabled": False}
    assert [e.path for e in loss] == ["regex_scripts[0].placement"]


# -- validation ----------------------------------------------------------------------


def _paths(card: Any) -> dict[str, str]:
    return {i.path: i.severity for i in validate_card(card)}


def test_validate_reports_spec_violations_with_paths() -> None:
    card = {"spec": "chara_card_v3", "spec_version": "3.0", "data": {
        "name": "A", "description": 5, "alternate_greetings": "hi", "character_book": None,
        "extensions": {}, "assets": [{"type": "icon", "uri": "ccdefault:", "name": "x"}],
    }}
    paths = _paths(card)
    assert paths["$.data.description"] == "warning"
    assert "$.data.alternate_greetings" in paths
    assert "$.data.character_book" in paths
    assert "$.data.group_only_greetings" in paths  # required in V3
    assert "$.data.first_mes" in paths
    assert "$.data.assets[0].ext" in paths
    assert all(sev == "warning" for sev in paths.values())


def test_validate_books_entries_and_breakage() -> None:
    card = {"spec": "chara_card_v2", "spec_version": "2.1", "data": {
        "name": "A", "character_book": {"entries": [{"keys": "a", "content": "x"}]}}}
    paths = _paths(card)
    assert "$.spec_version" in paths
    assert "$.data.character_book.extensions" in paths
    assert "$.data.character_book.entries[0].keys" in paths
    assert "$.data.character_book.entries[0].enabled" in paths
    assert _paths({"spec": "chara_card_v2", "data": []}) ["$.data"] == "error"
    assert _paths([]) == {"$": "error"}


def test_a_clean_card_has_no_issues() -> None:
    data = {k: "" for k in ("name", "description", "personality", "scenario", "first_mes",
                            "mes_example", "creator_notes", "system_prompt",
                            "post_history_instructions", "creator", "character_version")}
    data.update(alternate_greetings=[], tags=[], extensions={}, group_only_greetings=[])
    assert validate_card({"spec": "chara_card_v3", "spec_version": "3.0", "data": data}) == []

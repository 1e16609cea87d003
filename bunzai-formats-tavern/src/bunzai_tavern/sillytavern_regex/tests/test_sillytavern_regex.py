"""sillytavern-regex: ST regex exports (one script or an array) and settings.json's scripts."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from bunzai import testing
from bunzai.sdk import MalformedInput, RegexScript
from bunzai.testing import (
    Registry,
    as_input,
    conversion_problems,
    corpus_files,
    ids,
    label,
    load_registry,
    samples_dir,
    uncovered_differences,
)
from bunzai_tavern._common.stsettings import is_settings

FID = "sillytavern-regex"
FILES = corpus_files("st-regex") + sorted((samples_dir() / "tavern").glob("st_regex_*.json"))


@cache
def reg() -> Registry:
    return load_registry()


def read(obj: Any, fmt: str | None = FID) -> Any:
    return testing.read(reg(), obj, fmt, "r.json")


def detect(obj: Any) -> dict[str, float]:
    return testing.scores(reg(), obj)


SCRIPT = {
    "id": "0d6c3a8e-1111-4a2b-9c3d-000000000001", "scriptName": "Hide notes",
    "findRegex": "/<note>[\\s\\S]*?<\\/note>/gi", "replaceString": "", "trimStrings": ["  "],
    "placement": [1, 2, 6], "disabled": False, "markdownOnly": True, "promptOnly": False,
    "runOnEdit": True, "substituteRegex": 2, "minDepth": None, "maxDepth": 4,
}


@pytest.mark.skipif(not FILES, reason="corpus not available")
@pytest.mark.parametrize("path", FILES, ids=ids(FILES))
def test_real_exports_round_trip_exactly(path: Path) -> None:
    rep = reg().detect(as_input(path))
    assert rep.winner is not None and rep.winner.format == FID and rep.winner.score == 0.9
    _, res, _ = reg().read(as_input(path))
    original = json.loads(path.read_bytes())
    assert len(res.entities) == (len(original) if isinstance(original, list) else 1)
    out = reg().write(res.entities, FID)
    assert not out.loss and len(out.files) == 1
    assert json.loads(out.files[0].data) == original
    assert conversion_problems(reg(), res.entities, FID) == []


@pytest.mark.skipif(not FILES, reason="corpus not available")
@pytest.mark.parametrize("path", FILES, ids=ids(FILES))
def test_conversion_to_risu_regex_is_honest(path: Path) -> None:
    if "risu-regex" not in reg().adapters:
        pytest.skip("risu-regex not installed")
    _, res, _ = reg().read(as_input(path))
    assert conversion_problems(reg(), res.entities, "risu-regex") == []


def test_fields_map_to_the_canonical_script() -> None:
    s = read(SCRIPT).entities[0]
    assert (s.name, s.pattern, s.flags, s.replace) == ("Hide notes", "<note>[\\s\\S]*?<\\/note>",
                                                       "gi", "")
    assert s.placement == ["user_input", "ai_output", "reasoning"]
    assert (s.markdown_only, s.prompt_only, s.run_on_edit) == (True, False, True)
    assert (s.substitute_regex, s.min_depth, s.max_depth, s.trim_strings) == (2, None, 4, ["  "])


def test_old_boolean_substitute_regex_is_written_back_as_a_boolean() -> None:
    old = {**SCRIPT, "substituteRegex": False}
    s = read(old).entities[0]
    assert s.substitute_regex == 0
    assert json.loads(reg().write([s], FID).files[0].data)["substituteRegex"] is False


def test_one_object_stays_one_object_and_an_array_stays_an_array() -> None:
    single = read(SCRIPT).entities
    assert isinstance(json.loads(reg().write(single, FID).files[0].data), dict)
    one_in_array = read([SCRIPT]).entities
    assert json.loads(reg().write(one_in_array, FID).files[0].data) == [SCRIPT]
    two = read([SCRIPT, {**SCRIPT, "scriptName": "Second"}]).entities
    assert len(two) == 2
    assert [x["scriptName"] for x in json.loads(reg().write(two, FID).files[0].data)] == [
        "Hide notes", "Second"]


def test_split_writes_one_file_per_script_named_like_st_exports() -> None:
    two = read([SCRIPT, {**SCRIPT, "scriptName": "A/B test: 1"}]).entities
    out = reg().write(two, FID, {"split": "true"})
    assert [f.name for f in out.files] == ["hide_notes", "a_b_test__1"]
    assert all(isinstance(json.loads(f.data), dict) for f in out.files)


def test_tavernhelper_snake_case_scripts_are_not_claimed() -> None:
    th = {"id": "x", "script_name": "n", "find_regex": "/a/", "replace_string": "",
          "enabled": True, "source": {"user_input": True}, "destination": {"display": True}}
    assert detect(th).get(FID, 0.0) == 0.0
    assert detect([th]).get(FID, 0.0) == 0.0


def test_partial_scripts_score_in_band_and_other_shapes_zero() -> None:
    assert detect({"scriptName": "x", "replaceString": "y"})[FID] == 0.6
    obj: Any
    for obj in ({"findRegex": "/a/"}, [], [SCRIPT, {"other": 1}], {"entries": {}}):
        assert detect(obj).get(FID, 0.0) == 0.0


SETTINGS: dict[str, Any] = {
    "username": "Reader", "user_avatar": "reader.png", "main_api": "openai",
    "power_user": {"personas": {"reader.png": "Reader"},
                   "persona_descriptions": {"reader.png": {"description": "A reader."}},
                   "default_persona": None},
    "extension_settings": {"regex": [SCRIPT, {**SCRIPT, "scriptName": "Global two"}]},
}


def test_settings_json_belongs_to_the_persona_adapter_but_yields_scripts_on_request() -> None:
    scores = detect(SETTINGS)
    assert scores.get(FID, 0.0) == 0.0 and scores["sillytavern-persona"] == 0.8
    scripts = read(SETTINGS, FID).entities
    assert [s.name for s in scripts] == ["Hide notes", "Global two"]
    out = json.loads(reg().write(scripts, FID).files[0].data)
    assert out == SETTINGS["extension_settings"]["regex"]  # written as a regex export


def test_settings_json_without_scripts_says_so() -> None:
    empty = {**SETTINGS, "extension_settings": {"regex": []}}
    with pytest.raises(MalformedInput, match="no global regex scripts"):
        read(empty, FID)


@pytest.mark.parametrize("obj", ["text", 3, [], [1, 2], {"extension_settings": {"regex": 5},
                                                       "main_api": "x"}])
def test_unreadable_input_is_malformed(obj: Any) -> None:
    with pytest.raises(MalformedInput):
        read(obj)


def test_wrong_types_are_read_with_warnings_and_restored() -> None:
    src = [{**SCRIPT, "scriptName": 5, "placement": 2, "minDepth": "3"}, "junk"]
    res = read(src)
    s = res.entities[0]
    assert (s.name, s.placement, s.min_depth) == ("5", ["ai_output"], 3)
    assert {"$[0].scriptName", "$[0].minDepth", "$[1]"} <= {w.path for w in res.warnings}
    assert json.loads(reg().write(res.entities, FID).files[0].data) == src


def test_a_foreign_script_reports_what_st_cannot_hold() -> None:
    s = RegexScript(name="x", pattern="a+", flags="g", placement=["display", "custom_place"],
                    extensions={"risu": {"type": "editdisplay"}})
    out = reg().write([s], FID)
    back = read(out.files[0].data).entities[0]
    assert {"placement", "extensions.risu"} <= {e.path for e in out.loss}
    assert uncovered_differences(s, back, out.loss) == []


def test_validate_reports_regex_rules_with_paths() -> None:
    data = [{"scriptName": "a", "placement": "2"}, {"findRegex": 4, "disabled": "no"}]
    res = read(data)
    issues = [*res.warnings, *reg().validate(reg().get(FID),
                                             as_input(json.dumps(data).encode(), "r.json"),
                                             res.entities)]
    got = {(i.path, i.severity) for i in issues}
    assert ("$[0].findRegex", "error") in got
    assert ("$[0].placement", "warning") in got
    assert ("$[1].scriptName", "error") in got
    assert ("$[1].findRegex", "error") in got
    assert ("$[1].disabled", "warning") in got


def test_label_names_sillytavern_and_tavernhelper() -> None:
    assert label(reg(), SCRIPT, "r.json").app == "SillyTavern"
    # TavernHelper's scripts are no format of their own: read with --from sillytavern-regex,
    # the labeler still names their origin
    th = [{"script_name": "n", "find_regex": "/a/"}]
    rules = {r.name: r for _, r in reg().label_rules()}
    assert rules["tavernhelper-regex"].test(as_input(json.dumps(th).encode(), "t.json"), [])


def test_damaged_files_read_tolerantly_or_fail_cleanly_and_round_trip() -> None:
    from bunzai.testing.damage import check_damaged_round_trips

    seeds: list[Any] = [json.loads(p.read_bytes()) for p in FILES[:4] if p.exists()]
    seeds += [SCRIPT, [SCRIPT, SCRIPT], SETTINGS]
    # a settings.json is written as a backup or an export, not as read
    assert check_damaged_round_trips(reg(), FID, seeds, exact=lambda d: not is_settings(d)) > 30

"""sillytavern-persona: persona backups (many personas per file) and settings.json personas."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from bunzai import LossReport, testing
from bunzai.sdk import Asset, MalformedInput, Persona
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

FID = "sillytavern-persona"
SETTINGS_FILES = corpus_files("st-persona")
SAMPLE = samples_dir() / "tavern" / "st_persona_backup_derived_legacy_descriptor.json"


@cache
def reg() -> Registry:
    return load_registry()


def read(obj: Any, fmt: str | None = FID) -> Any:
    return testing.read(reg(), obj, fmt, "p.json")


def detect(obj: Any) -> dict[str, float]:
    return testing.scores(reg(), obj)


BACKUP = {
    "personas": {"1700000000000-Mara.png": "Mara", "user-default.png": "Guest",
                 "old.png": "Elder", "nodesc.png": "Quiet"},
    "persona_descriptions": {
        "1700000000000-Mara.png": {"description": "{{user}} is a cartographer.", "position": 4,
                                   "depth": 3, "role": 1, "lorebook": "Maps", "title": "Maker",
                                   "connections": [{"type": "character", "id": "Ship.png"}],
                                   "customFlag": True},
        "user-default.png": {"description": "", "position": 0, "depth": 2, "role": 0},
        "old.png": "An old plain-text description.",
        "gone.png": {"description": "No persona owns this one."},
    },
    "default_persona": "user-default.png",
    "backup_note": "kept",
}


@pytest.mark.skipif(not SETTINGS_FILES, reason="corpus not available")
@pytest.mark.parametrize("path", SETTINGS_FILES, ids=ids(SETTINGS_FILES))
def test_settings_json_routes_here_and_its_user_becomes_a_backup(path: Path) -> None:
    rep = reg().detect(as_input(path))
    assert rep.winner is not None and rep.winner.format == FID and rep.winner.score == 0.8
    assert [c.format for c in rep.candidates if c.score >= 0.5] == [FID]
    _, res, _ = reg().read(as_input(path))
    settings = json.loads(path.read_bytes())
    # no persona entries yet: the active user is the persona, as ST binds it on load
    p: Any
    (p,) = res.entities
    assert (p.name, p.avatar_id) == (settings["username"], settings["user_avatar"])
    assert p.app_data[FID] == {"active_user": True}
    out = reg().write(res.entities, FID)
    # a backup cannot say which persona is selected: the one line a user loses
    assert [(e.action, e.path) for e in out.loss] == [
        ("dropped", "app_data.sillytavern-persona.active_user")]
    backup = json.loads(out.files[0].data)
    assert set(backup) == {"personas", "persona_descriptions", "default_persona"}
    assert conversion_problems(reg(), res.entities, FID) == []


def test_sample_backup_round_trips_byte_for_byte() -> None:
    _, res, _ = reg().read(as_input(SAMPLE))
    p: Any
    (p,) = res.entities
    assert (p.name, p.avatar_id, p.description, p.position, p.depth) == (
        "白羽", "user-default.png", "", 0, None)
    out = reg().write(res.entities, FID)
    assert out.files[0].data == SAMPLE.read_bytes()


def test_a_backup_gives_one_persona_each_and_marks_the_default() -> None:
    res = read(BACKUP)
    assert [p.name for p in res.entities] == ["Mara", "Guest", "Elder", "Quiet"]
    mara, guest, elder, quiet = res.entities
    assert guest.is_default and not mara.is_default
    assert (mara.position, mara.depth, mara.role, mara.lorebook, mara.title) == (
        4, 3, 1, "Maps", "Maker")
    assert mara.connections == [{"type": "character", "id": "Ship.png"}]
    assert elder.description == "An old plain-text description."
    assert quiet.description == "" and quiet.position is None
    assert any("without a persona" in w.message for w in res.warnings)


def test_the_backup_is_rewritten_exactly() -> None:
    res = read(BACKUP)
    out = reg().write(res.entities, FID)
    assert not out.loss and len(out.files) == 1
    assert json.loads(out.files[0].data) == BACKUP


def test_several_foreign_personas_go_into_one_backup_with_honest_losses() -> None:
    ps = [Persona(name="Ann", description="a", is_default=True, note="private",
                  avatar=Asset(data=b"\x89PNG\r\n\x1a\n")),
          Persona(name="Ann", description="b", is_default=True,
                  extensions={"risu": {"x": 1}}),
          Persona(name="Bo", avatar_id="bo.png", description="c", position=9)]
    out = reg().write(ps, FID)
    assert len(out.files) == 1
    doc = json.loads(out.files[0].data)
    assert list(doc["personas"]) == ["Ann.png", "Ann-2.png", "bo.png"]
    assert doc["default_persona"] == "Ann.png"
    assert doc["persona_descriptions"]["bo.png"] == {"description": "c", "position": 9}
    paths = {e.path for e in out.loss}
    # avatar file names are ids, not user data: giving one is no loss
    assert paths == {"[1].is_default", "[0].note", "[0].avatar", "[1].extensions.risu"}
    back = read(out.files[0].data).entities
    for i, (a, b) in enumerate(zip(ps, back, strict=True)):
        sub = [e for e in out.loss if e.path.startswith(f"[{i}].")]
        rep = LossReport()
        for e in sub:
            rep.add(e.path[len(f"[{i}]."):], e.action, e.reason)
        assert uncovered_differences(a, b, rep) == []


def test_personas_in_settings_json_are_read_with_the_rest_left_alone() -> None:
    settings = {"username": "Ann", "user_avatar": "ann.png", "main_api": "kobold",
                "power_user": {"personas": {"ann.png": "Ann", "bo.png": "Bo"},
                               "persona_descriptions": {"ann.png": {"description": "x"},
                                                        "bo.png": {"description": "y"}},
                               "default_persona": "bo.png", "persona_description": "x"},
                "extension_settings": {"regex": [{"scriptName": "s", "findRegex": "/a/"}]}}
    scores = detect(settings)
    assert scores[FID] == 0.8 and scores.get("sillytavern-regex", 0.0) == 0.0
    res = read(settings)
    assert [(p.name, p.is_default) for p in res.entities] == [("Ann", False), ("Bo", True)]
    assert [p.app_data.get(FID) for p in res.entities] == [{"active_user": True}, None]
    out = reg().write(res.entities, FID)
    assert [e.path for e in out.loss] == ["[0].app_data.sillytavern-persona.active_user"]
    assert conversion_problems(reg(), res.entities, FID) == []
    doc = json.loads(out.files[0].data)
    assert doc == {"personas": {"ann.png": "Ann", "bo.png": "Bo"},
                   "persona_descriptions": {"ann.png": {"description": "x"},
                                            "bo.png": {"description": "y"}},
                   "default_persona": "bo.png"}


def test_other_shapes_are_not_claimed() -> None:
    obj: Any
    for obj in ({"name": "x", "description": "y"}, {"personas": []},
                {"spec": "chara_card_v2", "data": {"name": "p"}},
                {"entries": {"0": {"uid": 0, "key": ["k"]}}}, [{"personas": {}}]):
        assert detect(obj).get(FID, 0.0) == 0.0


@pytest.mark.parametrize("obj", [
    {"personas": [], "persona_descriptions": {}}, [], "x",
    {"personas": {}, "persona_descriptions": {}, "default_persona": None},
])
def test_unreadable_backups_are_malformed(obj: Any) -> None:
    with pytest.raises(MalformedInput):
        read(obj)


def test_wrong_types_are_tolerated_and_kept() -> None:
    src = {"personas": {"a.png": 7, "b.png": "B"},
           "persona_descriptions": {"a.png": {"description": 5, "depth": "2"}, "b.png": 3},
           "default_persona": "nobody.png"}
    res = read(src)
    a, b = res.entities
    assert (a.name, a.description, a.depth) == ("7", "5", 2)
    assert not a.is_default and not b.is_default
    warned = {w.path for w in res.warnings}
    assert {"$.persona_descriptions['b.png']", "$.default_persona",
            "$.persona_descriptions['a.png'].description"} <= warned
    assert json.loads(reg().write(res.entities, FID).files[0].data) == src


@pytest.mark.parametrize("descs", [None, "x", [1]])
def test_broken_description_maps_are_kept_as_they_were(descs: Any) -> None:
    src = {"personas": {"a.png": "A"}, "persona_descriptions": descs}
    res = read(src)
    assert [p.name for p in res.entities] == ["A"]
    assert json.loads(reg().write(res.entities, FID).files[0].data) == src


def test_validate_reports_persona_rules_with_paths() -> None:
    data = {"personas": {"a.png": 1},
            "persona_descriptions": {"a.png": {"description": [], "role": 7}, "z.png": "t"},
            "default_persona": "q.png"}
    res = read(data)
    issues = [*res.warnings, *reg().validate(reg().get(FID),
                                             as_input(json.dumps(data).encode(), "p.json"),
                                             res.entities)]
    got = {i.path for i in issues}
    assert {"$.personas['a.png']", "$.persona_descriptions['a.png'].description",
            "$.persona_descriptions['a.png'].role", "$.persona_descriptions['z.png']",
            "$.default_persona"} <= got


def test_label_names_sillytavern() -> None:
    got = label(reg(), BACKUP, "p.json")
    assert got.app == "SillyTavern"


def test_damaged_files_read_tolerantly_or_fail_cleanly_and_round_trip() -> None:
    from bunzai.testing.damage import check_damaged_round_trips

    seeds: list[Any] = [json.loads(p.read_bytes()) for p in [SAMPLE] if p.exists()]
    seeds += [BACKUP]
    # a settings.json is written as a backup or an export, not as read
    assert check_damaged_round_trips(reg(), FID, seeds, exact=lambda d: not is_settings(d)) > 30


def test_unknown_descriptor_and_root_keys_are_app_data() -> None:
    mara = read(BACKUP).entities[0]
    assert mara.app_data[FID] == {"customFlag": True, "backup.backup_note": "kept"}
    out = reg().write([mara], "rolecall-persona")
    dropped = {e.path for e in out.loss if e.action == "dropped"}
    assert {"app_data.sillytavern-persona.customFlag",
            "app_data.sillytavern-persona.backup.backup_note"} <= dropped

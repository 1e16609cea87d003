"""agnai: native Agnaistic character exports."""

from __future__ import annotations

import base64
import json
from functools import cache
from typing import Any

import pytest

from bunzai import testing
from bunzai.sdk import Asset, Character, MalformedInput, RegexScript
from bunzai.testing import (
    Registry,
    as_input,
    conversion_problems,
    label,
    load_registry,
    samples_dir,
    uncovered_differences,
)
from bunzai_tavern._common.stsettings import is_settings

FID = "agnai"
SAMPLE = samples_dir() / "tavern" / "synthetic_agnai_native_character.json"


@cache
def reg() -> Registry:
    return load_registry()


def read(obj: Any, fmt: str | None = FID) -> Any:
    return testing.read(reg(), obj, fmt, "c.json")


def write(entity: Any, fmt: str = FID, **options: Any) -> Any:
    return reg().write([entity], fmt, options)


def detect(obj: Any) -> dict[str, float]:
    return testing.scores(reg(), obj)


def native(**over: Any) -> dict[str, Any]:
    c: dict[str, Any] = {
        "kind": "character", "name": "Wren",
        "description": "A note for people browsing the library.",
        "persona": {"kind": "sbf", "attributes": {"mind": ["patient", "dry wit"],
                                                  "job": ["ferry pilot"]}},
        "greeting": "Mind the gap, {{user}}.", "scenario": "A river crossing at dawn.",
        "sampleChat": "{{user}}: Busy?\n{{char}}: Always.",
        "insert": {"prompt": "Wren never hurries.", "depth": 2},
        "alternateGreetings": ["Another crossing?"], "tags": ["river"],
        "createdAt": "2024-05-01T08:30:00.000Z", "updatedAt": "2024-05-02T09:00:00.000Z",
    }
    c.update(over)
    return c


@pytest.mark.skipif(not SAMPLE.exists(), reason="samples not available")
def test_sample_is_detected_read_and_rewritten_exactly() -> None:
    rep = reg().detect(as_input(SAMPLE))
    assert rep.winner is not None and rep.winner.format == FID and rep.winner.score == 0.95
    _, res, _ = reg().read(as_input(SAMPLE))
    c: Any = res.entities[0]
    src = json.loads(SAMPLE.read_bytes())
    assert c.creator_notes == src["description"]  # Agnai's description is creator notes
    assert c.description.startswith('[character("Bunzai Test Robot") {\nspecies("robot")')
    assert c.first_mes == src["greeting"] and c.mes_example == src["sampleChat"]
    assert c.extensions["depth_prompt"] == {"prompt": "", "depth": 3}
    assert c.extensions["agnai"]["persona"] == src["persona"]
    assert c.lorebook is not None and c.lorebook.entries[0].keys == ["workbench", "bench"]
    assert c.assets[0].uri == src["avatar"]
    out = write(c)
    assert not out.loss and json.loads(out.files[0].data) == src
    assert conversion_problems(reg(), [c], FID) == []


@pytest.mark.parametrize(("persona", "text"), [
    ({"kind": "wpp", "attributes": {"a": ["x", "y"], "b": ["z"]}},
     '[character("Wren") {\na("x" + "y")\nb("z")\n}]'),
    ({"kind": "sbf", "attributes": {"a": ["x", "y"], "b": ["z"]}},
     '[ character: "Wren"; a: "x", "y"; b: "z" ]'),
    ({"kind": "boostyle", "attributes": {"a": ["x", "y"], "b": ["z"]}}, "Wren + x + y + z"),
    ({"kind": "attributes", "attributes": {"a": ["x", "y"], "b": ["z"]}},
     "Name: Wren\na: x, y\nb: z"),
    ({"kind": "text", "attributes": {"text": ["Plain prose."]}}, "Plain prose."),
])
def test_each_persona_kind_renders_as_agnai_renders_it(persona: dict[str, Any],
                                                       text: str) -> None:
    c = read(native(persona=persona)).entities[0]
    assert c.description == text and c.personality == ""
    assert c.extensions["agnai"]["persona"] == persona
    assert json.loads(write(c).files[0].data)["persona"] == persona


def test_dates_and_greetings_map_to_canonical_fields() -> None:
    c = read(native()).entities[0]
    assert c.creation_date == 1714552200 and c.modification_date == 1714640400
    assert c.alternate_greetings == ["Another crossing?"] and c.tags == ["river"]
    assert json.loads(write(c).files[0].data) == native()


def test_data_url_avatar_becomes_bytes_and_comes_back_identical() -> None:
    png = b"\x89PNG\r\n\x1a\n" + b"\x00" * 16
    url = "data:image/png;base64," + base64.b64encode(png).decode()
    c = read(native(avatar=url)).entities[0]
    assert c.assets[0].data == png and c.assets[0].media_type == "image/png"
    assert json.loads(write(c).files[0].data)["avatar"] == url


def test_leftover_card_extensions_survive_beside_the_generated_ones() -> None:
    src = native(extensions={"chub": {"id": 9}, "agnai": {"voice": {"old": True}},
                             "depth_prompt": {"prompt": "stale", "depth": 9}})
    c = read(src).entities[0]
    assert c.extensions["chub"] == {"id": 9}
    assert c.extensions["depth_prompt"] == {"prompt": "Wren never hurries.", "depth": 2}
    assert json.loads(write(c).files[0].data) == src


@pytest.mark.parametrize("insert", [None, "deep", [2]])
def test_a_malformed_insert_is_written_back_where_it_was(insert: Any) -> None:
    src = native(insert=insert, extensions={"other": 1})
    c = read(src).entities[0]
    assert json.loads(write(c).files[0].data) == src


def test_a_tavern_character_becomes_a_text_persona_with_honest_losses() -> None:
    ch = Character(name="Sable", description="Tall and quiet.", personality="Wry.",
                   first_mes="Hello.", nickname="Sab", group_only_greetings=["Hi all"],
                   extensions={"depth_prompt": {"prompt": "p", "depth": 4, "role": "system"}},
                   assets=[Asset(type="background", name="bg", uri="https://x/bg.png"),
                           Asset(type="icon", name="main", data=b"\x89PNG\r\n\x1a\nxx")],
                   regex_scripts=[RegexScript(name="r", pattern="a")])
    out = write(ch)
    doc = json.loads(out.files[0].data)
    assert doc["kind"] == "character"
    assert doc["persona"] == {"kind": "text", "attributes": {"text": ["Tall and quiet.\nWry."]}}
    assert doc["insert"] == {"prompt": "p", "depth": 4, "role": "system"}
    assert doc["avatar"].startswith("data:image/png;base64,")
    paths = {e.path for e in out.loss}
    assert {"personality", "description", "nickname", "group_only_greetings", "regex_scripts",
            "assets[0]"} <= paths
    assert "assets[1]" not in paths  # the icon, first in Agnai as its avatar: its place is layout
    back = read(out.files[0].data).entities[0]
    assert uncovered_differences(ch, back, out.loss) == []


def test_a_card_agnai_wrote_gets_its_structured_persona_back() -> None:
    persona = {"kind": "boostyle", "attributes": {"looks": ["tall"], "mood": ["calm"]}}
    ch = Character(name="Sable", description="Sable + tall + calm",
                   extensions={"agnai": {"persona": persona, "voice": {}}})
    doc = json.loads(write(ch).files[0].data)
    assert doc["persona"] == persona and doc["voice"] == {}
    stale = ch.model_copy(update={"description": "Edited elsewhere."})
    out = write(stale)
    assert json.loads(out.files[0].data)["persona"]["kind"] == "text"
    assert "extensions.agnai.persona" in {e.path for e in out.loss}
    assert conversion_problems(reg(), [stale], FID) == []


def test_a_text_persona_is_the_description_and_never_reported() -> None:
    # Agnai keeps every description as a persona; a text persona is the description again
    ch = Character(name="Sable", description="Tall and quiet.", first_mes="Hello.")
    out = write(ch)
    assert json.loads(out.files[0].data)["persona"] == {
        "kind": "text", "attributes": {"text": ["Tall and quiet."]}}
    assert out.loss.lines() == ["nothing lost"]
    assert conversion_problems(reg(), [ch], FID) == []
    # with a personality, the one change is said in the user's words
    joined = ch.model_copy(update={"personality": "Wry."})
    assert write(joined).loss.lines() == [
        "1 dropped, 1 approximated",
        "approximated description: Agnai has no personality field: description and "
        "personality are joined into one text persona",
        "dropped personality: Agnai has no personality field: it is joined into the "
        "description's text persona"]
    # an Agnai character's text persona is not reported where another app keeps the text
    agnai = read(native(persona={"kind": "text", "attributes": {"text": ["Prose."]}}))
    for target in ("backyard-byaf", "risu-charx", "voxta"):
        lines = write(agnai.entities[0], target).loss.lines(verbose=True)
        assert not [x for x in lines if "persona" in x], (target, lines)
        assert conversion_problems(reg(), agnai.entities, target) == []


def test_a_structured_persona_is_reported_where_it_cannot_be_kept() -> None:
    c = read(native()).entities[0]  # an SBF persona: its attributes are the user's structure
    lines = write(c, "backyard-byaf").loss.lines(verbose=True)
    assert any(x.startswith("dropped extensions.agnai:") for x in lines), lines


@pytest.mark.parametrize("obj", [
    {"spec": "chara_card_v2", "data": {"name": "x", "first_mes": "y"}},
    {"kind": "character", "schema_version": "1.0", "name": "x"},
    {"kind": "memory", "entries": []},
    {"name": "x", "persona": {}, "greeting": "g"},
    {"char_name": "x", "char_persona": "y"},
])
def test_other_shapes_are_not_claimed(obj: Any) -> None:
    assert detect(obj).get(FID, 0.0) == 0.0


def test_agnais_own_five_field_rule_scores_below_kind() -> None:
    five = {k: v for k, v in native().items() if k != "kind"}
    assert detect(five)[FID] == 0.9


@pytest.mark.parametrize("obj", [[], "x", 4])
def test_non_objects_are_malformed(obj: Any) -> None:
    with pytest.raises(MalformedInput):
        read(obj)


def test_wrong_types_are_tolerated_and_kept() -> None:
    src = native(persona="just text", characterBook="none", extensions=[1], tags="river")
    res = read(src)
    c = res.entities[0]
    assert c.description == "" and c.lorebook is None and c.tags == ["river"]
    assert {"$.persona", "$.characterBook", "$.extensions", "$.tags"} <= {
        w.path for w in res.warnings}
    assert json.loads(write(c).files[0].data) == src


def test_validate_reports_agnai_rules_with_paths() -> None:
    data = native(persona={"kind": "odd", "attributes": {"a": "b"}}, greeting=3,
                  characterBook={"kind": "memory", "name": "b", "entries": [{"entry": 1}]})
    res = read(data)
    issues = [*res.warnings, *reg().validate(reg().get(FID),
                                             as_input(json.dumps(data).encode(), "c.json"),
                                             res.entities)]
    got = {i.path for i in issues}
    assert {"$.persona.kind", "$.persona.attributes['a']", "$.greeting",
            "$.characterBook.entries[0].entry", "$.characterBook.entries[0].keywords"} <= got


def test_label_finds_agnai_in_native_files_and_in_card_extensions() -> None:
    got = label(reg(), native(), "c.json")
    assert got.app == "Agnai"
    card = {"spec": "chara_card_v2", "spec_version": "2.0", "data": {
        "name": "x", "description": "d", "first_mes": "hi",
        "extensions": {"agnai": {"voice": {}, "persona": {}}}}}
    got = label(reg(), card, "c.json")
    assert any(g.app == "Agnai" and "extensions.agnai" in g.evidence[0] for g in got.guesses)


def test_damaged_files_read_tolerantly_or_fail_cleanly_and_round_trip() -> None:
    from bunzai.testing.damage import check_damaged_round_trips

    seeds: list[Any] = [json.loads(p.read_bytes()) for p in [SAMPLE] if p.exists()]
    seeds += [native()]
    # a settings.json is written as a backup or an export, not as read
    assert check_damaged_round_trips(reg(), FID, seeds, exact=lambda d: not is_settings(d)) > 30


def test_native_keys_agnai_has_no_canonical_field_for_are_app_data() -> None:
    src = native(culture="en-us", visualType="avatar", userId="u-1",
                 extensions={"agnai": {"voice": {"old": True}}, "chub": {"id": 9}})
    c = read(src).entities[0]
    assert c.app_data[FID] == {"culture": "en-us", "visualType": "avatar",
                               "extensions.agnai": {"voice": {"old": True}}}
    assert "userId" not in c.app_data[FID]  # Agnai's database id: layout
    out = reg().write([c], "sillytavern")
    dropped = {e.path for e in out.loss if e.action == "dropped"}
    assert {"app_data.agnai.culture", "app_data.agnai.visualType",
            "app_data.agnai.extensions.agnai"} <= dropped


def test_an_empty_insert_is_nothing_to_report_where_it_cannot_go() -> None:
    empty = read(native(insert={"prompt": "", "depth": 3})).entities[0]
    out = reg().write([empty], "pygmalion")  # a format without extensions
    assert not any("depth_prompt" in e.path for e in out.loss)
    said = read(native(insert={"prompt": "Wren never hurries.", "depth": 3})).entities[0]
    out = reg().write([said], "pygmalion")
    assert any(e.path == "extensions.depth_prompt" for e in out.loss)

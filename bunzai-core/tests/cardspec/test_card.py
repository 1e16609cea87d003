"""cardspec: Character Card V1/V2/V3 <-> canonical Character."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bunzai.cardspec import (
    OBSOLESCENCE_NOTICE,
    build_card,
    card_version,
    is_card,
    is_really_v3,
    looks_like_v1,
    parse_card,
)
from bunzai.errors import Issue, MalformedInput
from bunzai.io.compare import json_equal
from bunzai.io.frozen import freeze
from bunzai.io.input import AdapterInput
from bunzai.loss.report import LossReport
from bunzai.model import Character, Lorebook, LorebookEntry, RegexScript
from bunzai.sdk.cards import COMPLETED_KEYS
from bunzai.testing import corpus_files, diff_paths, ids, without_completed

FID = "test-format"


def roundtrip(obj: dict[str, Any], spec: str | None = None, *, raw: bool = False
              ) -> tuple[dict[str, Any], Character]:
    """parse -> canonical JSON (as vaud-json stores it) -> build; without ``raw``, the keys
    its spec requires that the card lacked (which the writer adds) are left out again."""
    ch = parse_card(obj, format_id=FID)
    ch = Character.model_validate_json(ch.model_dump_json())
    version = spec or card_version(obj)
    assert version is not None
    out = build_card(ch, spec=version, format_id=FID, loss=LossReport())  # type: ignore[arg-type]
    return (out if raw or spec is not None else without_completed(obj, out, COMPLETED_KEYS)), ch


def v2(**data: Any) -> dict[str, Any]:
    return {"spec": "chara_card_v2", "spec_version": "2.0", "data": data}


def v3(**data: Any) -> dict[str, Any]:
    return {"spec": "chara_card_v3", "spec_version": "3.0", "data": data}


# -- every card body in the corpus ----------------------------------------------------------------


def _corpus_cards() -> list[tuple[str, Any]]:
    out = []
    for path in corpus_files("ccv1-json", "ccv2-json", "ccv3-json", "png-both", "png-ccv3",
                             "png-chara-v1", "png-chara-v2"):
        inp = AdapterInput(path.read_bytes(), path.name)
        if inp.container == "json":
            out.append((ids([path])[0], inp.json_mutable()))
        else:
            for kw in ("chara", "ccv3"):
                for p in inp.png_json(kw):
                    if p.error is None and is_card(p.value):
                        out.append((f"{ids([path])[0]}:{kw}", p.mutable()))
    return out


CARDS = _corpus_cards()


@pytest.mark.skipif(not CARDS, reason="corpus not available")
@pytest.mark.parametrize(("name", "card"), CARDS, ids=[n for n, _ in CARDS])
def test_corpus_card_rebuilds_identically_key_order_included(name: str, card: Any) -> None:
    # identical but for what its spec requires and the card lacked, which is added
    out, _ = roundtrip(card)
    assert json_equal(out, card), diff_paths(card, out)[:10]
    assert json.dumps(out, ensure_ascii=False) == json.dumps(card, ensure_ascii=False)


@pytest.mark.skipif(not CARDS, reason="corpus not available")
@pytest.mark.parametrize(("name", "card"), CARDS[:12], ids=[n for n, _ in CARDS[:12]])
def test_corpus_card_reads_from_a_frozen_view(name: str, card: Any) -> None:
    a = parse_card(freeze(card), format_id=FID)
    b = parse_card(card, format_id=FID)
    assert a == b


# -- data is the only source of truth -------------------------------------------------------------


def test_root_duplicates_are_baggage_not_content() -> None:
    card = v2(name="Real", description="from data", first_mes="hi")
    card.update(name="Stale", description="from data", creator=OBSOLESCENCE_NOTICE,
                talkativeness="0.5", avatar="none")
    warnings: list[Issue] = []
    ch = parse_card(card, format_id=FID, warnings=warnings)
    assert ch.name == "Real"
    assert [w.path for w in warnings] == ["$.name"]  # the notice is noise, not a disagreement
    out, _ = roundtrip(card)
    assert out == card


def test_mirrored_root_duplicates_follow_edits_disagreeing_ones_stay() -> None:
    card = v2(name="Ann", description="d", creator="Someone")
    card.update(name="Ann", description="d", creator="")
    ch = parse_card(card, format_id=FID)
    ch.name = "Anna"
    ch.description = "new"
    ch.creator = "Else"
    out = build_card(ch, spec="v2", format_id=FID, loss=LossReport())
    assert out["data"]["name"] == "Anna" and out["name"] == "Anna"
    assert out["description"] == "new"
    assert out["creator"] == ""  # disagreed when read: baggage, not regenerated


def test_root_field_missing_from_data_is_reported_not_merged() -> None:
    card = v2(name="A", first_mes="x")
    card["scenario"] = "only at the root"
    warnings: list[Issue] = []
    ch = parse_card(card, format_id=FID, warnings=warnings)
    assert ch.scenario == ""
    assert any(w.path == "$.scenario" and "missing" in w.message for w in warnings)


def test_v1_reads_the_root_and_stays_v1() -> None:
    card = {"name": "Flat", "description": "d", "first_mes": "hi", "chat": "1677261616514",
            "creatorcomment": "notes", "talkativeness": "0.5"}
    out, ch = roundtrip(card)
    assert ch.creator_notes == "notes" and ch.first_mes == "hi"
    assert out == card and list(out) == list(card)


def test_v1_written_as_v2_moves_baggage_to_the_root() -> None:
    card = {"name": "Flat", "description": "d", "avatar": "none"}
    ch = parse_card(card, format_id=FID)
    out = build_card(ch, spec="v2", format_id=FID, loss=LossReport(), root_duplicates=True)
    assert out["spec"] == "chara_card_v2" and out["data"]["name"] == "Flat"
    assert out["avatar"] == "none" and "avatar" not in out["data"]
    assert out["name"] == "Flat" and out["description"] == "d"


# -- absent vs empty, null, types, unknown keys ---------------------------------------------------


def test_absent_and_empty_and_null_survive() -> None:
    card = v2(name="A", personality="", tags=[], character_book=None, extensions={"x": None},
              avatar="https://example.invalid/a.png")
    out, ch = roundtrip(card)
    assert ch.lorebook is None
    assert out == card  # no description/first_mes invented, null book kept, unknown key kept


def test_wrong_types_are_read_tolerantly_and_written_back() -> None:
    card = v2(name="A", character_version=2, alternate_greetings="only one",
              tags="a, b", creation_date=1.5e9)
    warnings: list[Issue] = []
    ch = parse_card(card, format_id=FID, warnings=warnings)
    assert ch.character_version == "2"
    assert ch.alternate_greetings == ["only one"]
    assert ch.tags == ["a", "b"]
    assert {w.path for w in warnings} == {"$.data.character_version",
                                         "$.data.alternate_greetings", "$.data.tags"}
    out, _ = roundtrip(card)
    assert json_equal(out, card)


def test_edited_coerced_value_writes_the_new_value() -> None:
    card = v2(name="A", character_version=2)
    ch = parse_card(card, format_id=FID)
    ch.character_version = "3.1"
    out = build_card(ch, spec="v2", format_id=FID, loss=LossReport())
    assert out["data"]["character_version"] == "3.1"


def test_talkativeness_string_type_is_kept() -> None:
    card = v2(name="A", extensions={"talkativeness": "0.5", "fav": False, "world": ""})
    out, ch = roundtrip(card)
    assert ch.extensions["talkativeness"] == "0.5"
    assert out["data"]["extensions"]["talkativeness"] == "0.5"


def test_decorators_are_content() -> None:
    entry = {"keys": ["k"], "content": "@@depth 4\n@@@role system\ntext", "extensions": {},
             "enabled": True, "insertion_order": 1, "use_regex": False}
    card = v3(name="A", character_book={"entries": [entry], "extensions": {}})
    out, ch = roundtrip(card)
    assert ch.lorebook is not None
    assert ch.lorebook.entries[0].content.startswith("@@depth 4\n@@@role system")
    assert out == card
    as_v2 = build_card(ch, spec="v2", format_id="other", loss=LossReport())
    assert as_v2["data"]["character_book"]["entries"][0]["content"] == entry["content"]


def test_not_a_card_is_a_clear_error() -> None:
    with pytest.raises(MalformedInput, match="spec"):
        parse_card({"spec": "lorebook_v3", "data": {}}, format_id=FID)
    with pytest.raises(MalformedInput, match="data"):
        parse_card({"spec": "chara_card_v2", "data": "nope"}, format_id=FID)


# -- regex scripts, books, assets -----------------------------------------------------------------


def test_regex_scripts_become_canonical_and_go_back_in_place() -> None:
    script = {"id": "1", "scriptName": "s", "findRegex": "/a/g", "replaceString": "b",
              "trimStrings": [], "placement": [2], "disabled": False, "markdownOnly": True,
              "promptOnly": False, "runOnEdit": False, "substituteRegex": False,
              "minDepth": None, "maxDepth": None}
    card = v2(name="A", extensions={"fav": True, "regex_scripts": [script], "world": ""})
    out, ch = roundtrip(card)
    assert "regex_scripts" not in ch.extensions
    assert ch.regex_scripts[0].pattern == "a" and ch.regex_scripts[0].placement == ["ai_output"]
    assert list(out["data"]["extensions"]) == ["fav", "regex_scripts", "world"]
    assert out == card


def test_malformed_regex_scripts_stay_in_extensions() -> None:
    card = v2(name="A", extensions={"regex_scripts": "oops"})
    warnings: list[Issue] = []
    ch = parse_card(card, format_id=FID, warnings=warnings)
    assert ch.extensions["regex_scripts"] == "oops" and not ch.regex_scripts
    assert warnings


def test_canonical_regex_written_into_a_fresh_card() -> None:
    ch = Character(name="A", regex_scripts=[RegexScript(name="r", pattern="x", flags="gi",
                                                        replace="y", placement=["user_input"])])
    out = build_card(ch, spec="v3", format_id=FID, loss=LossReport())
    script = out["data"]["extensions"]["regex_scripts"][0]
    assert script["findRegex"] == "/x/gi" and script["placement"] == [1]


def test_assets_keep_uris_and_data_uris_decode() -> None:
    assets = [{"type": "icon", "uri": "ccdefault:", "name": "main", "ext": "png"},
              {"type": "background", "uri": "data:text/plain;base64,aGk=", "name": "bg",
               "ext": "txt", "size": 2}]
    card = v3(name="A", assets=assets)
    out, ch = roundtrip(card)
    assert ch.assets[0].uri == "ccdefault:" and ch.assets[0].data is None
    assert ch.assets[1].data == b"hi" and ch.assets[1].origin == "data-uri"
    assert out == card


def test_fresh_v3_card_has_every_required_field() -> None:
    ch = Character(name="A", lorebook=Lorebook(entries=[LorebookEntry(keys=["k"])]))
    loss = LossReport()
    out = build_card(ch, spec="v3", format_id=FID, loss=loss)
    data = out["data"]
    for key in ("name", "description", "personality", "scenario", "first_mes", "mes_example",
                "creator_notes", "system_prompt", "post_history_instructions",
                "alternate_greetings", "tags", "creator", "character_version", "extensions",
                "group_only_greetings"):
        assert key in data, key
    entry = data["character_book"]["entries"][0]
    assert entry["use_regex"] is False and entry["insertion_order"] == 100
    # what an app assumes when the key is missing: filling it in loses nothing
    assert not loss


def test_v2_reports_what_it_cannot_hold() -> None:
    ch = Character(name="A", nickname="N", source=["x"], creation_date=5,
                   group_only_greetings=["g"], triggers=[{"t": 1}])
    loss = LossReport()
    out = build_card(ch, spec="v2", format_id=FID, loss=loss)
    for path in ("nickname", "source", "creation_date", "triggers"):
        assert loss.covers(path), path
    assert out["data"]["group_only_greetings"] == ["g"]  # SillyTavern writes it into V2 too
    assert not loss.covers("group_only_greetings")


def test_v1_reports_everything_beyond_six_fields() -> None:
    ch = Character(name="A", creator_notes="n", alternate_greetings=["x"],
                   lorebook=Lorebook(), extensions={"a": 1})
    loss = LossReport()
    out = build_card(ch, spec="v1", format_id=FID, loss=loss)
    assert set(out) == {"name", "description", "personality", "scenario", "first_mes",
                        "mes_example"}
    for path in ("creator_notes", "alternate_greetings", "lorebook", "extensions"):
        assert loss.covers(path), path


def test_root_duplicates_for_a_fresh_copy() -> None:
    ch = Character(name="A", description="d", first_mes="f")
    out = build_card(ch, spec="v2", format_id=FID, loss=LossReport(), root_duplicates=True)
    assert out["name"] == "A" and out["first_mes"] == "f" and out["data"]["name"] == "A"
    plain = build_card(ch, spec="v2", format_id=FID, loss=LossReport())
    assert set(plain) == {"spec", "spec_version", "data"}


def test_spec_version_kept_as_read() -> None:
    card = v3(name="A")
    card["spec_version"] = "3.1"
    out, _ = roundtrip(card)
    assert out["spec_version"] == "3.1"
    del card["spec_version"]
    out, _ = roundtrip(card, raw=True)
    assert out["spec_version"] == "3.0"  # the spec requires it


# -- detection helpers ----------------------------------------------------------------------


@pytest.mark.parametrize(("obj", "version"), [
    ({"name": "A", "first_mes": "hi"}, "v1"),
    ({"name": "A"}, None),
    ({"name": "World", "entries": {"0": {"key": ["a"], "content": "x"}}}, None),
    ({"name": "A", "description": "d", "entries": []}, None),
    # aichar and character-factory write the Pygmalion keys beside a flat card: SillyTavern
    # reads it as the V1 card
    ({"char_name": "A", "char_persona": "p", "name": "A", "description": "d"}, "v1"),
    ({"char_name": "A", "char_persona": "p", "description": "d"}, None),
    ({"kind": "character", "name": "A", "description": "d"}, None),
    ({"name": "A", "persona": {}, "greeting": "g", "sampleChat": "", "scenario": "s"}, None),
    ({"spec": "lorebook_v3", "data": {"name": "B", "entries": []}}, None),
    ({"spec": "chara_card_v2", "data": {"name": "A"}}, "v2"),
    ({"spec": "chara_card_v3", "data": {"name": "A"}}, "v3"),
    ({"spec": "chara_card_v3", "data": []}, None),
    ([], None),
])
def test_card_version(obj: Any, version: str | None) -> None:
    assert card_version(obj) == version
    assert card_version(freeze(obj)) == version
    assert looks_like_v1(obj) == (version == "v1")


def test_is_really_v3_looks_at_content_not_the_label() -> None:
    st_relabelled = v3(name="A", first_mes="x")
    st_relabelled["name"] = "A"
    assert not is_really_v3(st_relabelled)
    assert is_really_v3(v3(name="A", assets=[]))
    assert is_really_v3(v3(name="A", character_book={"entries": [{"use_regex": False}]}))
    assert not is_really_v3(v2(name="A", nickname="n"))


def test_a_v3_source_written_as_v2_drops_v3_only_keys_but_keeps_st_habits() -> None:
    card = v3(name="A", nickname="N", group_only_greetings=[], source=["x"])
    ch = parse_card(card, format_id=FID)
    loss = LossReport()
    out = build_card(ch, spec="v2", format_id=FID, loss=loss)
    assert "nickname" not in out["data"] and "source" not in out["data"]
    assert out["data"]["group_only_greetings"] == []  # SillyTavern writes it into V2 data too
    assert loss.covers("nickname") and loss.covers("source")
    flat = parse_card({"name": "F", "description": "d", "nickname": "n"}, format_id=FID)
    again = build_card(flat, spec="v1", format_id=FID, loss=LossReport())
    assert again["nickname"] == "n"  # a flat card's own quirk comes back


def test_canonical_json_of_any_kind_is_not_a_v1_card() -> None:
    # vaud-json files carry name/description like a flat card; their kind marker says otherwise
    for kind in ("module", "persona", "lorebook", "character"):
        obj = {"kind": kind, "schema_version": "1.0", "name": "M", "description": "d"}
        assert not looks_like_v1(obj)


def test_card_digest_ignores_key_order_and_accepts_digests_of_earlier_versions() -> None:
    import hashlib

    from bunzai.cardspec import card_digest, digest_matches
    from bunzai.io.frozen import freeze

    card = {"b": [1, 2.5, True, None], "a": {"é": "x", "d": 1e-05}, "big": 10**30}
    reordered = {"big": 10**30, "a": {"d": 1e-05, "é": "x"}, "b": [1, 2.5, True, None]}
    assert card_digest(card) == card_digest(reordered) == card_digest(freeze(card))
    assert card_digest({"n": 1}) != card_digest({"n": True}) != card_digest({"n": 1.0})
    # what 0.1 stored in passthrough: the standard library's sorted compact JSON
    old = hashlib.sha256(json.dumps(card, sort_keys=True, ensure_ascii=False,
                                    separators=(",", ":")).encode()).hexdigest()
    assert digest_matches(card, old) and digest_matches(card, card_digest(card))
    assert not digest_matches({**card, "b": []}, old)
    assert not digest_matches(card, None)


# -- every card of another spec carries what its spec requires -----------------------------------

V2_REQUIRED = ("name", "description", "personality", "scenario", "first_mes", "mes_example",
               "creator_notes", "system_prompt", "post_history_instructions",
               "alternate_greetings", "tags", "creator", "character_version", "extensions")
V3_REQUIRED = (*V2_REQUIRED, "group_only_greetings")
_V1_HARBOR = {"name": "Odile", "description": "Keeps the tide tables of a small harbour.",
              "personality": "patient", "scenario": "", "first_mes": "The tide turns at six.",
              "mes_example": ""}


@pytest.mark.parametrize("spec", ["v2", "v3"])
def test_a_v1_card_upgraded_gets_every_required_field_with_the_spec_defaults(spec: str) -> None:
    ch = parse_card(dict(_V1_HARBOR), format_id=FID)
    loss = LossReport()
    out = build_card(ch, spec=spec, format_id=FID, loss=loss)  # type: ignore[arg-type]
    data = out["data"]
    assert out["spec_version"] == ("2.0" if spec == "v2" else "3.0")
    for key in V2_REQUIRED if spec == "v2" else V3_REQUIRED:
        assert key in data, key
    assert data["extensions"] == {} and data["tags"] == [] and data["alternate_greetings"] == []
    assert data["creator"] == data["character_version"] == data["creator_notes"] == ""
    assert data["system_prompt"] == data["post_history_instructions"] == ""
    if spec == "v3":
        assert data["group_only_greetings"] == []
    assert not loss, [str(e) for e in loss]  # a default is not a loss
    assert parse_card(out, format_id="other").model_dump(exclude={"passthrough"}) == \
        ch.model_dump(exclude={"passthrough"})


def test_a_partial_v2_card_written_as_v3_is_completed_with_the_values_it_read() -> None:
    card = v2(name="Odile", description="d", first_mes="hi", tags="harbour, tides",
              character_version=2, creator=None, character_book={
                  "entries": [{"keys": ["tide"], "content": "Six o'clock.", "id": "tide-1",
                               "position": None}]})
    ch = parse_card(card, format_id=FID)
    loss = LossReport()
    data = build_card(ch, spec="v3", format_id=FID, loss=loss)["data"]
    for key in V3_REQUIRED:
        assert key in data, key
    # the wrongly typed values give way to what was read from them
    assert data["tags"] == ["harbour", "tides"] and data["character_version"] == "2"
    assert data["creator"] == ""
    book = data["character_book"]
    assert book["extensions"] == {}
    entry = book["entries"][0]
    assert {"keys", "content", "extensions", "enabled", "insertion_order", "use_regex"} <= set(
        entry)
    assert "position" not in entry  # null is not one of the spec's two positions
    assert isinstance(entry["id"], int) and entry["extensions"]["risu_id"] == "tide-1"
    # the values the spec forced (100, false) are what an app assumes anyway: no loss
    assert not loss


def test_a_same_spec_rewrite_adds_only_what_the_spec_requires() -> None:
    card = v2(name="Odile", description="d", first_mes="hi")
    card["data"]["character_book"] = None  # odd, but the card's own: a same-spec rewrite keeps it
    out, _ = roundtrip(card, raw=True)
    added = {k for k in out["data"] if k not in card["data"]}
    assert added == {"personality", "scenario", "mes_example", "creator_notes",
                     "system_prompt", "post_history_instructions", "alternate_greetings",
                     "tags", "creator", "character_version", "extensions"}
    assert out["data"]["character_book"] is None
    assert without_completed(card, out, COMPLETED_KEYS) == card


def test_a_v1_card_never_carries_what_v1_readers_cannot_see() -> None:
    card = v3(name="Odile", description="d", personality="", scenario="", first_mes="hi",
              mes_example="", group_only_greetings=["Everyone, the tide."],
              extensions={"tool": 1}, character_book={"extensions": {}, "entries": []})
    ch = parse_card(card, format_id=FID)
    loss = LossReport()
    flat = build_card(ch, spec="v1", format_id=FID, loss=loss)
    assert "group_only_greetings" not in flat and "extensions" not in flat
    assert "character_book" not in flat
    assert {"group_only_greetings", "extensions", "lorebook"} <= {e.path for e in loss}

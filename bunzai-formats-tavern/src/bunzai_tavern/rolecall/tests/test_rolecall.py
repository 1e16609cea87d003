"""rolecall: RoleCall character cards (generated fixtures: no real RoleCall export is public)."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import pytest

from bunzai.testing import Registry, as_input, conversion_problems, load_registry
from bunzai_tavern.sillytavern.tests.fixtures import card_chunk, png_with

RC = "rolecall"
RCP = "rolecall-persona"  # RoleCall personas: see rolecall_persona/tests

ROLECALL = {"id": "rc-1", "tagline": "Keeps the light on", "genre": "mystery",
            "content_rating": "all_hours", "accent_color": "#335577",
            "alternate_greeting_titles": ["Late"],
            "details": {"full_name": "Wren Hale", "age": "31", "pronouns": "she/her",
                        "prompt_depth_injections": [{"content": "Stay calm.", "depth": 2}]}}


def rc_card(spec: str = "chara_card_v3", **ext: Any) -> dict[str, Any]:
    return {"spec": spec, "spec_version": "3.0" if spec.endswith("v3") else "2.0", "data": {
        "name": "Wren", "description": "{{char}} keeps the lighthouse.", "personality": "",
        "scenario": "", "first_mes": "Shut the door.", "mes_example": "",
        "creator_notes": "", "system_prompt": "", "post_history_instructions": "",
        "alternate_greetings": ["You're late."], "group_only_greetings": [], "tags": [],
        "creator": "", "character_version": "", "extensions": {"rolecall": ROLECALL, **ext}}}


@cache
def reg() -> Registry:
    return load_registry()


def scores(data: bytes, name: str) -> dict[str, float]:
    return {c.format: c.score for c in reg().detect(as_input(data, name)).candidates}


def read(data: bytes, name: str, fmt: str | None = None) -> Any:
    handle, res, _ = reg().read(as_input(data, name), format=fmt)
    return handle.id, res


# -- detection: the load-bearing gradient --------------------------------------------------


def test_rolecall_outranks_the_generic_reader_on_its_own_cards() -> None:
    data = json.dumps(rc_card()).encode()
    got = scores(data, "c.json")
    assert got["rolecall"] == 1.0 and got["sillytavern"] == 0.9
    assert reg().detect(as_input(data, "c.json")).winner.format == RC  # type: ignore[union-attr]


def test_plain_cards_are_not_rolecall() -> None:
    card = rc_card()
    del card["data"]["extensions"]["rolecall"]
    got = scores(json.dumps(card).encode(), "c.json")
    assert got.get(RC, 0) == 0 and got.get(RCP, 0) == 0 and got["sillytavern"] == 0.9


# -- rolecall cards ------------------------------------------------------------------------


@pytest.mark.parametrize("container", ["json", "png"])
def test_rolecall_card_round_trip(container: str) -> None:
    card = rc_card()
    data = (json.dumps(card, indent=4).encode() if container == "json"
            else png_with(before_iend=[card_chunk("chara", card), card_chunk("ccv3", card)]))
    fmt, res = read(data, f"c.{container}")
    assert fmt == RC
    ch = res.entities[0]
    assert ch.extensions["rolecall"] == ROLECALL
    out = reg().write([ch], RC)
    assert not out.loss and out.data == data


def test_book_kept_in_extensions_is_the_lorebook_and_goes_back_there() -> None:
    book = {"name": "Coast", "entries": [{"keys": ["fog"], "content": "Fog rolls in.",
                                          "extensions": {}, "enabled": True,
                                          "insertion_order": 10}]}
    card = rc_card("chara_card_v2", character_book=book)
    data = json.dumps(card).encode()
    _, res = read(data, "c.json")
    ch = res.entities[0]
    assert ch.lorebook is not None and ch.lorebook.entries[0].content == "Fog rolls in."
    assert "character_book" not in ch.extensions
    out = reg().write([ch], RC)
    assert json.loads(out.data) == card and not out.loss
    # the generic reader leaves RoleCall's habit alone
    _, generic = read(data, "c.json", fmt="sillytavern")
    assert generic.entities[0].lorebook is None
    assert generic.entities[0].extensions["character_book"] == book


def test_flat_data_payload_in_chara() -> None:
    flat = dict(rc_card("chara_card_v2")["data"])
    data = png_with(before_iend=[card_chunk("chara", flat)])
    assert scores(data, "f.png")[RC] == 1.0
    _, res = read(data, "f.png")
    ch = res.entities[0]
    assert ch.alternate_greetings == ["You're late."] and ch.extensions["rolecall"] == ROLECALL
    assert reg().write([ch], RC).data == data


def test_rolecall_conversions_are_honest() -> None:
    _, res = read(json.dumps(rc_card()).encode(), "c.json")
    for target in ("sillytavern", "pygmalion", "vaud-json", RC):
        assert conversion_problems(reg(), res.entities, target) == [], target


@pytest.mark.parametrize("options", [{}, {"container": "json", "spec": "v2"},
                                     {"container": "json", "spec": "v3"}])
def test_a_plain_card_written_as_rolecall_is_a_rolecall_card(options: dict[str, str]) -> None:
    plain = dict(rc_card())
    plain["data"] = {**plain["data"], "extensions": {"tool": {"x": 1}}}
    fmt, res = read(json.dumps(plain).encode(), "wren.json")
    assert fmt == "sillytavern"
    out = reg().write(res.entities, RC, options)
    name = f"out{out.suffix}"
    assert max(scores(out.data, name).items(), key=lambda kv: kv[1])[0] == RC
    fmt, back = read(out.data, name)
    assert fmt == RC
    assert back.entities[0].extensions == {"tool": {"x": 1}, "rolecall": {}}
    # the empty block that marks a RoleCall card holds nothing: it is not a loss
    assert [e.path for e in out.loss if e.path.startswith("extensions")] == []
    # a card that is RoleCall's already is written with its block and nothing reported
    fmt, res = read(json.dumps(rc_card()).encode(), "wren.json")
    out = reg().write(res.entities, RC, options)
    assert not out.loss.covers("extensions.rolecall")

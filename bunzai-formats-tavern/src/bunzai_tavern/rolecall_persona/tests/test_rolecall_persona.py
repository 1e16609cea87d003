"""rolecall-persona: RoleCall persona cards and rcpersona exports (generated fixtures)."""

from __future__ import annotations

import json
from functools import cache
from typing import Any

from bunzai.sdk import Asset, Persona
from bunzai.sdk.png import PngFile
from bunzai.testing import Registry, as_input, conversion_problems, load_registry
from bunzai_tavern.sillytavern.tests.fixtures import card_chunk, image_png, png_with

RC = "rolecall"
RCP = "rolecall-persona"


def persona_card() -> dict[str, Any]:
    """A complete V2 persona card (a card bunzai writes has every key its spec requires)."""
    return {"spec": "chara_card_v2", "spec_version": "2.0", "data": {
        "name": "Ash", "description": "{{user}} is a night-shift ferry pilot.",
        "personality": "", "scenario": "", "first_mes": "", "mes_example": "",
        "creator_notes": "", "system_prompt": "", "post_history_instructions": "",
        "alternate_greetings": [], "tags": [], "creator": "", "character_version": "",
        "extensions": {"rolecall": {"type": "persona", "id": "p-9"}}}}


@cache
def reg() -> Registry:
    return load_registry()


def scores(data: bytes, name: str) -> dict[str, float]:
    return {c.format: c.score for c in reg().detect(as_input(data, name)).candidates}


def read(data: bytes, name: str, fmt: str | None = None) -> Any:
    handle, res, _ = reg().read(as_input(data, name), format=fmt)
    return handle.id, res


def test_persona_cards_go_to_the_persona_adapter_only() -> None:
    for data, name in ((json.dumps(persona_card()).encode(), "p.json"),
                       (png_with(before_iend=[card_chunk("chara", persona_card())]), "p.png")):
        got = scores(data, name)
        assert got[RCP] == 1.0
        assert got.get(RC, 0) == 0 and got.get("sillytavern", 0) == 0


# -- rolecall personas ---------------------------------------------------------------------


def test_persona_card_png_round_trip() -> None:
    image = image_png(5, 5, (9, 9, 90))
    data = image[:-12] + card_chunk("chara", persona_card()) + image[-12:]
    fmt, res = read(data, "p.png")
    assert fmt == RCP
    p = res.entities[0]
    assert p.kind == "persona" and p.name == "Ash"
    assert p.description.startswith("{{user}} is")
    assert p.extensions["rolecall"]["type"] == "persona"
    assert p.avatar is not None and p.avatar.data == image
    out = reg().write([p], RCP)
    assert not out.loss and out.data == data


def test_rcpersona_chunk_round_trip() -> None:
    obj = {"spec": "rolecall_persona", "data": {"name": "Ash", "description": "Pilot.",
                                                "title": "Ferry pilot", "color": "#123"}}
    data = png_with(before_iend=[card_chunk("rcpersona", obj)])
    got = scores(data, "p.png")
    assert got[RCP] == 1.0 and got.get("sillytavern", 0) == 0
    _, res = read(data, "p.png")
    p = res.entities[0]
    assert (p.name, p.description, p.title) == ("Ash", "Pilot.", "Ferry pilot")
    out = reg().write([p], RCP)
    assert out.data == data and not out.loss
    as_json = reg().write([p], RCP, {"container": "json"})
    assert json.loads(as_json.data) == obj and as_json.loss.covers("avatar")


def test_persona_from_elsewhere_becomes_a_marked_card() -> None:
    p = Persona(name="Kit", description="{{user}} repairs radios.", title="Tinkerer",
                position=4, depth=2,
                avatar=Asset(type="icon", name="main", data=image_png(3, 3, (1, 2, 3))))
    out = reg().write([p], RCP)
    assert out.suffix == ".png"
    png = PngFile.parse(out.data)
    assert [tc.keyword for tc in png.text_chunks()] == ["chara"]
    assert scores(out.data, "o.png")[RCP] == 1.0
    for path in ("title", "position", "extensions.rolecall"):
        assert out.loss.covers(path), path
    assert not out.loss.covers("depth")  # a depth without an at-depth position does nothing
    assert conversion_problems(reg(), [p], RCP) == []


def test_the_rest_of_a_persona_card_is_app_data() -> None:
    card = persona_card()
    card["data"]["first_mes"] = "Evening, {{char}}."
    card["data"]["x_tool"] = {"kept": True}
    card["create_date"] = "2024-1-1"
    _, res = read(json.dumps(card).encode(), "p.json")
    p = res.entities[0]
    assert p.app_data[RCP] == {"character.first_mes": "Evening, {{char}}.",
                               "data.x_tool": {"kept": True}, "create_date": "2024-1-1"}
    out = reg().write([p], RCP)
    assert not out.loss and json.loads(out.data) == card
    moved = reg().write([p], "sillytavern-persona")
    assert "app_data.rolecall-persona.character.first_mes" in {e.path for e in moved.loss}

"""A flat card that also carries Pygmalion's keys and aichar's metadata, as aichar and
character-factory write it: the same character whether it sits in a PNG or a JSON file."""

from __future__ import annotations

import base64
import json
from functools import cache
from typing import Any

from bunzai.sdk.png import PngFile, make_text_chunk, minimal_png, splice
from bunzai.testing import Registry, as_input, conversion_problems, label, load_registry


@cache
def reg() -> Registry:
    return load_registry()


def aichar_card() -> dict[str, Any]:
    """Our own character in aichar's flat layout: V1 keys, the Pygmalion five, metadata."""
    return {
        "char_name": "Odile Marsh",
        "char_persona": "A ferry pilot who knows every sandbar by its smell.",
        "world_scenario": "Fog on the estuary; the last crossing of the night.",
        "char_greeting": "Mind the rope. Tide's turning.",
        "example_dialogue": "{{user}}: Safe?\n{{char}}: Safer than the bridge.",
        "name": "Odile Marsh",
        "summary": "",
        "personality": "dry, patient, superstitious about bells",
        "scenario": "Fog on the estuary; the last crossing of the night.",
        "greeting_message": "Mind the rope. Tide's turning.",
        "example_messages": "{{user}}: Safe?\n{{char}}: Safer than the bridge.",
        "description": "A ferry pilot who knows every sandbar by its smell.",
        "first_mes": "Mind the rope. Tide's turning.",
        "mes_example": "{{user}}: Safe?\n{{char}}: Safer than the bridge.",
        "metadata": {"version": 1, "created": 1718000000000, "modified": 1718000000000,
                     "source": None,
                     "tool": {"name": "aichar Python library", "version": "1.0.0",
                              "url": "https://github.com/Hukasx0/aichar"}},
    }


def aichar_png() -> bytes:
    text = base64.b64encode(json.dumps(aichar_card()).encode()).decode()
    image = minimal_png(4, 4)
    return splice(PngFile.parse(image), remove=lambda c: False,
                  insert_before_iend=[make_text_chunk("chara", text)])


PYGMALION_COPIES = ("char_name", "char_persona", "world_scenario", "char_greeting",
                    "example_dialogue", "greeting_message", "example_messages")


def _read_both() -> tuple[Any, Any]:
    png = reg().read(as_input(aichar_png(), "odile.png"))
    js = reg().read(as_input(json.dumps(aichar_card()).encode(), "odile.json"))
    assert png[0].id == js[0].id == "sillytavern"  # SillyTavern reads both as the V1 card
    return png[1].entities[0], js[1].entities[0]


def test_a_png_holding_a_flat_card_with_pygmalion_keys_reads_as_a_v1_card() -> None:
    handle, result, _ = reg().read(as_input(aichar_png(), "odile.png"))
    assert handle.id == "sillytavern"
    (ch,) = result.entities
    assert ch.name == "Odile Marsh" and ch.personality.startswith("dry, patient")


def test_the_same_card_is_the_same_character_in_a_json_file() -> None:
    png, js = _read_both()
    # everything but the file's layout and the picture only a PNG has
    assert js.model_dump(exclude={"passthrough", "assets"}) == png.model_dump(
        exclude={"passthrough", "assets"})
    assert js.assets == [] and [a.type for a in png.assets] == ["icon"]
    # the copies of the card's own fields are the same fact twice: not data of their own
    assert set(png.app_data["sillytavern"]) == {"summary", "metadata"}


def test_pygmalion_copies_that_equal_the_fields_are_not_reported_dropped() -> None:
    png, js = _read_both()
    for target in ("backyard-byaf", "agnai", "risu-charx"):
        for ch in (png, js):
            assert conversion_problems(reg(), [ch], target) == []
            lines = reg().write([ch], target).loss.lines(verbose=True)
            assert not [x for x in lines if any(k in x for k in PYGMALION_COPIES)], lines
            assert any("app_data.sillytavern.metadata" in x for x in lines)  # aichar's own


def test_a_copy_follows_its_field_and_one_of_its_own_stays_data() -> None:
    _, js = _read_both()
    edited = js.model_copy(update={"first_mes": "The ferry is late."})
    out = json.loads(reg().write([edited], "sillytavern").files[0].data)
    assert out["char_greeting"] == out["greeting_message"] == "The ferry is late."
    other = dict(aichar_card(), char_greeting="A greeting of its own.")
    (ch,) = reg().read(as_input(json.dumps(other).encode(), "odile.json"))[1].entities
    assert ch.app_data["sillytavern"]["char_greeting"] == "A greeting of its own."
    assert "app_data.sillytavern.char_greeting" in {
        e.path for e in reg().write([ch], "backyard-byaf").loss}


def test_aichar_is_named_as_the_origin_in_either_container() -> None:
    for data, name in ((aichar_png(), "odile.png"),
                       (json.dumps(aichar_card()).encode(), "odile.json")):
        got = label(reg(), data, name)
        origins = [g.app for g in got.guesses if g.role == "origin"]
        assert origins == ["aichar"], (name, got)  # not also the editor whose metadata it uses


def test_a_same_format_rewrite_keeps_every_key_of_the_flat_card() -> None:
    (ch,) = reg().read(as_input(aichar_png(), "odile.png"))[1].entities
    out = reg().write([ch], "sillytavern")
    assert not out.loss
    back = reg().read(as_input(out.data, "x.png"), format="sillytavern")[1].entities[0]
    assert back.app_data == ch.app_data and "metadata" in back.app_data["sillytavern"]

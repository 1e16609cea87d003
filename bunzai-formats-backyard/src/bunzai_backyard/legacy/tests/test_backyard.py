"""backyard (legacy Faraday/Backyard cards): detection, round trips, hybrids, privacy."""

from __future__ import annotations

import base64
import json
from functools import cache
from typing import Any

import pytest

from bunzai.sdk import Asset, Character, Lorebook, LorebookEntry, MalformedInput
from bunzai.sdk.exif import find_exif, read_user_comment
from bunzai.sdk.png import PngFile
from bunzai.testing import as_input, corpus_dir, load_registry, route, uncovered_differences
from bunzai.testing.damage import JUNK, damage

FMT = "backyard"


def score(reg: Any, data: bytes, name: str, fmt: str = FMT) -> float:
    rep = reg.detect(as_input(data, name))
    return next((c.score for c in rep.candidates if c.format == fmt), 0.0)


def read(reg: Any, data: bytes, name: str = "card.png", **options: Any) -> Character:
    _, result, _ = reg.read(as_input(data, name), format=FMT, options=options)
    (ch,) = result.entities
    assert isinstance(ch, Character)
    return ch


def card_json(png: bytes) -> Any:
    """The card JSON in a PNG's EXIF UserComment (raw or base64)."""
    tiff = find_exif(png)
    assert tiff is not None
    found = read_user_comment(tiff)
    assert found is not None
    body = found[1].rstrip(b"\x00")
    return json.loads(body if body[:1] == b"{" else base64.b64decode(body))


def other_chunks(png: bytes) -> list[bytes]:
    return [bytes(c.raw) for c in PngFile.parse(png).chunks if c.type != "eXIf"]


# -- the corpus card -----------------------------------------------------------------------------


def test_corpus_card_routes_here_and_maps_fields(registry: Any, kit: Any) -> None:
    path = corpus_dir() / kit.V2_PNG
    assert route(registry, path) == FMT
    ch = read(registry, path.read_bytes())
    assert (ch.name, ch.extensions["display_name"]) == ("Faraday", "Faraday Assistant")
    assert ch.description.startswith("{{char}} is a knowledgeable")
    assert ch.first_mes == "Hello {{user}}. How can I help you today?"
    assert ch.mes_example == ("<START>\n{{user}}: Hey {{char}}. Who are you?\n{{char}}: I am "
                              "{{char}}, your AI assistant. How can I help you?")
    assert ch.scenario == "{{char}} is a virtual assistant that exists on {{user}}'s computer."
    assert ch.system_prompt.startswith("Text transcript of a never-ending conversation "
                                       "between {{user}} and {{char}}.")
    assert ch.creation_date == 1702942302 and ch.tags == [] and ch.lorebook is None
    (icon,) = ch.assets
    assert icon.media_type == "image/png" and b"eXIf" not in icon.data  # type: ignore[operator]


def test_corpus_card_is_written_back_bit_for_bit(registry: Any, kit: Any) -> None:
    original = (corpus_dir() / kit.V2_PNG).read_bytes()
    out = registry.write([read(registry, original)], FMT)
    assert not out.loss
    assert out.data == original


# -- our own cards -------------------------------------------------------------------------------


@pytest.mark.parametrize(("version", "encoding"), [(1, "raw"), (4, "base64"), (3, "raw")])
def test_png_cards_round_trip(registry: Any, kit: Any, version: int,
                              encoding: str) -> None:
    inner = kit.inner_v1() if version == 1 else kit.inner_v4()
    obj = kit.card(inner, version)
    png = kit.card_png(obj, encoding=encoding, extra=[
        kit.make_text_chunk("Comment", "drawn by hand"), kit.make_chunk(b"tIME", b"\x07" * 7)])
    assert score(registry, png, "c.png") == 0.9
    ch = read(registry, png)
    out = registry.write([ch], FMT)
    assert not out.loss
    assert card_json(out.data) == obj
    assert other_chunks(out.data) == other_chunks(png)
    assert out.data == png


def test_v4_card_fields(registry: Any, kit: Any) -> None:
    ch = read(registry, kit.card_png(kit.card(kit.inner_v4(), 4)))
    assert ch.tags == ["nsfw"] and ch.first_mes == ""
    assert ch.lorebook is not None
    assert [e.keys for e in ch.lorebook.entries] == [["river", "ford"], ["coin"]]
    assert ch.lorebook.entries[0].content == "{{char}} knows the ford."


def test_json_card_round_trips(registry: Any, kit: Any) -> None:
    obj = kit.card(kit.inner_v4(), 4)
    data = json.dumps(obj, indent=4).encode()
    assert score(registry, data, "wren.json") == 0.9
    ch = read(registry, data, "wren.json")
    assert ch.assets == []
    out = registry.write([ch], FMT)
    assert not out.loss and out.suffix == ".json"
    assert json.loads(out.data) == obj
    assert out.data.startswith(b'{\n    "character"')


def test_an_edited_card_gets_a_fresh_exif_block(registry: Any, kit: Any) -> None:
    png = kit.card_png(kit.card(kit.inner_v1(), 1), encoding="raw")
    ch = read(registry, png)
    ch.first_mes = "The ferry leaves at dawn, {{user}}."
    out = registry.write([ch], FMT)
    got = card_json(out.data)
    assert got["character"]["firstMessage"] == "The ferry leaves at dawn, {user}."
    assert got["character"]["Chat"] == kit.inner_v1()["Chat"]
    assert other_chunks(out.data) == other_chunks(png)
    assert PngFile.parse(out.data).chunk_types == ["IHDR", "eXIf", "IDAT", "IEND"]


def test_options_choose_container_encoding_and_chats(registry: Any, kit: Any) -> None:
    ch = read(registry, kit.card_png(kit.card(kit.inner_v1(), 1), encoding="raw"))
    as_json = registry.write([ch], FMT, {"container": "json", "chats": "drop"})
    assert as_json.suffix == ".json"
    assert json.loads(as_json.data)["character"]["Chat"] == []
    b64 = registry.write([ch], FMT, {"encoding": "base64"})
    assert card_json(b64.data)["character"]["aiName"] == "Wren"
    with pytest.raises(Exception, match="container"):
        registry.write([ch], FMT, {"container": "gif"})


# -- bare Backyard objects (spec §6.3) -----------------------------------------------------------


BARE = {
    "byaf-character": {"schemaVersion": 1, "id": "c1", "name": "Wren",
                       "displayName": "Wren the Ferrywoman", "isNSFW": False,
                       "persona": "{character} rows.", "createdAt": "2024-01-01T00:00:00.000Z",
                       "updatedAt": "2024-01-01T00:00:00.000Z",
                       "loreItems": [{"key": "coin", "value": "owl"}],
                       "images": [{"path": "images/a.png", "label": "a"}]},
    "api": {"id": "x9", "name": "Wren", "displayName": "Wren", "persona": "{character} rows.",
            "isNSFW": True, "LoreItems": [], "Images": [{"imageUrl": "https://x.invalid/a.png",
                                                         "label": ""}], "ttsSpeed": 1},
    "legacy-inner": {"aiName": "Wren", "aiDisplayName": "Wren", "aiPersona": "Rows.",
                     "isNSFW": False, "loreItems": [], "scenario": "Fog."},
}


@pytest.mark.parametrize("shape", sorted(BARE))
def test_bare_objects_score_weakly_and_round_trip(registry: Any, shape: str) -> None:
    data = json.dumps(BARE[shape]).encode()
    assert score(registry, data, "c.json") == 0.55
    assert route(registry, data, "c.json") == FMT
    ch = read(registry, data, "c.json")
    assert ch.name == "Wren"
    out = registry.write([ch], FMT)
    assert not out.loss
    assert json.loads(out.data) == BARE[shape]


@pytest.mark.parametrize("value", [
    {"persona": "just a persona"},
    {"persona": "p", "displayName": "d"},
    {"name": "Agnai", "persona": {"kind": "text", "attributes": {}}, "displayName": "x",
     "isNSFW": False},
    {"name": "risu persona", "personaPrompt": "p", "note": ""},
    {"spec": "chara_card_v2", "data": {"name": "x", "description": "y"}},
    {"chat": {"ChatItems": []}, "version": 1},
    {"character": {"name": "not backyard"}, "version": 2},
])
def test_other_shapes_score_zero(registry: Any, value: Any) -> None:
    assert score(registry, json.dumps(value).encode(), "x.json") == 0.0


# -- Ginger's hybrid PNG -------------------------------------------------------------------------


def test_hybrid_png_defers_to_the_tavern_card(registry: Any, kit: Any) -> None:
    png = kit.hybrid_png()
    report = registry.detect(as_input(png, "ryza.png"))
    scores = {c.format: c.score for c in report.candidates}
    assert scores[FMT] == 0.6
    if "sillytavern" in registry.adapters:
        assert report.winner is not None and report.winner.format == "sillytavern"
        assert scores["sillytavern"] > scores[FMT]
    ch = read(registry, png, "ryza.png")  # --from backyard reads the EXIF card
    assert ch.name == "Wren" and ch.tags == ["nsfw"]
    out = registry.write([ch], FMT)
    assert not out.loss and out.data == png


def test_hybrid_png_routes_to_sillytavern(registry: Any, kit: Any) -> None:
    if "sillytavern" not in registry.adapters:
        pytest.skip("sillytavern is not installed")
    assert route(registry, kit.hybrid_png(), "ryza.png") == "sillytavern"


def test_labels_name_backyard_and_ginger(registry: Any, kit: Any) -> None:
    def evidence(data: bytes) -> dict[str, list[str]]:
        inp = as_input(data, "card.png")
        return {rule.name: rule.test(inp, []) for owner, rule in registry.label_rules()
                if owner == FMT}

    plain = evidence(kit.card_png(kit.card(kit.inner_v4(), 4)))
    assert plain["backyard-exif-card"] and not plain["ginger-hybrid-png"]
    assert len(evidence(kit.hybrid_png())["ginger-hybrid-png"]) == 3


# -- canonical -> legacy card --------------------------------------------------------------------


def test_a_card_becomes_a_backyard_png_keeping_its_image(registry: Any, kit: Any) -> None:
    image = kit.exif_png(b"", extra=[kit.make_text_chunk("Software", "paint")])
    image = b"".join(bytes(c.raw) for c in PngFile.parse(image).chunks if c.type != "eXIf")
    image = kit.PNG_SIGNATURE + image
    ch = Character(
        name="Hollis Crane", nickname="Hol", description="{{char}} tends bees.",
        personality="calm", scenario="A meadow.", first_mes="Careful, {{user}}.",
        alternate_greetings=["Buzz."], mes_example="<START>\n{{user}}: Honey?\n{{char}}: Later.",
        tags=["nsfw", "bees"], creator="apiarist",
        lorebook=Lorebook(entries=[LorebookEntry(keys=["hive"], content="Three hives.")]),
        assets=[Asset(type="icon", name="main", data=image, media_type="image/png"),
                Asset(type="background", name="main", data=b"\xff\xd8\xff" + b"0" * 9)])
    out = registry.write([ch], FMT)
    assert out.suffix == ".png"
    back = read(registry, out.data)
    assert uncovered_differences(ch, back, out.loss) == []
    for path in ("alternate_greetings", "creator", "personality", "assets[1]", "nickname"):
        assert out.loss.covers(path), path
    types = PngFile.parse(out.data).chunk_types
    assert types.index("eXIf") < types.index("IDAT")
    assert other_chunks(out.data) == other_chunks(image)
    got = card_json(out.data)
    assert got["version"] == 4
    assert (got["character"]["aiName"], got["character"]["aiDisplayName"]) == ("Hol",
                                                                                "Hollis Crane")
    assert got["character"]["customDialogue"] == "#{user}: Honey?\n#{character}: Later."
    assert got["character"]["loreItems"] == [{"key": "hive", "value": "Three hives."}]


def test_a_card_without_a_png_image_gets_a_blank_one(registry: Any) -> None:
    ch = Character(name="J", assets=[Asset(type="icon", name="main", data=b"\xff\xd8\xff0")])
    out = registry.write([ch], FMT)
    assert out.loss.covers("assets[0]")
    assert PngFile.parse(out.data).chunk_types == ["IHDR", "eXIf", "IDAT", "IEND"]
    assert read(registry, out.data).name == "J"


# -- privacy and hostile input -------------------------------------------------------------------


def test_samplers_and_chats_are_app_data_reported_unless_backyards_defaults(
        registry: Any, kit: Any) -> None:
    ch = read(registry, kit.card_png(kit.card(kit.inner_v1(), 1)))
    data = ch.app_data[FMT]
    assert data["temperature"] == 0.6 and data["Chat"][0]["name"] == ""
    assert "id" not in data and ch.passthrough[FMT]["keep"]["id"] == kit.inner_v1()["id"]
    lore = read(registry, kit.card_png(kit.card(kit.inner_v4(), 4))).lorebook
    assert lore is not None and not lore.entries[0].app_data  # ids, order and dates: layout
    out = registry.write([ch], "backyard-byaf")
    reported = {e.path for e in out.loss if e.path.startswith(f"app_data.{FMT}.")}
    assert {f"app_data.{FMT}.{k}" for k in ("temperature", "topK", "model", "Chat")} <= reported
    assert f"app_data.{FMT}.grammar" not in reported  # null: nothing to lose
    assert f"app_data.{FMT}.mirostatLearningRate" not in reported  # mirostat is off
    fresh = read(registry, registry.write([Character(name="New")], FMT).data)
    assert fresh.app_data[FMT]["temperature"] == 1.2  # Backyard's setting for a new character
    again = registry.write([fresh], "backyard-byaf")
    assert not [e.path for e in again.loss if e.path.startswith("app_data.")]


@cache
def _character_targets() -> list[str]:
    reg = load_registry()
    return sorted(fid for fid, h in reg.adapters.items()
                  if h.kind == "character" and fid not in (FMT, "vaud-json") and h.info.can_write)


@pytest.mark.parametrize("target", _character_targets())
def test_chat_history_never_reaches_another_format(registry: Any, kit: Any,
                                                   target: str) -> None:
    png = kit.card_png(kit.card(kit.inner_v1(), 1))
    _, result, _ = registry.read(as_input(png, "w.png"), format=FMT)
    assert any("private data" in w.message for w in result.warnings)
    out = registry.write(list(result.entities), target)
    assert all(b"A private" not in f.data for f in out.files)
    assert out.loss.covers("app_data.backyard.Chat")


@pytest.mark.parametrize(("payload", "message"), [
    (b"not json at all", "base64, but not JSON"),
    (b"<xml/>", "neither JSON nor base64"),
    (b'{"character": {"aiName": ', "invalid JSON"),
    (b"e30=", "not a Backyard character"),
])
def test_broken_payloads_are_refused_clearly(registry: Any, kit: Any, payload: bytes,
                                             message: str) -> None:
    png = kit.exif_png(payload)
    assert score(registry, png, "x.png") == 0.0
    with pytest.raises(MalformedInput, match=message):
        read(registry, png, "x.png")


def test_a_broken_exif_block_is_refused_clearly(registry: Any, kit: Any) -> None:
    base = kit.minimal_png()
    png = base[:33] + kit.make_chunk(b"eXIf", b"MM\x00*\x00\x00\xff\xff") + base[33:]
    assert score(registry, png, "x.png") == 0.0
    with pytest.raises(MalformedInput, match="EXIF"):
        read(registry, png, "x.png")
    with pytest.raises(MalformedInput, match="no EXIF"):
        read(registry, base, "x.png")


def test_validate_points_at_bad_fields(registry: Any, kit: Any) -> None:
    inner = kit.inner_v4(createdAt="yesterday")
    inner["loreItems"].append({"key": 3})
    data = json.dumps(kit.card(inner, 4)).encode()
    issues = registry.validate(registry.get(FMT), as_input(data, "c.json"), [])
    found = {(i.path, i.severity) for i in issues}
    assert ("$.character.createdAt", "warning") in found
    assert ("$.character.loreItems[2]", "error") in found


def test_damaged_cards_round_trip_exactly(registry: Any, kit: Any) -> None:
    """Odd values anywhere in the card: reading never crashes and writing gives the same file."""
    import random

    odd = (*JUNK, -2.5, "{{char}}", [{"key": 1}], "2024-01-01")

    for seed in range(150):
        rnd = random.Random(seed)
        obj = kit.card(kit.inner_v1() if seed % 2 else kit.inner_v4(), 1 if seed % 2 else 4)
        for _ in range(rnd.randint(1, 3)):
            damage(rnd, obj["character"], odd)
        as_png = seed % 5 != 0
        data = (kit.card_png(obj, encoding="raw" if seed % 3 else "base64") if as_png
                else json.dumps(obj).encode())
        ch = read(registry, data, "c.png" if as_png else "c.json")
        out = registry.write([ch], FMT)
        assert not out.loss, (seed, [str(e) for e in out.loss])
        assert out.data == data if as_png else json.loads(out.data) == obj, seed

"""What NovelAI users rely on, beyond the standard checks: the field mapping, the PNG container,
the defaults written for books from other formats, and validation."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest

import bunzai
from bunzai.sdk import MalformedInput
from bunzai.testing import as_input, conversion_problems

SAMPLES = Path(__file__).parent / "samples"
BOOK = SAMPLES / "harbour-town.lorebook"


def test_entries_map_to_canonical_fields(bunzai_registry) -> None:
    book = bunzai.read(BOOK, registry=bunzai_registry)
    town, marta, tavern = book.entries
    assert (town.comment, town.keys, town.insertion_order) == (
        "Saltmere", ["Saltmere", "the town", "harbour"], 400)
    assert town.content.startswith("Saltmere is a fishing town")
    assert (marta.constant, marta.insertion_order, marta.id) == (
        True, 650, "0b6f6c2e-3c1e-4a51-9d0b-5e8a4f1c2d02")
    assert marta.keys[-1] == "/\\bVell\\b/i"  # regex keys stay text
    assert (tavern.enabled, tavern.insertion_order) == (False, -100)
    # NovelAI's own settings are the entry's and the book's app data, key by key
    kept = marta.app_data["novelai-lorebook"]
    assert kept["searchRange"] == 2000 and kept["keyRelative"] is True
    assert kept["contextConfig.trimDirection"] == "doNotTrim"
    assert "contextConfig.budgetPriority" not in kept  # that is insertion_order
    assert book.app_data["novelai-lorebook"]["categories"][1]["name"] == "People"
    # layout (key order, the entry's save time) is passthrough, never user data
    assert "lastUpdatedAt" in marta.passthrough["novelai-lorebook"]
    assert "lastUpdatedAt" not in kept


def test_the_png_export_reads_like_the_json(bunzai_registry) -> None:
    from_png = bunzai.read(SAMPLES / "harbour-town.png", registry=bunzai_registry)
    from_json = bunzai.read(BOOK, registry=bunzai_registry)
    assert [e.model_dump() for e in from_png.entries] == [e.model_dump()
                                                           for e in from_json.entries]
    report = bunzai.detect(SAMPLES / "harbour-town.png", registry=bunzai_registry)
    assert report.winner.format == "novelai-lorebook" and report.container == "png"


def test_png_round_trip_replaces_only_the_naidata_chunk(bunzai_registry) -> None:
    book = bunzai.read(SAMPLES / "harbour-town.png", registry=bunzai_registry)
    book.entries[0].content = "Rewritten."
    out = bunzai.write(book, "novelai-lorebook", registry=bunzai_registry)
    assert out.suffix == ".png"
    before, after = as_input(SAMPLES / "harbour-town.png").png, as_input(out.data).png
    keep = [bytes(c.raw) for c in before.chunks if c.type != "tEXt"]
    assert [bytes(c.raw) for c in after.chunks if c.type != "tEXt"] == keep
    (chunk,) = after.find_text("naidata")
    doc = json.loads(base64.b64decode(chunk.value_bytes()))
    assert doc["entries"][0]["text"] == "Rewritten."
    assert [t.keyword for t in after.text_chunks()] == ["Software", "naidata"]


def test_container_option_turns_a_png_book_into_json(bunzai_registry) -> None:
    out = bunzai.convert(SAMPLES / "harbour-town.png", "novelai-lorebook",
                         registry=bunzai_registry, container="json")
    assert out.suffix == ".lorebook"
    assert json.loads(out.data) == json.loads(BOOK.read_bytes())
    assert out.warnings == ["the PNG cover image was not kept (container=json)"]


def test_books_from_other_formats_get_novelai_defaults_and_an_honest_report(
        bunzai_registry, bunzai_examples) -> None:
    (book,) = bunzai_examples("lorebook")
    out = bunzai.write(book, "novelai-lorebook", registry=bunzai_registry)
    doc = json.loads(out.data)
    assert doc["lorebookVersion"] == 5 and doc["categories"] == []
    first = doc["entries"][0]
    assert first["contextConfig"]["budgetPriority"] == 110  # insertion_order
    assert first["contextConfig"]["tokenBudget"] == 2048  # NovelAI's default for the rest
    assert first["displayName"] == "Gull Point lighthouse" and first["searchRange"] == 1000
    assert "forceActivation" in first and first["forceActivation"] is False
    assert first["id"] == "1"  # NovelAI's ids are text; an id is not user data
    assert len(doc["entries"]) == 2  # the folder entry is not an entry in NovelAI
    reported = {e.path: e.action for e in out.loss}
    assert reported["entries[2]"] == "dropped"  # the folder
    assert reported["entries[0].sticky"] == "dropped"
    assert reported["entries[0].secondary_keys"] == "dropped"
    assert reported["entries[0].name"] == "dropped"  # comment wins the single title
    assert reported["name"] == "dropped"
    # what asks nothing of NovelAI is not a loss: ids, empty and default values, layout
    assert "entries[0].id" not in reported and "entries[1].sticky" not in reported
    assert not [p for p in reported if "passthrough" in p]
    # both ways: what changed is reported, and what is reported changed
    assert conversion_problems(bunzai_registry, [book], "novelai-lorebook") == []


def test_converting_to_sillytavern_keeps_what_world_info_can_hold(bunzai_registry) -> None:
    if "sillytavern-lorebook" not in bunzai_registry.adapters:
        pytest.skip("sillytavern-lorebook (bunzai-formats-tavern) is not installed")
    out = bunzai.convert(BOOK, "sillytavern-lorebook", registry=bunzai_registry)
    world = bunzai.read(out.data, filename="world.json", registry=bunzai_registry)
    assert [e.comment for e in world.entries] == ["Saltmere", "Marta Vell", "The Drowned Bell"]
    assert [e.constant for e in world.entries] == [False, True, False]
    assert [e.enabled for e in world.entries] == [True, True, False]
    assert [e.insertion_order for e in world.entries] == [400, 650, -100]
    # NovelAI's own settings are reported key by key; the layout never is
    paths = {e.path for e in out.loss}
    assert "entries[1].app_data.novelai-lorebook.searchRange" in paths  # 2000, not 1000
    assert "entries[1].app_data.novelai-lorebook.contextConfig.prefix" in paths
    assert "app_data.novelai-lorebook.categories" in paths
    assert not [p for p in paths if "passthrough" in p]


def test_broken_files_are_refused_with_the_json_path(bunzai_registry) -> None:
    with pytest.raises(MalformedInput, match=r"\$\.entries\[0\]\.keys: expected a list of "
                                             r"strings"):
        bunzai.read(SAMPLES / "malformed" / "keys-not-strings.lorebook",
                    format="novelai-lorebook", registry=bunzai_registry)
    with pytest.raises(MalformedInput, match="naidata chunk is not readable JSON"):
        bunzai.read(SAMPLES / "malformed" / "naidata-not-json.png", format="novelai-lorebook",
                    registry=bunzai_registry)


def test_validation_flags_entries_that_never_fire(bunzai_registry) -> None:
    doc = {"lorebookVersion": 5, "entries": [
        {"text": "no keys", "keys": []},
        {"text": "forced", "keys": [], "forceActivation": True},
        {"text": "dup", "keys": ["a"], "id": "x", "category": "nope"},
        {"text": "dup", "keys": ["a"], "id": "x"},
    ]}
    inp = as_input(json.dumps(doc).encode(), "book.lorebook")
    handle, result, _ = bunzai_registry.read(inp)
    issues = {(i.path, i.message.split(":")[0]) for i in
              bunzai_registry.validate(handle, inp, result.entities)}
    assert issues == {("$.entries[0].keys", "no keys and not forceActivation"),
                      ("$.entries[2].category", "unknown category id 'nope'"),
                      ("$.entries[3].id", "duplicate id (also entries[2])")}

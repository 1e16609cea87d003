"""NovelAI files from the real world (bunzai's shared corpus, read in place) and books of every
lorebook version, written here from our own text."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import bunzai
from bunzai.sdk import MalformedInput
from bunzai.testing import as_input

FID = "novelai-lorebook"


def _read(registry: Any, data: bytes | Path) -> Any:
    src = as_input(data, "book.lorebook") if isinstance(data, bytes) else as_input(data)
    handle, result, _ = registry.read(src)
    assert handle.id == FID
    return result


def test_an_app_export_with_categories_reads(bunzai_registry, nai_corpus) -> None:
    (book,) = _read(bunzai_registry, nai_corpus["example-v4"]).entities
    assert len(book.entries) == 125
    kept = book.app_data[FID]
    assert book.passthrough[FID]["version"] == 4 and len(kept["categories"]) == 18
    categories = {c["id"]: c["name"] for c in kept["categories"]}
    vera = book.entries[0]
    assert (vera.comment, vera.keys, vera.insertion_order) == (
        "Vera Stepanova", ["Vera", "Russia", "Soviet"], 400)
    assert vera.id == "fac5d34b-ff5c-4eab-be08-45af5f8dc2e1" and vera.constant is False
    other = vera.app_data[FID]
    assert other["category"] in categories  # entries point at their category by id
    assert other["loreBiasGroups"][0]["generateOnce"] is True
    assert other["contextConfig.tokenBudget"] == 2048
    assert all(kept["categories"][0]["categoryDefaults"])


def test_an_empty_export_and_a_version_6_book_read(bunzai_registry, nai_corpus) -> None:
    (empty,) = _read(bunzai_registry, nai_corpus["empty-v4"]).entities
    assert empty.entries == []
    (v6,) = _read(bunzai_registry, nai_corpus["tool-v6"]).entities
    assert len(v6.entries) == 3
    assert v6.passthrough[FID]["order"] == ["lorebookVersion", "entries", "categories",
                                            "settings"]
    assert v6.entries[0].app_data[FID]["advancedConditions"] == []
    assert "settings" in v6.app_data[FID]["categories"][0]


@pytest.mark.parametrize("name", ["empty-v4", "example-v4", "tool-v6"])
def test_a_rewrite_gives_back_the_same_bytes(bunzai_registry, nai_corpus, name) -> None:
    path = nai_corpus[name]
    result = _read(bunzai_registry, path)
    out = bunzai_registry.write(result.entities, FID)
    assert not out.loss
    assert out.files[0].data == path.read_bytes()


def test_every_value_written_as_text_is_refused_naming_the_problem(
        bunzai_registry, nai_corpus) -> None:
    path = nai_corpus["every-value-text"]
    report = bunzai_registry.detect(as_input(path))
    assert report.winner is not None and report.winner.format == FID
    with pytest.raises(MalformedInput, match="every value is text") as info:
        bunzai_registry.read(as_input(path))
    assert "$.entries is a Python list written as text" in info.value.message
    assert info.value.exit_code == 4


def test_a_cut_off_file_is_refused_as_unreadable_json(bunzai_registry, nai_corpus) -> None:
    path = nai_corpus["cut-off"]
    with pytest.raises(MalformedInput, match="invalid JSON") as info:
        bunzai_registry.read(as_input(path))
    assert info.value.exit_code == 4


def test_a_version_written_as_text_still_reads_when_the_rest_is_sound(bunzai_registry) -> None:
    doc = {"lorebookVersion": "5", "entries": [{"text": "Fog.", "keys": ["fog"]}]}
    data = json.dumps(doc, indent=2).encode()
    result = _read(bunzai_registry, data)
    assert [w.path for w in result.warnings] == ["$.lorebookVersion"]
    out = bunzai_registry.write(result.entities, FID)
    assert json.loads(out.files[0].data) == doc


def _entry(version: int, n: int) -> dict[str, Any]:
    """One entry, richer as the version number grows (our own text): from a bare v1 entry to
    one with every key the app and tools write today."""
    entry: dict[str, Any] = {"text": f"The ferry leaves at {n} bells.", "keys": ["ferry",
                                                                                "/\\bbells?\\b/i"],
                             "displayName": f"Ferry {n}", "searchRange": 1000, "enabled": True,
                             "forceActivation": n == 2}
    if version >= 2:
        entry["contextConfig"] = {"prefix": "", "suffix": "\n", "tokenBudget": 2048,
                                  "reservedTokens": 0, "budgetPriority": 400 + n,
                                  "trimDirection": "trimBottom", "insertionType": "newline",
                                  "maximumTrimType": "sentence", "insertionPosition": -1}
        entry.update({"keyRelative": False, "nonStoryActivatable": False})
    if version >= 3:
        entry["loreBiasGroups"] = [{"phrases": [{"sequence": "tide"}], "bias": 0.5,
                                    "ensureSequenceFinish": False, "generateOnce": True,
                                    "enabled": True, "whenInactive": False}]
    if version >= 4:
        entry.update({"category": "cat-harbour", "lastUpdatedAt": 1700000000000 + n,
                      "id": f"00000000-0000-4000-8000-00000000000{n}"})
    if version >= 5:
        entry["hidden"] = n == 2
    if version >= 6:
        entry["advancedConditions"] = []
    return entry


def _book(version: int) -> dict[str, Any]:
    doc: dict[str, Any] = {"lorebookVersion": version,
                           "entries": [_entry(version, 1), _entry(version, 2)]}
    if version >= 2:
        doc["settings"] = {"orderByKeyLocations": version >= 4}
    if version >= 4:
        doc["categories"] = [{"name": "Harbour", "id": "cat-harbour", "enabled": True,
                              "createSubcontext": False, "subcontextSettings": {},
                              "useCategoryDefaults": False, "categoryDefaults": {},
                              "categoryBiasGroups": []}]
    if version >= 6:
        doc["categories"][0]["settings"] = {}
    return doc


@pytest.mark.parametrize("version", [1, 2, 3, 4, 5, 6])
def test_every_lorebook_version_reads_and_rewrites_exactly(bunzai_registry, version) -> None:
    doc = _book(version)
    data = json.dumps(doc, indent=2, ensure_ascii=False).encode()
    (book,) = _read(bunzai_registry, data).entities
    first, second = book.entries
    assert first.keys == ["ferry", "/\\bbells?\\b/i"]  # regex keys stay text, as NovelAI's
    assert (first.comment, first.constant, second.constant) == ("Ferry 1", False, True)
    assert first.insertion_order == (401 if version >= 2 else None)
    kept = second.app_data[FID]
    if version >= 3:
        assert kept["loreBiasGroups"][0]["phrases"] == [{"sequence": "tide"}]
    if version >= 4:
        assert kept["category"] == "cat-harbour"
        assert book.app_data[FID]["categories"][0]["name"] == "Harbour"
    if version >= 5:
        assert kept["hidden"] is True
    out = bunzai_registry.write([book], FID)
    assert not out.loss and out.files[0].data == data


def test_a_real_book_converts_to_world_info_with_its_titles_and_priorities(
        bunzai_registry, nai_corpus) -> None:
    if "sillytavern-lorebook" not in bunzai_registry.adapters:
        pytest.skip("sillytavern-lorebook (bunzai-formats-tavern) is not installed")
    out = bunzai.convert(nai_corpus["tool-v6"], "sillytavern-lorebook",
                         registry=bunzai_registry)
    world = bunzai.read(out.data, filename="world.json", registry=bunzai_registry)
    assert [e.comment for e in world.entries] == ["The Ancient Library of Alexandria",
                                                  "Master Elara", "The Crystal Caves"]
    assert [e.insertion_order for e in world.entries] == [400, 500, 450]  # budget priority

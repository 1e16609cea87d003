"""voxta-lorebook: packages of memory books, the books of a character package, conversions."""

from __future__ import annotations

import io
import json
import zipfile
from typing import Any

import pytest

from bunzai.sdk import Lorebook, MalformedInput
from bunzai.testing import as_input, conversion_problems, corpus_files, route

from ..._common.jsonfmt import dumps_dotnet
from ...voxta.tests import fixtures as fx

FMT = "voxta-lorebook"


def read(reg: Any, data: Any, fmt: str | None = FMT) -> tuple[list[Any], list[Any]]:
    _, result, _ = reg.read(as_input(data, "x.voxpkg") if isinstance(data, bytes)
                            else as_input(data), format=fmt)
    return list(result.entities), result.warnings


def members(data: bytes) -> dict[str, bytes]:
    with zipfile.ZipFile(io.BytesIO(data)) as zf:
        return {i.filename: zf.read(i) for i in zf.infolist()}


def test_a_books_package_reads_one_lorebook_per_book(registry: Any) -> None:
    data = fx.books_package()
    assert route(registry, data) == FMT
    (tides, harbour), _ = read(registry, data)
    assert isinstance(tides, Lorebook) and tides.name == "Tides"
    assert [e.keys for e in tides.entries] == [["tide", "tides"], ["gale"]]
    assert tides.entries[1].content == "{{char}} counts the seconds between gusts."
    assert [e.priority for e in tides.entries] == [7, 5]
    assert harbour.name == "Harbour" and harbour.description == "Who is who on the quay."
    assert tides.app_data[FMT] == {"Creator": "slatewright", "ExplicitContent": False}
    out = registry.write([tides, harbour], FMT)
    assert not out.loss
    assert members(out.files[0].data) == members(data)
    assert list(members(out.files[0].data)) == list(members(data))


def test_the_books_of_a_character_package_read_when_asked(registry: Any) -> None:
    paths = [p for p in corpus_files("voxpkg") if "Purrsephone" in p.name]
    if not paths:
        pytest.skip("Purrsephone package not in the corpus")
    assert route(registry, paths[0]) == "voxta"  # the package is a character's
    (book,), warnings = read(registry, paths[0])
    assert book.name == "Purrsephone" and len(book.entries) == 10
    assert any("not lorebooks" in w.message for w in warnings)


def test_world_info_to_voxta_books_is_a_new_package(registry: Any) -> None:
    world = {"entries": {
        "0": {"uid": 0, "key": ["lamp"], "keysecondary": [], "comment": "Lamp",
              "content": "{{char}} trims the lamp.", "constant": False, "selective": True,
              "order": 100, "position": 0, "disable": False, "probability": 100,
              "useProbability": True, "depth": 4},
        "1": {"uid": 1, "key": ["ferry"], "keysecondary": ["night"], "comment": "",
              "content": "It runs at night.", "constant": True, "selective": True,
              "order": 90, "position": 1, "disable": True, "probability": 100,
              "useProbability": True, "depth": 4}}}
    handle, result, _ = registry.read(as_input(json.dumps(world).encode(), "world.json"))
    assert handle.id == "sillytavern-lorebook"
    out = registry.write(result.entities, FMT)
    data = out.files[0].data
    assert route(registry, data) == FMT
    files = members(data)
    pkg = json.loads(files["package.json"])
    (book_path,) = [n for n in files if n.endswith("book.json")]
    book = json.loads(files[book_path])
    assert pkg["EntryResource"] == {"Kind": 2, "Id": book["Id"]}
    assert book["PackageId"] == pkg["Id"]
    assert book["Items"][0]["Text"] == "{{ char }} trims the lamp."
    assert book["Items"][1]["Deleted"] is True
    assert files[book_path] == dumps_dotnet(book)
    assert not conversion_problems(registry, result.entities, FMT)
    paths = {e.path for e in out.loss}
    assert "entries[1].secondary_keys" in paths and "entries[0].comment" in paths
    assert "entries[0].content" not in paths and "entries[1].enabled" not in paths
    assert not [p for p in paths if "passthrough" in p or p.endswith((".id", ".depth"))]
    assert ("name", "approximated") in {(e.path, e.action) for e in out.loss}


def test_a_cut_off_book_is_refused_naming_it(registry: Any) -> None:
    with pytest.raises(MalformedInput, match=f"Books/{fx.TIDES}/book.json"):
        read(registry, fx.broken_book())


def test_odd_values_in_a_book_come_back_as_they_were(registry: Any) -> None:
    """A null name, a text where keywords belong, a number as text, a float weight, a string
    Deleted: read as far as they go, with a warning where something is ignored, and a rewrite
    gives the book's bytes back."""
    items = [fx.item("a1", ["tide"], "Low at dusk.", 7, Deleted="no"),
             {**fx.item("a2", [], "x", 5), "Keywords": "gale", "Text": 12, "Weight": 2.5}]
    obj = {**fx.book(fx.TIDES, "Tides", items), "Name": None}
    data = fx.build_zip([(f"Books/{fx.TIDES}/book.json", dumps_dotnet(obj))])
    (book,), warnings = read(registry, data)
    assert book.name == "" and [e.keys for e in book.entries] == [["tide"], ["gale"]]
    assert book.entries[1].content == "12" and book.entries[1].priority == 2.5
    assert all(e.enabled for e in book.entries)
    assert [w.message for w in warnings] == [
        "Keywords is a string, not an array; read as one item",
        "Text is a number, not a string; read as text"]
    out = registry.write([book], FMT)
    assert not out.loss
    assert members(out.files[0].data) == members(data)

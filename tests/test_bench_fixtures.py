"""The benchmark's generated fixtures are what they claim to be.

A benchmark that times the wrong code path (a card nobody recognises, a PNG whose chunks are
damaged) reports meaningless ratios, so each generator's output is routed through real detection
here, on small variants so the test stays fast.  No timing happens in tests.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

import bunzai
from bunzai.host.registry import Registry
from bunzai.io.containers.png import PngFile
from bunzai.io.input import as_input
from bunzai.model import Character, Lorebook


def _load_fixtures() -> ModuleType:
    path = Path(__file__).resolve().parents[1] / "bench" / "fixtures.py"
    spec = importlib.util.spec_from_file_location("bunzai_bench_fixtures", path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


fx = _load_fixtures()


def _route(registry: Registry, data: bytes) -> str | None:
    report = registry.detect(as_input(data))
    return report.winner.format if report.winner else None


def _need(registry: Registry, *formats: str) -> None:
    missing = [f for f in formats if f not in registry.adapters]
    if missing:
        pytest.skip(f"{', '.join(missing)} not installed")


def test_portrait_is_a_valid_png_of_the_stated_size() -> None:
    img = fx.image_png(1, 40, 30, idat_size=1000)
    png = PngFile.parse(img)
    assert (png.width, png.height) == (40, 30)
    assert png.chunk_types[0] == "IHDR" and png.chunk_types[-1] == "IEND"
    assert png.problems == []
    assert all(c.crc_ok() for c in png.chunks)


def test_card_json_has_the_requested_size_and_st_shape() -> None:
    card = fx.card_v2(1, size=20_000)
    size = len(fx.json_bytes(card))
    assert 18_000 <= size <= 20_000
    assert card["spec"] == "chara_card_v2" and card["name"] == card["data"]["name"]
    entries = card["data"]["character_book"]["entries"]
    assert len(entries) == 12
    assert all("selectiveLogic" in e["extensions"] for e in entries)
    assert fx.card_v2(1, size=20_000) == card  # deterministic


@pytest.mark.parametrize("early", [False, True], ids=["before-iend", "after-ihdr"])
def test_png_card_routes_to_sillytavern_and_keeps_the_image(registry: Registry,
                                                            early: bool) -> None:
    _need(registry, "sillytavern")
    img = fx.image_png(2, 32, 32, idat_size=500)
    card = fx.card_v2(3, size=4_000, entries=3)
    data = fx.png_card(img, card, early=early)
    png = PngFile.parse(data)
    keys = [t.keyword for t in png.text_chunks()]
    assert keys == ["chara", "ccv3"]
    text_index = png.chunk_types.index("tEXt")
    assert (text_index == 1) if early else (png.chunk_types[text_index + 2] == "IEND")
    idats = [bytes(c.data) for c in png.chunks_of("IDAT")]
    assert idats == [bytes(c.data) for c in PngFile.parse(img).chunks_of("IDAT")]
    assert _route(registry, data) == "sillytavern"
    assert bunzai.read(data).name == card["name"]


def test_json_cards_and_world_books_route_to_their_adapters(registry: Registry) -> None:
    _need(registry, "sillytavern", "sillytavern-lorebook")
    card = fx.card_v2(4, size=3_000, entries=2)
    assert _route(registry, fx.json_bytes(card)) == "sillytavern"
    assert _route(registry, fx.json_bytes(fx.card_v3(card), indent=4)) == "sillytavern"
    assert _route(registry, fx.json_bytes(fx.card_v1(5))) == "sillytavern"
    book = fx.world_book(6, entries=3)
    assert _route(registry, fx.json_bytes(book, indent=4)) == "sillytavern-lorebook"
    lorebook = bunzai.read(fx.json_bytes(book))
    assert isinstance(lorebook, Lorebook)
    assert len(lorebook.entries) == 3


def test_charx_routes_to_risu_charx_with_its_assets(registry: Registry) -> None:
    _need(registry, "risu-charx")
    data = fx.charx(1, asset_sizes=(2000, 1500, 1500), card_size=3_000)
    assert _route(registry, data) == "risu-charx"
    character = bunzai.read(data)
    assert isinstance(character, Character)
    assert len(character.assets) == 3
    assert all(a.media_type == "image/png" for a in character.assets)


def test_mixed_folder_is_deterministic_and_routes_every_kind(registry: Registry,
                                                            tmp_path: Path) -> None:
    _need(registry, "sillytavern", "sillytavern-lorebook")
    expected = {"v1.json": "sillytavern", "v2.json": "sillytavern", "v3.json": "sillytavern",
                "card.png": "sillytavern", "world.json": "sillytavern-lorebook"}
    folder = fx.write_mixed_dir(tmp_path / "mixed", 40)
    files = sorted(folder.iterdir())
    assert len(files) == 40
    seen = set()
    for path in files:
        kind = path.name.split("-", 1)[1]
        seen.add(kind)
        assert _route(registry, path.read_bytes()) == expected[kind], path.name
        assert fx.mixed_file(int(path.name[:5]))[1] == path.read_bytes()
    assert seen == set(expected)  # 40 files cover every kind in the mix

"""Declared signatures: an adapter is asked to score only files that show one of its marks."""

from __future__ import annotations

import json
from typing import Any

from bunzai.sdk import AdapterInput, Detection, FormatAdapter
from bunzai.sdk.png import PngFile, make_text_chunk, minimal_png, splice
from bunzai.sdk.zip import write_zip
from bunzai.testing import Registry

ASKED: list[str] = []


class _Marked(FormatAdapter):
    format_id = "marked"
    kind = "lorebook"
    signature = {"json": ("marker", "[]"), "png": ("naidata",), "zip": ("Books/",)}

    def detect(self, input: Any) -> Detection:
        ASKED.append(input.container)
        return Detection(0.7)


def registry() -> Registry:
    return Registry.load(autoload=False, defaults=False, extra=[("marked", _Marked())])


def asked(data: bytes, name: str) -> list[str]:
    ASKED.clear()
    registry().detect(AdapterInput(data, name))
    return list(ASKED)


def test_json_with_a_declared_key_or_an_array_is_scored() -> None:
    assert asked(json.dumps({"marker": 1}).encode(), "a.json") == ["json"]
    assert asked(b"[1, 2]", "a.json") == ["json"]


def test_json_without_a_declared_key_costs_no_call() -> None:
    assert asked(json.dumps({"spec": "chara_card_v2"}).encode(), "a.json") == []


def test_png_and_zip_marks_are_keywords_and_folders() -> None:
    png = minimal_png(2, 2)
    with_chunk = splice(PngFile.parse(png), remove=lambda c: False,
                        insert_before_iend=[make_text_chunk("NAIdata", "x")])
    assert asked(png, "a.png") == []
    assert asked(with_chunk, "a.png") == ["png"]
    book = write_zip([("Books/1/book.json", b"{}")])
    assert asked(book, "a.zip") == ["zip"]
    assert asked(write_zip([("card.json", b"{}")]), "a.zip") == []


def test_an_undeclared_container_is_never_asked() -> None:
    assert asked(b"plain text here", "a.txt") == []


def test_the_winner_is_the_same_as_without_the_signature() -> None:
    rep = registry().detect(AdapterInput(json.dumps({"marker": 1}).encode(), "a.json"))
    assert rep.winner is not None and rep.winner.format == "marked"

"""``bunzai lorebook embed`` never succeeds with the book lost: a V1 card is upgraded to V2 (and
says so), a card format with no place for a book is refused with exit 5 and nothing written."""

from __future__ import annotations

import base64
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

import bunzai
from bunzai.cli import app
from bunzai.io.containers.png import PngFile, make_text_chunk, minimal_png, splice
from bunzai.io.input import as_input

runner = CliRunner()

V1_CARD = {"name": "Odile", "description": "Keeps the tide tables of a small harbour.",
           "personality": "patient", "scenario": "A grey morning on the quay.",
           "first_mes": "The tide turns at six.", "mes_example": ""}
WORLD = {"entries": {
    "0": {"uid": 0, "key": ["quay"], "keysecondary": [], "comment": "Quay",
          "content": "Stone steps lead down to the water.", "constant": False,
          "selective": False, "order": 100, "position": 0, "disable": False},
    "1": {"uid": 1, "key": ["lamp"], "keysecondary": [], "comment": "Lamp",
          "content": "The harbour lamp is lit at dusk.", "constant": True, "selective": False,
          "order": 90, "position": 1, "disable": True}}}


def _files(tmp_path: Path) -> tuple[Path, Path, Path]:
    card_json = tmp_path / "odile.json"
    card_json.write_text(json.dumps(V1_CARD), encoding="utf-8")
    card_png = tmp_path / "odile.png"
    chunk = make_text_chunk("chara", base64.b64encode(json.dumps(V1_CARD).encode()))
    card_png.write_bytes(splice(PngFile.parse(minimal_png(4, 6, (90, 120, 160, 255))),
                                insert_before_iend=[chunk]))
    book = tmp_path / "harbour.json"
    book.write_text(json.dumps(WORLD), encoding="utf-8")
    return card_json, card_png, book


def _run(*args: object) -> tuple[int, str, str]:
    res = runner.invoke(app, [str(a) for a in args])
    return res.exit_code, res.stdout, res.stderr


@pytest.mark.parametrize("which", ["json", "png"])
def test_embedding_into_a_v1_card_upgrades_it_and_keeps_the_book(tmp_path: Path,
                                                                  which: str) -> None:
    card_json, card_png, book = _files(tmp_path)
    card = card_json if which == "json" else card_png
    out = tmp_path / f"out.{which}"
    code, stdout, stderr = _run("lorebook", "embed", card, book, "-o", out)
    assert code == 0, stderr
    assert "written as a V2 card" in stdout
    assert ": lorebook -" not in stdout  # the book itself is not reported lost
    back = bunzai.read(out)
    assert back.lorebook is not None  # type: ignore[union-attr]
    assert [e.content for e in back.lorebook.entries] == [  # type: ignore[union-attr]
        "Stone steps lead down to the water.", "The harbour lamp is lit at dusk."]
    assert [e.enabled for e in back.lorebook.entries] == [True, False]  # type: ignore[union-attr]
    assert back.description == V1_CARD["description"]  # type: ignore[union-attr]
    inp = as_input(out)
    if which == "json":
        assert inp.json["spec"] == "chara_card_v2"
    else:
        assert [p.value["spec"] for p in inp.png_json("chara")] == ["chara_card_v2"]
        assert [p.value["spec"] for p in inp.png_json("ccv3")] == ["chara_card_v3"]


def test_embedding_into_a_format_without_a_book_is_refused(tmp_path: Path) -> None:
    card_json, _, book = _files(tmp_path)
    out = tmp_path / "out.json"
    code, _, stderr = _run("lorebook", "embed", card_json, book, "-o", out, "--to", "pygmalion")
    assert code == 5
    assert "cannot hold the lorebook" in stderr and "nothing was written" in stderr
    assert not out.exists()
    code, stdout, _ = _run("lorebook", "embed", card_json, book, "-o", out, "--to",
                           "pygmalion", "--json")
    assert code == 5 and json.loads(stdout)["exit_code"] == 5


def test_an_unchanged_v1_card_stays_v1(tmp_path: Path) -> None:
    card_json, card_png, _ = _files(tmp_path)
    for card in (card_json, card_png):
        out = bunzai.write(bunzai.read(card), "sillytavern")
        assert not out.warnings
        inp = as_input(out.data, f"x{out.suffix}")
        obj = inp.json if inp.container == "json" else inp.png_json("chara")[0].value
        assert "spec" not in obj


def _card_with_book(tmp_path: Path) -> Path:
    """A V2 card of our own whose book already holds two entries."""
    data = {**V1_CARD, "character_book": {"entries": [
        {"keys": ["tide"], "content": "Spring tides flood the lower quay.", "enabled": True,
         "insertion_order": 10, "comment": "Tides"},
        {"keys": ["gull"], "content": "Gulls nest under the harbour master's roof.",
         "enabled": True, "insertion_order": 20, "comment": "Gulls"}]}}
    card = tmp_path / "odile-v2.json"
    card.write_text(json.dumps({"spec": "chara_card_v2", "spec_version": "2.0",
                                "data": {**data, "tags": [], "creator": "", "character_version":
                                         "", "system_prompt": "", "post_history_instructions":
                                         "", "alternate_greetings": [], "creator_notes": "",
                                         "extensions": {}}}), encoding="utf-8")
    return card


def test_a_card_that_has_a_book_is_refused_unless_told_what_to_do_with_it(tmp_path: Path
                                                                            ) -> None:
    _, _, book = _files(tmp_path)
    card = _card_with_book(tmp_path)
    out = tmp_path / "new.json"
    res = runner.invoke(app, ["lorebook", "embed", str(card), str(book), "-o", str(out)])
    assert res.exit_code == 5, res.output
    assert "already holds a lorebook of 2 entries" in res.output
    assert "--replace" in res.output and "--merge" in res.output
    assert not out.exists()


def test_replace_reports_each_entry_of_the_old_book_as_dropped(tmp_path: Path) -> None:
    _, _, book = _files(tmp_path)
    card = _card_with_book(tmp_path)
    out = tmp_path / "new.json"
    res = runner.invoke(app, ["lorebook", "embed", str(card), str(book), "-o", str(out),
                              "--replace", "--json"])
    assert res.exit_code == 0, res.output
    found = json.loads(res.stdout)
    assert found["replaced_entries"] == ["Tides", "Gulls"]
    dropped = {e["path"] for e in found["loss"] if e["action"] == "dropped"}
    assert {"lorebook.entries[0]", "lorebook.entries[1]"} <= dropped
    assert [e.comment for e in bunzai.read(out).lorebook.entries] == ["Quay", "Lamp"]
    text = runner.invoke(app, ["lorebook", "embed", str(card), str(book), "-o", str(out),
                               "--replace", "--force"])
    assert "replaced the card's own book: 2 entries (Tides, Gulls)" in text.output


def test_merge_keeps_both_books(tmp_path: Path) -> None:
    _, _, book = _files(tmp_path)
    card = _card_with_book(tmp_path)
    out = tmp_path / "new.json"
    res = runner.invoke(app, ["lorebook", "embed", str(card), str(book), "-o", str(out),
                              "--merge"])
    assert res.exit_code == 0, res.output
    assert [e.comment for e in bunzai.read(out).lorebook.entries] == [
        "Tides", "Gulls", "Quay", "Lamp"]
    both = runner.invoke(app, ["lorebook", "embed", str(card), str(book), "-o", str(out),
                               "--merge", "--replace"])
    assert both.exit_code == 2

"""diff, extract and the lorebook commands, on core's native format."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

import bunzai
from bunzai.cli import app
from bunzai.host.registry import Registry, set_registry
from bunzai.io.containers.png import minimal_png
from bunzai.model import Asset, Character, Lorebook, LorebookEntry

runner = CliRunner()


@pytest.fixture(autouse=True)
def core_only() -> Iterator[None]:
    set_registry(Registry.load(autoload=False))
    yield
    set_registry(None)


def save(tmp_path: Path, name: str, entity: object) -> Path:
    p = tmp_path / name
    p.write_bytes(bunzai.write(entity, "vaud-json").data)  # type: ignore[arg-type]
    return p


def run(*args: object) -> tuple[int, str, str]:
    res = runner.invoke(app, [str(a) for a in args])
    return res.exit_code, res.stdout, res.stderr


BOOK = Lorebook(name="Harbour", entries=[
    LorebookEntry(id=1, keys=["bell"], content="The bell rings at noon."),
    LorebookEntry(id=2, keys=["pier"], content="The pier is rotten."),
])
CARD = Character(name="Ines", description="A harbour pilot.", first_mes="Ahoy.", lorebook=BOOK,
                 assets=[Asset(type="icon", name="main", data=minimal_png(), uri="ccdefault:"),
                         Asset(type="emotion", name="joy", data=b"\xff\xd8\xff\xe0fakejpeg"),
                         Asset(type="background", name="sky", uri="https://example.invalid/x")])


def test_diff_equal_files_exit_0(tmp_path: Path) -> None:
    a = save(tmp_path, "a.vaud.json", CARD)
    b = save(tmp_path, "b.vaud.json", CARD)
    code, out, _ = run("diff", a, b)
    assert code == 0 and "equal" in out


def test_diff_reports_fields_entries_and_assets(tmp_path: Path) -> None:
    other = CARD.model_copy(deep=True)
    other.description = "A retired harbour pilot."
    assert other.lorebook is not None
    other.lorebook.entries.reverse()  # reordering alone is not a difference
    other.lorebook.entries[0].content = "The pier was rebuilt."
    other.assets[1] = Asset(type="emotion", name="joy", data=b"\xff\xd8\xff\xe0otherjpeg")
    a = save(tmp_path, "a.vaud.json", CARD)
    b = save(tmp_path, "b.vaud.json", other)
    code, out, _ = run("diff", a, b, "--json")
    doc = json.loads(out)
    assert code == 1 and doc["equal"] is False
    paths = {c["path"]: c["change"] for c in doc["changes"]}
    assert paths == {"description": "changed",
                     "lorebook.entries[id=2].content": "changed",
                     "assets[emotion:joy]": "changed"}


def test_diff_refuses_different_kinds(tmp_path: Path) -> None:
    code, _, err = run("diff", save(tmp_path, "a.vaud.json", CARD),
                       save(tmp_path, "b.vaud.json", BOOK))
    assert code == 2 and "cannot diff" in err


def test_extract_assets_with_sniffed_extensions_and_manifest(tmp_path: Path) -> None:
    src = save(tmp_path, "card.vaud.json", CARD)
    out = tmp_path / "assets"
    code, _, err = run("extract", src, "--assets", out)
    assert code == 0, err
    manifest = json.loads((out / "manifest.json").read_text())
    files = {m["name"]: m for m in manifest}
    assert files["main"]["file"] == "main.png" and files["main"]["media_type"] == "image/png"
    assert files["joy"]["file"].endswith(".jpg")  # sniffed, not guessed
    assert files["sky"]["file"] is None  # remote: recorded, never fetched
    data = (out / files["joy"]["file"]).read_bytes()
    assert hashlib.sha256(data).hexdigest() == files["joy"]["sha256"]
    code, _, err = run("extract", src, "--assets", out)
    assert code == 5 and "--force" in err  # never overwrites silently


def test_lorebook_extract_embed_merge(tmp_path: Path) -> None:
    card = save(tmp_path, "card.vaud.json", CARD)
    book_out = tmp_path / "book.vaud.json"
    code, _, err = run("lorebook", "extract", card, "-o", book_out, "--to", "vaud-json")
    assert code == 0, err
    assert bunzai.read(book_out) == BOOK

    bare = save(tmp_path, "bare.vaud.json", CARD.model_copy(update={"lorebook": None}))
    embedded = tmp_path / "embedded.vaud.json"
    code, _, err = run("lorebook", "embed", bare, book_out, "-o", embedded)
    assert code == 0, err
    assert bunzai.read(embedded).lorebook == BOOK  # type: ignore[union-attr]

    other = Lorebook(entries=[
        LorebookEntry(id=2, keys=["pier"], content="The pier is rotten."),   # duplicate
        LorebookEntry(id=1, keys=["bell"], content="The bell is silent."),   # conflict
        LorebookEntry(keys=["gull"], content="Gulls everywhere."),
    ])
    other_p = save(tmp_path, "other.vaud.json", other)
    merged_p = tmp_path / "merged.vaud.json"
    code, out, err = run("lorebook", "merge", book_out, other_p, "-o", merged_p,
                         "--to", "vaud-json", "--json")
    assert code == 0, err
    doc = json.loads(out)
    merged = bunzai.read(merged_p)
    contents = [e.content for e in merged.entries]  # type: ignore[union-attr]
    assert contents == ["The bell rings at noon.", "The pier is rotten.",
                        "The bell is silent.", "Gulls everywhere."]
    assert len(doc["duplicates"]) == 1 and len(doc["conflicts"]) == 2  # keys + reused id
    assert len({e.id for e in merged.entries}) == 4  # type: ignore[union-attr]


def test_lorebook_extract_without_book_is_a_clear_error(tmp_path: Path) -> None:
    card = save(tmp_path, "card.vaud.json", CARD.model_copy(update={"lorebook": None}))
    code, _, err = run("lorebook", "extract", card, "-o", tmp_path / "x.json", "--to", "vaud")
    assert code == 2 and "no embedded lorebook" in err


def test_without_a_default_lorebook_format_to_is_required(tmp_path: Path) -> None:
    card = save(tmp_path, "card.vaud.json", CARD)
    code, _, err = run("lorebook", "extract", card, "-o", tmp_path / "x.json")
    assert code == 2 and "name one with --to" in err and "vaud-json" in err
    assert not (tmp_path / "x.json").exists()


def test_quiet_silences_human_output(tmp_path: Path) -> None:
    a = save(tmp_path, "a.vaud.json", CARD)
    code, out, _ = run("--quiet", "diff", a, a)
    assert code == 0 and out == ""


def test_batch_convert_continues_past_bad_files(tmp_path: Path) -> None:
    srcdir = tmp_path / "in"
    srcdir.mkdir()
    for i in range(3):
        save(srcdir, f"card{i}.vaud.json", CARD.model_copy(update={"name": f"N{i}"}))
    (srcdir / "broken.json").write_text("{ nope")
    (srcdir / "other.json").write_text('{"unrelated": true}')
    out = tmp_path / "out"
    for jobs in ("1", "2"):
        code, stdout, _ = run("convert", srcdir, "--to", "vaud-json", "--out-dir", out,
                              "-j", jobs, "--json", "--force")
        records = [json.loads(line) for line in stdout.splitlines()]
        status = {Path(r["path"]).name: r["status"] for r in records}
        assert status == {"card0.vaud.json": "converted", "card1.vaud.json": "converted",
                          "card2.vaud.json": "converted", "broken.json": "failed",
                          "other.json": "failed"}
        assert code == 4  # the worst failure: malformed beats unrecognized (3)
    assert sorted(p.name for p in out.iterdir()) == [
        "card0.vaud.json", "card1.vaud.json", "card2.vaud.json"]
    assert bunzai.read(out / "card1.vaud.json").name == "N1"


def test_batch_names_never_collide_and_existing_files_are_skipped(tmp_path: Path) -> None:
    a = tmp_path / "a"
    b = tmp_path / "b"
    a.mkdir()
    b.mkdir()
    save(a, "same.vaud.json", CARD)
    save(b, "same.vaud.json", CARD.model_copy(update={"name": "Other"}))
    out = tmp_path / "out"
    code, stdout, _ = run("convert", a, b, "--to", "vaud-json", "-d", out)
    assert code == 0 and "2 converted" in stdout
    assert sorted(p.name for p in out.iterdir()) == ["same-2.vaud.json", "same.vaud.json"]
    code, stdout, stderr = run("convert", a, b, "--to", "vaud-json", "-d", out)
    assert code == 5 and "2 skipped" in stdout  # a refused output, as with -o
    for name in ("same.vaud.json", "same-2.vaud.json"):  # every skip says why
        assert f"skipped: {out / name} exists" in stderr


def test_batch_needs_an_out_dir(tmp_path: Path) -> None:
    x = save(tmp_path, "x.vaud.json", CARD)
    code, _, err = run("convert", x, x, "--to", "vaud-json")
    assert code == 2 and "--out-dir" in err

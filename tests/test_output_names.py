"""What bunzai names the files it writes, and where they go, through the installed ``bunzai``
script and the Python API: one rule for a single file, a batch and ``save()``; ``-o DIR/``,
``-o -`` and ``-`` as pip, curl and jq users expect; a batch stopped with Ctrl-C and resumed."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import bunzai as bunzai_api
from bunzai.host.adapter import FormatAdapter
from bunzai.host.registry import Registry
from bunzai.host.types import ReadResult, WriteResult
from bunzai.io.input import AdapterInput
from bunzai.io.outputs import OutputFile
from bunzai.model import Character, Entity, Persona
from bunzai.testing import chats_corpus_dir, corpus_files, presets_corpus_dir, require_corpus

require_corpus()

BUNZAI = shutil.which("bunzai", path=str(Path(sys.executable).parent)) or "bunzai"
PNG = next(p for p in corpus_files("png-chara-v2") if "default_Seraphina" in p.name)


def bunzai(*args: object, cwd: Path | None = None, data: bytes | None = None
           ) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run([BUNZAI, *map(str, args)], capture_output=True, timeout=300, cwd=cwd,
                          input=data)


def lines(out: bytes) -> list[dict[str, object]]:
    return [json.loads(line) for line in out.decode().splitlines()]


def test_a_missing_output_folder_is_could_not_write(tmp_path: Path) -> None:
    res = bunzai("convert", PNG, "--to", "agnai", "-o", tmp_path / "nowhere" / "card.json")
    assert res.returncode == 5, res.stderr
    assert b"nowhere" in res.stderr and b"does not exist" in res.stderr
    assert not (tmp_path / "nowhere").exists()


# -- one naming rule -------------------------------------------------------------------------------


def _formats(folder: Path) -> dict[str, object]:
    """What each file in ``folder`` reads as."""
    res = bunzai("inspect", folder, "--json")
    return {Path(str(r["path"])).name: r.get("format") for r in lines(res.stdout)}


def test_a_second_target_beside_the_source_keeps_the_first_even_with_force(
        tmp_path: Path) -> None:
    """Agnai and Pygmalion both write ``.json``: converting one card to both keeps both, named
    as a batch names them, and --force replaces only the same target's earlier output."""
    src = tmp_path / "seraphina.png"
    shutil.copyfile(PNG, src)
    assert bunzai("convert", src, "--to", "agnai").returncode == 0
    agnai = (tmp_path / "seraphina.json").read_bytes()
    for force in ([], ["--force"]):
        res = bunzai("convert", src, "--to", "pygmalion", *force)
        assert res.returncode == 0, res.stderr
        assert f"-> {tmp_path / 'seraphina.pygmalion.json'} (pygmalion)" in res.stdout.decode()
        assert (tmp_path / "seraphina.json").read_bytes() == agnai
    res = bunzai("convert", src, "--to", "pygmalion")  # its own earlier output: refused
    assert res.returncode == 5 and b"seraphina.pygmalion.json: output exists" in res.stderr
    assert _formats(tmp_path) == {"seraphina.png": "sillytavern", "seraphina.json": "agnai",
                                  "seraphina.pygmalion.json": "pygmalion"}
    # a batch into the same folder names them alike
    batch = tmp_path / "batch"
    batch.mkdir()
    shutil.copyfile(src, batch / "seraphina.png")
    for to in ("agnai", "pygmalion"):
        assert bunzai("convert", batch, "--to", to, "-d", batch).returncode == 0
    assert _formats(batch) == _formats(tmp_path)


def test_chats_of_four_apps_all_keep_their_own_file(tmp_path: Path) -> None:
    chat = next(p for p in sorted(chats_corpus_dir().glob("st-chat/*.jsonl")))
    src = tmp_path / "sim.jsonl"
    shutil.copyfile(chat, src)
    targets = ["agnai-chat", "risu-chat", "oobabooga-chat", "backyard-chat"]
    for to in targets:
        assert bunzai("convert", src, "--to", to).returncode == 0
    made = _formats(tmp_path)
    assert made.pop("sim.jsonl") == "sillytavern-chat"
    first = made.pop("sim.json")
    assert made == {f"sim.{to}.json": to for to in targets if to != first}
    assert first in targets


class _Scene(FormatAdapter):
    """A third-party format whose files end in a suffix of two parts."""

    format_id = "test-scene"
    kind = "character"
    suffix = ".scene.json"

    def detect(self, input: AdapterInput) -> float:
        return 0.9 if input.filename and input.filename.endswith(".scene.json") else 0.0

    def read(self, input: AdapterInput, options: Mapping[str, Any]) -> ReadResult:
        return ReadResult([Character(name=json.loads(input.data)["who"])])

    def write(self, entity: Entity, options: Mapping[str, Any]) -> WriteResult:
        data = json.dumps({"who": getattr(entity, "name", "")}).encode()
        return WriteResult([OutputFile(data, self.suffix)])


def test_a_suffix_a_format_declares_is_taken_off_whole(tmp_path: Path) -> None:
    """``town.scene.json`` has the stem ``town`` once a format declares ``.scene.json``: its
    conversion is ``town.scene.json`` in another folder, not ``town.scene.scene.json``, in a
    single conversion and in a batch."""
    reg = Registry.load(autoload=False, extra=[("test-scene", _Scene())])
    src = tmp_path / "in" / "town.scene.json"
    src.parent.mkdir()
    src.write_text(json.dumps({"who": "Mara"}))
    made = bunzai_api.convert(src, to="test-scene", registry=reg).save(f"{tmp_path}/one/")
    assert made == [tmp_path / "one" / "town.scene.json"]
    assert bunzai_api.source_stem("town.scene.json") == "town"
    batch = bunzai_api.convert_batch([src.parent], "test-scene", out_dir=tmp_path / "many",
                                     registry=reg)
    assert [f.outputs for f in batch.run()] == [[str(tmp_path / "many" / "town.scene.json")]]


# -- -o DIR/, -o - and - ---------------------------------------------------------------------------


def test_o_with_a_trailing_slash_or_an_existing_folder_writes_into_it(tmp_path: Path) -> None:
    res = bunzai("convert", PNG, "--to", "agnai", "-o", f"{tmp_path / 'new'}/")
    assert res.returncode == 0, res.stderr
    made = tmp_path / "new" / f"{PNG.stem}.json"
    assert _formats(tmp_path / "new") == {made.name: "agnai"}
    res = bunzai("convert", PNG, "--to", "charx", "-o", tmp_path / "new")
    assert res.returncode == 0, res.stderr
    assert _formats(tmp_path / "new") == {made.name: "agnai", f"{PNG.stem}.charx": "risu-charx"}


def test_o_dash_writes_the_file_to_standard_output(tmp_path: Path) -> None:
    assert bunzai("convert", PNG, "--to", "charx", "-o", tmp_path / "card.charx").returncode == 0
    res = bunzai("convert", PNG, "--to", "charx", "-o", "-", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    assert res.stdout == (tmp_path / "card.charx").read_bytes()  # byte for byte
    assert b"-> - (risu-charx)" in res.stderr and b"loss:" in res.stderr  # the report aside
    assert sorted(p.name for p in tmp_path.iterdir()) == ["card.charx"]


def test_dash_reads_standard_input_as_bytes(tmp_path: Path) -> None:
    data = PNG.read_bytes()
    res = bunzai("convert", "-", "--to", "sillytavern", "-o", "-", "-O", "container=json",
                 data=data)
    assert res.returncode == 0, res.stderr
    assert res.stdout == bunzai("convert", PNG, "--to", "sillytavern", "-o", "-", "-O",
                                "container=json").stdout
    assert b"<stdin> (sillytavern) -> -" in res.stderr
    # into a folder, the output is named after the character, having no file name
    res = bunzai("convert", "-", "--to", "agnai", "-o", f"{tmp_path}/", data=data)
    assert res.returncode == 0, res.stderr
    assert _formats(tmp_path) == {"Seraphina.json": "agnai"}
    res = bunzai("convert", "-", "--to", "agnai", data=data)  # nowhere to write
    assert res.returncode == 2 and b"-o" in res.stderr


def test_o_dash_refuses_a_conversion_that_makes_several_files(tmp_path: Path) -> None:
    backup = tmp_path / "personas.json"
    people = [Persona(name=n, description=n) for n in ("Ann", "Bob")]
    backup.write_bytes(bunzai_api.write(people, "sillytavern-persona").data)
    res = bunzai("convert", backup, "--to", "risu-persona", "-o", "-", cwd=tmp_path)
    assert res.returncode == 2 and res.stdout == b""
    assert b"-o - writes one file" in res.stderr and b"2" in res.stderr
    assert sorted(p.name for p in tmp_path.iterdir()) == ["personas.json"]


# -- a folder of every kind ------------------------------------------------------------------------


def test_to_json_on_a_folder_of_every_kind_skips_what_has_no_json_format(tmp_path: Path) -> None:
    """Cards, books and chats each get their kind's JSON format; a preset, whose kind has
    none, is skipped with the reason, and the exit code is the worst file's, not a usage
    error."""
    src = tmp_path / "in"
    src.mkdir()
    shutil.copyfile(PNG, src / "card.png")
    shutil.copyfile(next(p for p in corpus_files("st-worldbook")), src / "book.json")
    shutil.copyfile(sorted(chats_corpus_dir().glob("st-chat/*.jsonl"))[0], src / "sim.jsonl")
    shutil.copyfile(sorted(presets_corpus_dir().glob("ooba-preset/*"))[0], src / "preset.yaml")
    res = bunzai("convert", src, "--to", "json", "-d", tmp_path / "out", "--json")
    assert res.returncode == 5, res.stderr  # the skipped preset: refused, as cross-kind is
    got = {Path(str(r["path"])).name: r for r in lines(res.stdout)}
    assert {n: (r["status"], r.get("to")) for n, r in got.items() if n != "preset.yaml"} == {
        "card.png": ("converted", "sillytavern"),
        "book.json": ("converted", "sillytavern-lorebook"),
        "sim.jsonl": ("converted", "sillytavern-chat")}
    assert got["preset.yaml"]["status"] == "skipped"
    assert "no preset format is called 'json'" in str(got["preset.yaml"]["reason"])
    res = bunzai("convert", src, "--to", "json", "-d", tmp_path / "again")
    assert res.returncode == 5
    assert f"{src / 'preset.yaml'}: skipped: no preset format" in res.stderr.decode()
    assert "3 converted, 1 skipped, 0 failed" in res.stdout.decode()

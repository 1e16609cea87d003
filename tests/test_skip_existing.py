"""``bunzai convert --skip-existing`` continues an interrupted batch, through the installed
``bunzai`` script and the Python API: a source whose outputs are all there already (earlier
outputs of the same target) is done, written no more, and the exit code is 0; another format's
file of the same name is not a done conversion; ``--force`` with it is a usage error.

The cards are written here from our own text."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import bunzai as bunzai_api
from bunzai.errors import UsageError
from bunzai.model import Character, Persona

BUNZAI = shutil.which("bunzai", path=str(Path(sys.executable).parent)) or "bunzai"
OLD = 1_000_000_000_000_000_000
"""A past modification time (ns) given to every output, so any rewrite shows."""


def bunzai(*args: object) -> subprocess.CompletedProcess[str]:
    return subprocess.run([BUNZAI, *map(str, args)], capture_output=True, text=True,
                          timeout=300)


def lines(out: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in out.splitlines()]


def _cards(folder: Path) -> list[Path]:
    """Three small V2 cards of our own, as JSON files."""
    folder.mkdir()
    made = []
    for name, who in (("ash", "Ash Verrin"), ("birch", "Birch Oduya"), ("cedar", "Cedar Holm")):
        card = Character(name=who, description=f"{who} keeps the lighthouse on the north spit.",
                         first_mes=f"{who} looks up from the logbook.")
        path = folder / f"{name}.json"
        path.write_bytes(bunzai_api.write(card, "sillytavern").data)
        made.append(path)
    return made


def _state(folder: Path) -> dict[str, tuple[bytes, int]]:
    """Every file's bytes and modification time."""
    return {p.name: (p.read_bytes(), p.stat().st_mtime_ns) for p in sorted(folder.iterdir())}


def _age(folder: Path) -> None:
    for p in folder.iterdir():
        os.utime(p, ns=(OLD, OLD))


@pytest.mark.parametrize("jobs", ["1", "2"])
def test_a_rerun_writes_only_what_is_missing_and_exits_0(tmp_path: Path, jobs: str) -> None:
    src, out = tmp_path / "in", tmp_path / "out"
    _cards(src)
    assert bunzai("convert", src, "--to", "agnai", "-d", out, "-j", jobs).returncode == 0
    _age(out)
    first = _state(out)
    assert sorted(first) == ["ash.json", "birch.json", "cedar.json"]

    (out / "birch.json").unlink()  # the batch stopped before this one
    res = bunzai("convert", src, "--to", "agnai", "-d", out, "-j", jobs, "--skip-existing")
    assert res.returncode == 0, res.stderr
    assert "3 file(s): 1 converted, 2 already done, 0 skipped, 0 failed" in res.stdout
    assert f"converted {src / 'birch.json'} -> {out / 'birch.json'}" in res.stdout
    assert f"already done {src / 'ash.json'} -> {out / 'ash.json'}" in res.stdout
    assert res.stderr == ""
    now = _state(out)
    assert now["ash.json"] == first["ash.json"] and now["cedar.json"] == first["cedar.json"]
    assert now["birch.json"][0] == first["birch.json"][0]  # written again, the same bytes
    assert now["birch.json"][1] != OLD

    (out / "cedar.json").unlink()
    res = bunzai("convert", src, "--to", "agnai", "-d", out, "-j", jobs, "--skip-existing",
                 "--json")
    assert res.returncode == 0, res.stderr
    *files, totals = lines(res.stdout)
    assert {Path(str(f["path"])).name: (f["status"], f["output"]) for f in files} == {
        "ash.json": ("done", str(out / "ash.json")),
        "birch.json": ("done", str(out / "birch.json")),
        "cedar.json": ("converted", str(out / "cedar.json"))}
    assert totals == {"files": 3, "converted": 1, "already_done": 2, "skipped": 0,
                      "failed": 0, "exit_code": 0}
    assert _state(out)["ash.json"] == first["ash.json"]


def test_without_the_flag_a_rerun_is_still_refused(tmp_path: Path) -> None:
    src, out = tmp_path / "in", tmp_path / "out"
    _cards(src)
    assert bunzai("convert", src, "--to", "agnai", "-d", out).returncode == 0
    (out / "birch.json").unlink()
    res = bunzai("convert", src, "--to", "agnai", "-d", out)
    assert res.returncode == 5
    assert "1 converted, 2 skipped, 0 failed" in res.stdout
    assert f"{src / 'ash.json'}: skipped: {out / 'ash.json'} exists" in res.stderr
    assert "--skip-existing to keep it" in res.stderr  # what the user may want instead


def test_force_and_skip_existing_together_are_a_usage_error(tmp_path: Path) -> None:
    src, out = tmp_path / "in", tmp_path / "out"
    cards = _cards(src)
    for args in ([src, "-d", out], [cards[0], "-o", f"{out}/"]):
        res = bunzai("convert", *args, "--to", "agnai", "--force", "--skip-existing")
        assert res.returncode == 2
        assert "--force and --skip-existing: give one" in res.stderr
        assert not out.exists()
    with pytest.raises(UsageError, match="--skip-existing"):
        bunzai_api.convert_batch([src], "agnai", out_dir=out, force=True, skip_existing=True)


def test_another_formats_file_of_that_name_is_not_done(tmp_path: Path) -> None:
    """Pygmalion and Agnai both write ``.json``: a Pygmalion ``ash.json`` in the folder is not
    a done Agnai conversion; the Agnai card is written beside it, named after the target."""
    src, out = tmp_path / "in", tmp_path / "out"
    cards = _cards(src)
    out.mkdir()
    res = bunzai("convert", cards[0], "--to", "pygmalion", "-o", out / "ash.json")
    assert res.returncode == 0, res.stderr
    _age(out)
    theirs = _state(out)
    res = bunzai("convert", src, "--to", "agnai", "-d", out, "--skip-existing", "--json")
    assert res.returncode == 0, res.stderr
    *files, totals = lines(res.stdout)
    assert [(Path(str(f["path"])).name, f["status"], Path(str(f["output"])).name)
            for f in files] == [("ash.json", "converted", "ash.agnai.json"),
                                ("birch.json", "converted", "birch.json"),
                                ("cedar.json", "converted", "cedar.json")]
    assert totals["already_done"] == 0 and totals["converted"] == 3
    assert _state(out)["ash.json"] == theirs["ash.json"]
    # a rerun finds the Agnai card under its tagged name: done; the Pygmalion file is still
    # not taken for it
    res = bunzai("convert", src, "--to", "agnai", "-d", out, "--skip-existing")
    assert res.returncode == 0, res.stderr
    assert f"already done {src / 'ash.json'} -> {out / 'ash.agnai.json'}" in res.stdout
    assert "0 converted, 3 already done" in res.stdout
    # one file named outright: another format's file there is refused, as without the flag
    res = bunzai("convert", cards[0], "--to", "agnai", "-o", out / "ash.json", "--skip-existing")
    assert res.returncode == 5 and "output exists" in res.stderr
    assert _state(out)["ash.json"] == theirs["ash.json"]


def test_one_file_already_converted_is_done(tmp_path: Path) -> None:
    src, out = tmp_path / "in", tmp_path / "out"
    card = _cards(src)[0]
    assert bunzai("convert", card, "--to", "agnai", "-o", f"{out}/").returncode == 0
    _age(out)
    before = _state(out)
    for where in (f"{out}/", out / "ash.json"):
        res = bunzai("convert", card, "--to", "agnai", "-o", where, "--skip-existing")
        assert res.returncode == 0, res.stderr
        assert f"-> {out / 'ash.json'} (agnai): already done" in res.stdout
        res = bunzai("convert", card, "--to", "agnai", "-o", where, "--skip-existing", "--json")
        assert res.returncode == 0, res.stderr
        (line,) = lines(res.stdout)
        assert line["status"] == "done" and line["outputs"] == [str(out / "ash.json")]
    assert _state(out) == before
    res = bunzai("convert", card, "--to", "agnai", "-o", f"{out}/")
    assert res.returncode == 5  # without the flag, as before


def test_the_python_api_skips_what_is_done(tmp_path: Path) -> None:
    src, out = tmp_path / "in", tmp_path / "out"
    _cards(src)
    assert all(f.ok for f in bunzai_api.convert_batch([src], "agnai", out_dir=out).run())
    _age(out)
    (out / "cedar.json").unlink()
    batch = bunzai_api.convert_batch([src], "agnai", out_dir=out, skip_existing=True)
    got = {Path(f.path).name: (f.status, f.exit_code) for f in batch.run()}
    assert got == {"ash.json": ("done", 0), "birch.json": ("done", 0),
                   "cedar.json": ("converted", 0)}
    assert (batch.converted, batch.already_done, batch.skipped, batch.exit_code) == (1, 2, 0, 0)
    assert (out / "ash.json").stat().st_mtime_ns == OLD


def test_a_source_with_only_some_outputs_there_is_refused_not_done(tmp_path: Path) -> None:
    """A persona backup fans out into one file per persona; with one of them missing the
    conversion is neither done nor half redone: refused (exit 5), nothing written."""
    src, out = tmp_path / "in", tmp_path / "out"
    src.mkdir()
    people = [Persona(name=n, description=f"{n} sails the ferry.") for n in ("Ann", "Bob")]
    (src / "crew.json").write_bytes(bunzai_api.write(people, "sillytavern-persona").data)
    res = bunzai("convert", src, "--to", "risu-persona", "-d", out)
    assert res.returncode == 0, res.stderr
    made = sorted(out.iterdir())
    assert len(made) == 2
    made[1].unlink()
    _age(out)
    before = _state(out)
    res = bunzai("convert", src, "--to", "risu-persona", "-d", out, "--skip-existing")
    assert res.returncode == 5
    assert "0 converted, 0 already done, 1 skipped" in res.stdout
    assert f"{made[0]} exists, and not every other output of this file does" in res.stderr
    assert _state(out) == before

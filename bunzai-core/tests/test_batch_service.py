"""Batch conversion through the service layer: what ``bunzai convert -d`` does, for Python
callers and any front end, as a typed result."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

import bunzai
from bunzai.engine.batch import convert_batch, makes_batch
from bunzai.errors import UsageError
from bunzai.host.registry import Registry
from bunzai.io.containers.png import minimal_png
from bunzai.model import Asset, Character


@pytest.fixture(scope="module")
def registry() -> Registry:
    return Registry.load(autoload=False)


def card(name: str, picture: bytes = b"") -> Character:
    assets = [Asset(type="icon", name="main", data=picture or minimal_png(), uri="ccdefault:")]
    return Character(name=name, description=f"{name}, a lighthouse keeper.", assets=assets)


def folder_of_cards(root: Path, registry: Registry, picture: bytes = b"") -> Path:
    src = root / "in"
    src.mkdir()
    for name in ("Ada", "Bo", "Cy"):
        (src / f"{name.lower()}.vaud.json").write_bytes(
            bunzai.write(card(name, picture), "vaud-json", registry=registry).data)
    (src / "broken.json").write_text("{ not json")
    return src


@pytest.mark.parametrize("jobs", [1, 2])
def test_a_batch_reports_each_file_in_order_and_the_totals(tmp_path: Path, registry: Registry,
                                                           jobs: int) -> None:
    src = folder_of_cards(tmp_path, registry)
    out = tmp_path / "out"
    work = convert_batch([src], "vaud-json", out_dir=out, jobs=jobs, registry=registry)
    assert work.size == 4 and not list(out.iterdir())  # planned, nothing converted yet
    found = list(work.run())
    assert [Path(f.path).name for f in found] == [
        "ada.vaud.json", "bo.vaud.json", "broken.json", "cy.vaud.json"]
    assert [f.status for f in found] == ["converted", "converted", "failed", "converted"]
    assert work.to_dict() == {"files": 4, "converted": 3, "already_done": 0, "skipped": 0,
                              "failed": 1, "exit_code": 4}
    ada = found[0]
    assert ada.format == ada.to == "vaud-json" and ada.loss_summary == "nothing lost"
    assert ada.outputs == [str(out / "ada.vaud.json")]
    assert bunzai.read(out / "ada.vaud.json", registry=registry).name == "Ada"
    line = ada.to_dict()
    assert (line["path"], line["output"], line["status"]) == (
        str(src / "ada.vaud.json"), str(out / "ada.vaud.json"), "converted")
    assert found[2].exit_code == 4 and found[2].error and found[2].outputs is None
    again = convert_batch([src], "vaud-json", out_dir=out, jobs=jobs, registry=registry)
    skipped = [f for f in again.run() if f.status == "skipped"]
    assert len(skipped) == 3 and again.exit_code == 5  # existing outputs are refused
    assert skipped[0].to_dict()["reason"].startswith(f"{out / 'ada.vaud.json'} exists")


def test_a_batch_result_carries_no_bytes_home(tmp_path: Path, registry: Registry) -> None:
    """What a worker sends back is the conversion's JSON, never the card: memory stays flat
    however large the batch and its files."""
    picture = minimal_png() + b"\0" * 2_000_000  # a 2 MB icon
    src = folder_of_cards(tmp_path, registry, picture)
    work = convert_batch([src], "vaud-json", out_dir=tmp_path / "out", jobs=2,
                         registry=registry)
    sizes = [len(pickle.dumps(f)) for f in work.run()]
    assert work.converted == 3 and max(sizes) < 20_000, sizes


def test_what_is_not_a_batch_is_refused_before_any_file_is_read(tmp_path: Path,
                                                                registry: Registry) -> None:
    src = folder_of_cards(tmp_path, registry)
    assert makes_batch([src]) and makes_batch([src / "*.json"])
    assert makes_batch([src / "ada.vaud.json"], tmp_path / "out")
    assert not makes_batch([src / "ada.vaud.json"])
    with pytest.raises(UsageError, match="use --out-dir instead of --out"):
        convert_batch([src], "vaud-json", out_dir=None, out=tmp_path / "x.json",
                      registry=registry)
    with pytest.raises(UsageError, match="give --out-dir"):
        convert_batch([src], "vaud-json", out_dir=None, registry=registry)
    with pytest.raises(UsageError, match="--jobs must be at least 1"):
        convert_batch([src], "vaud-json", out_dir=tmp_path / "out", jobs=0, registry=registry)
    empty = tmp_path / "empty"
    empty.mkdir()
    with pytest.raises(UsageError, match="no files to read"):
        convert_batch([empty], "vaud-json", out_dir=tmp_path / "out", registry=registry)
    assert not (tmp_path / "out").exists()

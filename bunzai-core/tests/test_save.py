"""``WriteResult.save``: the CLI's output rules for people who script."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

import bunzai
from bunzai.errors import ConversionRefused
from bunzai.host.registry import Registry, set_registry
from bunzai.model import Character


@pytest.fixture(autouse=True)
def core_only() -> Iterator[None]:
    set_registry(Registry.load(autoload=False))
    yield
    set_registry(None)


def _card(tmp_path: Path, name: str = "card.vaud.json") -> Path:
    p = tmp_path / name
    p.write_bytes(bunzai.write(Character(name="Wren"), "vaud-json").data)
    return p


def test_a_folder_gets_the_file_named_after_the_source(tmp_path: Path) -> None:
    src = _card(tmp_path)
    out = bunzai.convert(src, to="vaud-json")
    assert out.format == "vaud-json" and out.source == str(src)
    made = out.save(f"{tmp_path}/new/")
    assert made == [tmp_path / "new" / "card.vaud.json"]  # the folder is made
    assert bunzai.read(made[0]).name == "Wren"


def test_next_to_the_source_it_never_takes_the_sources_name(tmp_path: Path) -> None:
    src = _card(tmp_path)
    before = src.read_bytes()
    made = bunzai.convert(src, to="vaud-json").save(tmp_path)
    assert made == [tmp_path / "card.vaud-json.vaud.json"] and src.read_bytes() == before
    with pytest.raises(ConversionRefused, match="replace the source"):
        bunzai.convert(src, to="vaud-json").save(src, force=True)


def test_an_existing_file_is_kept_unless_forced(tmp_path: Path) -> None:
    src = _card(tmp_path)
    target = tmp_path / "out.json"
    target.write_text("keep me")
    out = bunzai.convert(src, to="vaud-json")
    with pytest.raises(ConversionRefused, match="exists"):
        out.save(target)
    assert target.read_text() == "keep me"
    assert out.save(target, force=True) == [target]
    assert bunzai.read(target).name == "Wren"


def test_an_entity_written_from_python_is_named_after_itself(tmp_path: Path) -> None:
    out = bunzai.write(Character(name="Pell: the Ash"), "vaud-json")
    assert out.save(tmp_path) == [tmp_path / "Pell_ the Ash.vaud.json"]


def test_several_files_go_beside_the_path_with_their_entity_names(tmp_path: Path) -> None:
    from bunzai.host.types import WriteResult
    from bunzai.io.outputs import OutputFile

    out = WriteResult([OutputFile(b"a", ".json", "Ann"), OutputFile(b"b", ".json", "Bob")])
    made = out.save(tmp_path / "people.json")  # a persona backup fanned out, one file each
    assert [p.name for p in made] == ["people-Ann.json", "people-Bob.json"]
    (tmp_path / "people-Ann.json").unlink()
    with pytest.raises(ConversionRefused):
        out.save(tmp_path / "people.json")  # Bob's exists: checked before the first is written
    assert not (tmp_path / "people-Ann.json").exists()

"""The native format: detection gradient and lossless round trips for every kind."""

from __future__ import annotations

import pytest

import bunzai
from bunzai.errors import MalformedInput
from bunzai.host.registry import Registry
from bunzai.model import (
    Asset,
    Character,
    Lorebook,
    LorebookEntry,
    Module,
    Persona,
    RegexScript,
)


@pytest.fixture(scope="module")
def reg() -> Registry:
    return Registry.load(autoload=False)


def rich_character() -> Character:
    return Character(
        name="Marrow Vale", nickname="Marrow", description="A lighthouse keeper.",
        first_mes="The lamp is lit.", alternate_greetings=["Storm tonight.", ""],
        tags=["test", "ünïcode ✓"], creation_date=0, source=[],
        extensions={"app": {"x": "0.5", "n": None}},
        passthrough={"some-format": {"root": {"avatar": "none"}}},
        lorebook=Lorebook(name="Coast", entries=[
            LorebookEntry(id=3, keys=["lamp"], content="It is old.", probability=55,
                          sticky=0, role=None, position="at_depth", depth=2,
                          extensions={"weight": "1.0"})]),
        assets=[Asset(type="icon", name="main", uri="ccdefault:", data=b"\x89PNG\r\n\x1a\n..",
                      media_type="image/png")],
        regex_scripts=[RegexScript(name="trim", pattern="a+", flags="g", placement=["ai_output"])],
    )


ENTITIES = [
    rich_character(),
    Lorebook(name="Book", entries=[LorebookEntry(keys=["k"], content="c", enabled=False)]),
    Persona(name="Ada", description="A user.", is_default=True, role=0),
    RegexScript(name="x", pattern="(\\w+)", replace="$1", substitute_regex=2),
    Module(name="m", triggers=[{"type": "start", "effect": []}], low_level_access=True),
]


@pytest.mark.parametrize("entity", ENTITIES, ids=lambda e: e.kind)
def test_round_trip_is_exact(reg: Registry, entity: object) -> None:
    out = bunzai.write(entity, "vaud-json", registry=reg)  # type: ignore[arg-type]
    assert out.loss.entries == []
    assert out.suffix == ".vaud.json"
    assert bunzai.read(out.data, registry=reg) == entity


def test_several_entities_become_one_bundle(reg: Registry) -> None:
    personas = [Persona(name="A"), Persona(name="B", is_default=True)]
    out = bunzai.write(personas, "vaud-json", registry=reg)
    assert len(out.files) == 1
    assert bunzai.read_all(out.data, registry=reg).entities == personas


def test_detection_gradient(reg: Registry) -> None:
    out = bunzai.write(Persona(name="A"), "vaud-json", registry=reg)
    assert bunzai.detect(out.data, registry=reg).winner.score == 1.0  # type: ignore[union-attr]
    other = bunzai.detect(b'{"name": "x", "first_mes": "hi"}', registry=reg)
    assert [(c.format, c.score) for c in other.candidates] == [("vaud-json", 0.1)]
    assert other.winner is None
    assert bunzai.detect(b"\x89PNG\r\n\x1a\n", registry=reg).candidates == []


def test_json_is_detected_by_content_not_extension(reg: Registry) -> None:
    out = bunzai.write(Persona(name="A"), "vaud-json", registry=reg).data
    for name in ("persona.png", "persona", None):
        rep = bunzai.detect(out, name, registry=reg)
        assert rep.winner is not None and rep.winner.format == "vaud-json"


def test_schema_version_is_stamped(reg: Registry) -> None:
    import json
    doc = json.loads(bunzai.write(Persona(name="A"), "vaud-json", registry=reg).data)
    assert list(doc)[:2] == ["kind", "schema_version"]
    assert doc["schema_version"] == bunzai.model.SCHEMA_VERSION  # type: ignore[attr-defined]


def test_invalid_canonical_data_is_a_clear_error(reg: Registry) -> None:
    bad = b'{"kind": "character", "schema_version": "1.0", "name": 5}'
    with pytest.raises(MalformedInput, match="name"):
        bunzai.read(bad, registry=reg)


def test_cross_kind_write_is_refused(reg: Registry) -> None:
    from bunzai.errors import ConversionRefused
    from bunzai.host.registry import Registry as R
    from bunzai.host.types import WriteResult
    from bunzai.io.outputs import OutputFile

    from .test_detection import make

    lore = make("lore-only", 0.0, kind="lorebook")
    lore.write = lambda e, o: WriteResult([OutputFile(b"", ".x")])  # type: ignore[method-assign]
    r = R.load(autoload=False, extra=[("lore-only", lore)])
    with pytest.raises(ConversionRefused, match="cross-kind"):
        r.write([Persona(name="A")], "lore-only")

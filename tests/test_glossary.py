"""Every canonical field says what it means, and the glossary and schema show it.

A format author maps their format's keys to these fields; docs/glossary.md (generated),
``bunzai schema KIND --glossary`` and the JSON Schema's descriptions are where they learn what
``first_mes`` or ``delay_until_recursion`` is.
"""

from __future__ import annotations

import json

import pytest

from bunzai import model
from bunzai.cli import invoke
from bunzai.engine.glossary import PARTS, glossary_markdown
from bunzai.kinds import KINDS


def models() -> list[type]:
    """Every model class of bunzai.model: the kinds and the models inside them."""
    found = {model.EntityBase, *model.MODELS.values()}
    found |= {getattr(model, name) for parts in PARTS.values() for name, _ in parts}
    return sorted(found, key=lambda c: c.__name__)


def test_every_model_inside_a_kind_has_a_glossary_section() -> None:
    """A model reachable from a kind (a list item, an optional part) is in PARTS, so the
    glossary leaves none of its fields out."""
    import typing

    def inner(tp: object) -> set[type]:
        if isinstance(tp, type) and issubclass(tp, model.CanonicalModel):
            return {tp}
        return {c for a in typing.get_args(tp) for c in inner(a)}

    reachable = {c for cls in models() for f in cls.model_fields.values()
                 for c in inner(f.annotation)}
    assert reachable <= set(models()), reachable - set(models())


@pytest.mark.parametrize("cls", models(), ids=lambda c: c.__name__)
def test_every_canonical_field_is_described(cls: type) -> None:
    bare = [name for name, info in cls.model_fields.items()
            if not (info.description and info.description.strip())]
    assert not bare, f"{cls.__name__}: describe {bare} (Field(..., description=...))"


def test_the_glossary_page_lists_every_field_with_its_meaning() -> None:
    page = glossary_markdown()
    for cls in models():
        for name, info in cls.model_fields.items():
            assert f"| `{name}` |" in page and info.description.split("<")[0] in page, name


@pytest.mark.parametrize("kind", KINDS)
def test_schema_glossary_shows_the_kind_and_its_parts(kind: str) -> None:
    result = invoke("schema", kind, "--glossary")
    assert result.exit_code == 0, result.output
    out = result.stdout
    cls = model.MODELS[kind]
    for name, info in cls.model_fields.items():
        assert f"| `{name}` |" in out and info.description.split("<")[0] in out, name
    for part, _ in PARTS[kind]:
        assert f"{part} (" in out


def test_the_json_schema_describes_every_property() -> None:
    result = invoke("schema", "lorebook")
    assert result.exit_code == 0, result.output
    schema = json.loads(result.stdout)
    entry = schema["$defs"]["LorebookEntry"]["properties"]
    assert entry["delay_until_recursion"]["description"]
    assert all("description" in p for p in schema["properties"].values())

"""Legacy Backyard cards to the other character formats (BYAF included) and back."""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest

from bunzai.sdk import Character
from bunzai.testing import (
    as_input,
    conversion_problems,
    corpus_dir,
    load_registry,
    uncovered_differences,
)

FMT = "backyard"


def read_one(registry: Any, data: bytes, name: str, fmt: str) -> Character:
    _, result, _ = registry.read(as_input(data, name), format=fmt)
    ch = result.entities[0]
    assert isinstance(ch, Character)
    return ch


def sources(kit: Any) -> dict[str, bytes]:
    return {"corpus-v2": (corpus_dir() / kit.V2_PNG).read_bytes(),
            "v1": kit.card_png(kit.card(kit.inner_v1(), 1), encoding="raw"),
            "v4": kit.card_png(kit.card(kit.inner_v4(), 4))}


@cache
def _targets() -> list[str]:
    return [i.id for i in load_registry().formats("character") if i.can_write]


@pytest.mark.parametrize("target", _targets())
@pytest.mark.parametrize("source", ["corpus-v2", "v1", "v4"])
def test_every_character_format_reports_its_losses(registry: Any, kit: Any, source: str,
                                                   target: str) -> None:
    entity = read_one(registry, sources(kit)[source], f"{source}.png", FMT)
    assert conversion_problems(registry, [entity], target) == []


@pytest.mark.parametrize("target", ["backyard-byaf", "sillytavern", "risu-charx"])
def test_legacy_to_another_format_and_back(registry: Any, kit: Any, target: str) -> None:
    if target not in registry.adapters:
        pytest.skip(f"{target} is not installed")
    source = read_one(registry, kit.card_png(kit.card(kit.inner_v4(), 4)), "w.png", FMT)
    there = registry.write([source], target)
    middle = read_one(registry, there.data, "x" + there.suffix, target)
    back = registry.write([middle], FMT)
    final = read_one(registry, back.data, "y.png", FMT)
    for field in ("name", "description", "scenario", "first_mes", "mes_example",
                  "system_prompt", "tags", "creation_date"):
        assert getattr(final, field) == getattr(source, field), (target, field)
    assert final.extensions == source.extensions
    assert final.lorebook is not None and source.lorebook is not None
    assert [(e.keys, e.content) for e in final.lorebook.entries] == \
        [(e.keys, e.content) for e in source.lorebook.entries]
    for path in uncovered_differences(source, final, there.loss, registry):
        assert back.loss.covers(path), (target, path)

"""BYAF to the card formats and back: every field the target can carry survives, and whatever
changes is in a loss report.  Skipped (with the reason) when a target adapter is missing."""

from __future__ import annotations

from functools import cache
from typing import Any

import pytest

from bunzai.sdk import Character, LossReport, MalformedInput
from bunzai.testing import as_input, conversion_problems, load_registry, uncovered_differences

FMT = "backyard-byaf"
CARD_FIELDS = ("name", "description", "scenario", "first_mes", "alternate_greetings",
               "mes_example", "system_prompt", "creator", "tags")


def need(registry: Any, fmt: str) -> None:
    if fmt not in registry.adapters:
        pytest.skip(f"{fmt} is not installed")


def read_one(registry: Any, data: bytes, name: str, fmt: str | None) -> Character:
    _, result, _ = registry.read(as_input(data, name), format=fmt)
    ch = result.entities[0]
    assert isinstance(ch, Character)
    return ch


def chain(registry: Any, source: Character, target: str
          ) -> tuple[Character, Character, LossReport]:
    """source -> target -> canonical -> BYAF -> canonical, with both loss reports merged."""
    there = registry.write([source], target)
    middle = read_one(registry, there.data, "card" + there.suffix, target)
    back = registry.write([middle], FMT)
    final = read_one(registry, back.data, "again.byaf", FMT)
    loss = LossReport()
    loss.extend(there.loss)
    loss.extend(back.loss)
    return middle, final, loss


@pytest.mark.parametrize("target", ["sillytavern", "risu-charx"])
def test_byaf_to_a_card_format_and_back_keeps_what_it_can(registry: Any, kit: Any,
                                                          target: str) -> None:
    need(registry, target)
    source = read_one(registry, kit.rich_archive(), "rich.byaf", FMT)
    middle, final, loss = chain(registry, source, target)
    for field in CARD_FIELDS:
        assert getattr(middle, field) == getattr(source, field), (target, field)
        if field != "creator":
            assert getattr(final, field) == getattr(source, field), (target, field)
    # a card has no place for the author's Backyard URL, and BYAF takes an author only with
    # one: back in BYAF the creator is dropped (and reported) rather than given an invented URL
    assert final.creator == "" and loss.covers("creator")
    assert middle.extensions.get("display_name") == "Mara of the Slate Light"
    assert final.extensions == source.extensions
    assert final.lorebook is not None and source.lorebook is not None
    assert [(e.keys, e.content) for e in final.lorebook.entries] == \
        [(e.keys, e.content) for e in source.lorebook.entries]
    assert uncovered_differences(source, final, loss, registry) == []
    assert kit.schema_problems(registry.write([middle], FMT).data) == []


def test_byaf_to_charx_keeps_every_image_byte(registry: Any, kit: Any) -> None:
    need(registry, "risu-charx")
    source = read_one(registry, kit.rich_archive(), "rich.byaf", FMT)
    _, final, _ = chain(registry, source, "risu-charx")
    assert [(a.type, a.data) for a in final.assets] == [(a.type, a.data) for a in source.assets]


@cache
def _targets() -> list[str]:
    return [i.id for i in load_registry().formats("character") if i.can_write]


@pytest.mark.parametrize("target", _targets())
@pytest.mark.parametrize("fixture", ["rich_archive", "ginger_archive"])
def test_every_character_format_reports_its_losses(registry: Any, kit: Any, fixture: str,
                                                   target: str) -> None:
    _, result, _ = registry.read(as_input(getattr(kit, fixture)(), "x.byaf"), format=FMT)
    assert conversion_problems(registry, list(result.entities), target) == []


def test_cards_from_other_formats_become_valid_archives(registry: Any, kit: Any) -> None:
    """Every character the other adapters read from the corpus converts to schema-valid BYAF."""
    from bunzai.testing import corpus_files

    done = 0
    for path in corpus_files():
        rep = registry.detect(as_input(path))
        if rep.winner is None or rep.winner.kind != "character" or rep.winner.format == FMT:
            continue
        try:
            _, result, _ = registry.read(as_input(path), format=rep.winner.format)
        except MalformedInput:  # recognised but refused (a scenario-only Voxta package)
            continue
        out = registry.write(list(result.entities), FMT)
        many = len(result.entities) > 1
        assert kit.schema_problems(out.data, many=many) == [], path.name
        assert conversion_problems(registry, list(result.entities), FMT) == [], path.name
        done += 1
    if not done:
        pytest.skip("no other character adapter is installed")


def test_a_sillytavern_card_reports_only_user_data(registry: Any) -> None:
    """SillyTavern's default Seraphina into BYAF: the report names what the card says and
    Backyard cannot hold, and neither its layout nor values that ask nothing of Backyard."""
    need(registry, "sillytavern")
    from bunzai.testing import corpus_files

    found = [p for p in corpus_files("png-both") if "default_Seraphina" in p.name]
    if not found:
        pytest.skip("Seraphina is not in the corpus")
    card = read_one(registry, found[0].read_bytes(), "seraphina.png", None)
    out = registry.write([card], FMT)
    paths = [e.path for e in out.loss]
    assert conversion_problems(registry, [card], FMT) == []
    assert not [p for p in paths if "passthrough" in p or p.endswith((".id", ".position",
                                                                      ".depth", ".role"))]
    assert "lorebook.name" in paths and "creator_notes" in paths
    assert {e.reason for e in out.loss if e.path.startswith("lorebook.entries[")} == {
        "Backyard lore items hold only keys and text"}

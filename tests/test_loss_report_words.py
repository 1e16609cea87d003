"""What a user reads in a loss report: user data a target cannot hold, in words about what
they will see, and never a default, a placeholder or the file's layout.

Every file here is our own; each conversion is also checked both ways (no unreported change,
no reported non-change), so a line left out is one that loses nothing."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bunzai.host.registry import Registry
from bunzai.testing import as_input, conversion_problems


def _read(registry: Registry, obj: Any, name: str = "x.json") -> list[Any]:
    _, result, _ = registry.read(as_input(json.dumps(obj).encode(), name))
    return list(result.entities)


def _lines(registry: Registry, entities: list[Any], target: str) -> list[str]:
    """The report as ``bunzai convert --verbose`` prints it, after checking it is honest."""
    assert conversion_problems(registry, entities, target) == []
    return registry.write(entities, target).loss.lines(verbose=True)


def _targets(registry: Registry, kind: str) -> list[str]:
    return [i.id for i in registry.formats(kind) if i.can_write]


# -- placeholders and defaults are not losses ----------------------------------------------------

TAVERN_CARD = {
    "name": "Odile", "description": "Keeps the tide tables of a small harbour.",
    "personality": "patient", "scenario": "A grey morning on the quay.",
    "first_mes": "The tide turns at six.", "mes_example": "",
    # what SillyTavern writes beside the V1 fields of every card it saves
    "avatar": "none", "talkativeness": "0.5", "fav": False,
}


def test_sillytavern_no_avatar_placeholder_is_not_reported(registry: Registry) -> None:
    card = _read(registry, TAVERN_CARD)
    assert card[0].app_data["sillytavern"]["avatar"] == "none"
    for target in _targets(registry, "character"):
        lines = _lines(registry, card, target)
        assert not [line for line in lines if "app_data.sillytavern" in line], (target, lines)


def _world_entry(uid: int, **extensions: Any) -> dict[str, Any]:
    return {"uid": uid, "key": [f"key{uid}"], "keysecondary": [], "comment": "",
            "content": f"Lore number {uid}.", "constant": False, "selective": False,
            "order": 100, "position": 0, "disable": False, "addMemo": True,
            "displayIndex": uid, "extensions": extensions}


def test_entry_extension_copies_at_their_defaults_are_not_reported(registry: Registry) -> None:
    # a card book converted by another tool and saved as World Info: SillyTavern's copies of
    # the entry settings stay in extensions, at the values it gives every entry
    book = {"entries": {str(i): _world_entry(
        i, role=0, linked=False, addMemo=bool(i % 2), displayIndex=i + 1,
        excludeRecursion=False) for i in range(3)}}
    entities = _read(registry, book)
    assert entities[0].entries[0].extensions  # the copies are there to drop
    for target in _targets(registry, "lorebook"):
        lines = _lines(registry, entities, target)
        assert not [line for line in lines if "extensions" in line], (target, lines)


def test_entry_extension_copies_that_ask_something_are_still_reported(
        registry: Registry) -> None:
    book = {"entries": {"0": _world_entry(0, role=2, linked=True)}}
    lines = _lines(registry, _read(registry, book), "voxta-lorebook")
    assert any("entries[0].extensions.role" in line for line in lines), lines
    assert any("entries[0].extensions.linked" in line for line in lines), lines


@pytest.mark.parametrize("avatar", ["Odile.png"])
def test_an_avatar_file_name_is_still_reported(registry: Registry, avatar: str) -> None:
    card = _read(registry, {**TAVERN_CARD, "avatar": avatar})
    lines = _lines(registry, card, "backyard-byaf")
    assert any("app_data.sillytavern.avatar" in line for line in lines), lines


# -- a list's order is layout; an item left out is said once ------------------------------------


def _png(rgb: tuple[int, int, int]) -> bytes:
    from bunzai.io.containers.png import minimal_png

    return minimal_png(2, 2, (*rgb, 255))


@pytest.mark.parametrize("target", ["backyard", "backyard-byaf", "voxta", "risu-charx",
                                    "agnai", "sillytavern"])
def test_assets_a_writer_puts_in_its_own_order_are_not_reported(registry: Registry,
                                                               target: str) -> None:
    from bunzai.sdk import Asset, Character

    ch = Character(name="Odile", description="Keeps the tide tables.", first_mes="Six.",
                   assets=[Asset(type="background", name="quay", data=_png((90, 90, 120))),
                           Asset(type="icon", name="main", data=_png((200, 40, 40)))])
    lines = _lines(registry, [ch], target)
    # no reason sends the user to another index
    assert not [x for x in lines if "assets[" in x.partition(": ")[2]], lines
    # the portrait keeps its place in the user's eyes: it is never reported
    assert not [x for x in lines if x.split(":")[0].split()[-1].startswith("assets[1]")], lines


@pytest.mark.parametrize("target", ["backyard", "backyard-byaf"])
def test_a_disabled_entry_is_dropped_by_its_own_path_and_the_rest_move_up_once(
        registry: Registry, target: str) -> None:
    from bunzai.sdk import Character, Lorebook, LorebookEntry

    book = Lorebook(entries=[LorebookEntry(keys=[f"key{i}"], content=f"Lore {i}.",
                                           enabled=i != 1) for i in range(5)])
    ch = Character(name="Odile", description="Keeps the tide tables.", first_mes="Six.",
                   lorebook=book)
    lines = [x for x in _lines(registry, [ch], target) if "lorebook" in x]
    assert lines == [
        "dropped lorebook.entries[1]: a disabled entry; Backyard lore items are always active",
        "approximated lorebook.entries: the entries after a left-out one move up"]


@pytest.mark.parametrize("target", ["backyard", "backyard-byaf"])
def test_backyard_lore_reasons_say_what_the_user_will_see(registry: Registry,
                                                         target: str) -> None:
    from bunzai.sdk import Character, Lorebook, LorebookEntry

    book = Lorebook(entries=[
        LorebookEntry(keys=["quay"], content="Stone steps.", comment="Quay", constant=True),
        LorebookEntry(keys=["lamp"], content="Lit at dusk.", secondary_keys=["night"],
                      selective=True, position="at_depth", depth=2)])
    ch = Character(name="Odile", description="Keeps the tide tables.", first_mes="Six.",
                   lorebook=book)
    assert conversion_problems(registry, [ch], target) == []
    lines = registry.write([ch], target).loss.lines()  # as bunzai convert prints it
    assert ("dropped lorebook.entries[0].constant: Backyard puts a lore item in the prompt "
            "only when one of its keys comes up: this always-active entry now waits for its "
            "keys") in lines, lines
    assert ("dropped lorebook.entries[1].{secondary_keys, selective}: Backyard matches a lore "
            "item on its keys alone: the secondary keys no longer narrow when it fires"
            ) in lines, lines
    assert ("dropped lorebook.entries[1].{position, depth}: Backyard chooses where lore goes "
            "in the prompt: the entry's own place is gone") in lines, lines

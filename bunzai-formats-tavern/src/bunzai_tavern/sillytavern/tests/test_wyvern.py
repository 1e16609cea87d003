"""Wyvern's PNG exports: a hybrid V2 card whose book carries Wyvern's own entry settings.

The corpus holds two real exports; the card below is our own text in Wyvern's shape, with the
entry settings away from their defaults so a conversion has something to carry or report.
"""

from __future__ import annotations

import copy
import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from bunzai.sdk import thaw
from bunzai.testing import (
    Registry,
    as_input,
    conversion_problems,
    corpus_files,
    label,
    load_registry,
)
from bunzai_tavern.sillytavern.tests.fixtures import card_chunk, png_with

WYVERN = corpus_files("wyvern-png")


@cache
def reg() -> Registry:
    return load_registry()


def wyvern_card() -> dict[str, Any]:
    entry = {"entry_id": "k3Yw9-lampEntry01", "keys": ["lamp", "light"],
             "content": "{{char}} trims the lamp at dusk.", "extensions": {}, "enabled": True,
             "case_sensitive": False, "insertion_order": 10, "name": "The lamp", "priority": 3,
             "comment": "", "secondary_keys": ["oil"], "constant": False,
             "position": "before_char", "scan_persona": True, "whole_words_only": True,
             "key_logic": "NOT_ALL", "delay": 2, "sticky": 3, "cooldown": 1}
    book = {"id": "bookIdSlate01", "_id": "bookIdSlate01", "photoURL": "",
            "name": "Slate coast", "description": "Lore of the coast.", "scan_depth": 3,
            "token_budget": 800, "recursive_scanning": False, "extensions": {},
            "entries": [entry], "gallery": [], "lexicon": [], "status": "approved",
            "visibility": "public"}
    data = {"name": "Mara", "description": "{{char}} keeps the Slate Light.", "personality": "",
            "scenario": "A gale.", "first_mes": "You're late, {{user}}.", "mes_example": "",
            "creator_notes": "Ours.", "system_prompt": "", "post_history_instructions": "",
            "alternate_greetings": ["The glass is falling."], "tags": ["Fantasy"],
            "creator": "slatewright", "character_version": "",
            "extensions": {"depth_prompt": {"prompt": "{{char}} is tired.", "depth": 4},
                           "visual_description": "A grey wool coat."},
            "character_book": book}
    return {"spec": "chara_card_v2", "spec_version": "2.0", **copy.deepcopy(data),
            "data": data}


def wyvern_png(card: dict[str, Any]) -> bytes:
    return png_with(before_iend=[card_chunk("chara", card)])  # after IDAT, as Wyvern does


def chara(data: bytes | Path) -> Any:
    src = as_input(data, "x.png") if isinstance(data, bytes) else as_input(data)
    return thaw(src.png_json("chara")[0].value)


@pytest.mark.parametrize("path", WYVERN, ids=[p.name.split("__")[-2] for p in WYVERN])
def test_real_exports_round_trip_byte_for_byte_and_label_wyvern(path: Path) -> None:
    _, res, _ = reg().read(as_input(path))
    out = reg().write(res.entities, "sillytavern")
    assert not out.loss
    before, after = chara(path), chara(out.files[0].data)
    assert json.dumps(before) == json.dumps(after)  # values and key order
    got = label(reg(), path)
    assert got.app == "Wyvern" and got.confidence >= 0.75


def test_wyvern_entry_settings_are_canonical_fields() -> None:
    data = wyvern_png(wyvern_card())
    handle, res, _ = reg().read(as_input(data, "mara.png"))
    assert handle.id == "sillytavern"
    (ch,) = res.entities
    assert ch.lorebook is not None
    (entry,) = ch.lorebook.entries
    assert entry.selective_logic == "not_all"
    assert entry.match_persona_description is True
    assert entry.match_whole_words is True
    assert (entry.delay, entry.sticky, entry.cooldown) == (2, 3, 1)
    assert entry.app_data["sillytavern"] == {"entry_id": "k3Yw9-lampEntry01"}
    out = reg().write([ch], "sillytavern")
    assert not out.loss and chara(out.files[0].data) == wyvern_card()


def test_an_edited_setting_goes_back_under_wyverns_key() -> None:
    (ch,) = reg().read(as_input(wyvern_png(wyvern_card()), "mara.png"))[1].entities
    assert ch.lorebook is not None
    ch.lorebook.entries[0].delay = 5
    ch.lorebook.entries[0].selective_logic = "and_all"
    card = chara(reg().write([ch], "sillytavern").files[0].data)
    entry = card["data"]["character_book"]["entries"][0]
    assert entry["delay"] == 5 and entry["key_logic"] == "AND_ALL"
    assert entry["extensions"] == {}  # not duplicated under SillyTavern's names


@pytest.mark.parametrize("target", ["sillytavern", "risu-charx", "risu", "backyard-byaf",
                                    "backyard", "agnai", "pygmalion", "rolecall", "voxta"])
def test_conversions_carry_or_report_every_wyvern_setting(target: str) -> None:
    if target not in reg().adapters:
        pytest.skip(f"{target} is not installed")
    (ch,) = reg().read(as_input(wyvern_png(wyvern_card()), "mara.png"))[1].entities
    ch.passthrough.clear()  # as if it came from another format: nothing restores the shape
    problems = conversion_problems(reg(), [ch], target)
    assert not problems, problems
    out = reg().write([ch], target)
    reported = {e.path for e in out.loss}
    back = [e for f in out.files for e in reg().read(as_input(f.data, f"x{f.suffix}"),
                                                     format=target)[1].entities]
    assert back[0].lorebook is not None or "lorebook" in reported
    if back[0].lorebook is not None:
        entry = back[0].lorebook.entries[0]
        for field, value in (("selective_logic", "not_all"),
                             ("match_persona_description", True),
                             ("match_whole_words", True), ("delay", 2), ("sticky", 3),
                             ("cooldown", 1)):
            if getattr(entry, field) != value:
                assert f"lorebook.entries[0].{field}" in reported or "lorebook" in reported


def test_sillytavern_json_gets_the_settings_under_its_own_names() -> None:
    (ch,) = reg().read(as_input(wyvern_png(wyvern_card()), "mara.png"))[1].entities
    ch.passthrough.clear()
    assert ch.lorebook is not None
    for e in [ch.lorebook, *ch.lorebook.entries]:
        e.passthrough.clear()
    card = json.loads(reg().write([ch], "sillytavern", {"container": "json"}).files[0].data)
    ext = card["data"]["character_book"]["entries"][0]["extensions"]
    assert ext["selectiveLogic"] == 1 and ext["match_whole_words"] is True
    assert ext["match_persona_description"] is True
    assert (ext["delay"], ext["sticky"], ext["cooldown"]) == (2, 3, 1)

"""Inputs the fuzzer found that once escaped with a non-bunzai exception, kept as regressions.

Each finding is rebuilt here from code, reduced to what triggers it, with our own text (the
fuzzer's raw input was a mutation of a real card).  Inputs that cannot be rebuilt readably are
stored as small ``*.bin`` files next to this module.  ``tests/test_fuzz_regressions.py`` runs
every one through the fuzz harness (the whole read path, every same-kind writer) and the CLI.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent


@dataclass(frozen=True)
class Regression:
    name: str
    data: bytes
    filename: str
    found: str
    """What escaped before the fix, and where it was fixed."""


def _card(**data: object) -> dict[str, object]:
    body: dict[str, object] = {
        "name": "Marrow", "description": "{{char}} mends nets on the pier.", "personality": "",
        "scenario": "", "first_mes": "Mind the hooks.", "mes_example": "", "creator_notes": "",
        "system_prompt": "", "post_history_instructions": "", "alternate_greetings": [],
        "tags": [], "creator": "", "character_version": "", "extensions": {},
    }
    body.update(data)
    return {"spec": "chara_card_v2", "spec_version": "2.0", "data": body}


def _dump(obj: object) -> bytes:
    return json.dumps(obj).encode()


def _charx_lone_surrogate() -> bytes:
    from bunzai.io.containers.zipsafe import write_zip

    card = _card(extensions={"risuai": {"counter": 10**20}}, description="half a pair: \ud800")
    card.update(spec="chara_card_v3", spec_version="3.0")
    module = {"module": {"name": "m", "description": "\ud800", "lorebook": [],
                         "regex": [], "id": "x", "counter": 10**20}, "type": "risuModule"}
    return write_zip([("card.json", _dump(card)), ("module.json", _dump(module))])


def _byaf_message_owner_is_a_list() -> bytes:
    from bunzai.api import write
    from bunzai.io.containers.zipsafe import SafeZip, write_zip
    from bunzai.model import Character

    archive = write(Character(name="Marrow", first_mes="Mind the hooks.",
                              mes_example="<START>\n{{char}}: Nets first."),
                    "backyard-byaf").files[0].data
    z = SafeZip.open(archive)
    entries = []
    for name in z.names():
        data = b"" if name.endswith("/") else z.read(name)
        if name.startswith("scenarios/") and name.endswith(".json"):
            doc = json.loads(data)
            for key in ("firstMessages", "exampleMessages"):
                for item in doc.get(key) or []:
                    item["characterID"] = ["not", "an", "id"]
            data = _dump(doc)
        entries.append((name, data))
    return write_zip(entries)


def _risum_trigger_effect_not_a_list() -> bytes:
    from bunzai_risu._common import risum

    module = {"name": "Tides", "description": "", "id": "tides", "lorebook": [], "regex": [],
              "trigger": [{"comment": "", "type": "start", "conditions": [], "effect": True}]}
    return risum.encode(risum.dump_main(module), [])


def _backyard_chat_items_not_a_list() -> bytes:
    from bunzai.api import write
    from bunzai.model import Character

    doc = json.loads(write(Character(name="Marrow", first_mes="Mind the hooks."), "backyard",
                           container="json").files[0].data)
    doc["character"]["Chat"] = [{"ChatItems": 5}]
    return _dump(doc)


_BUILDERS: list[Callable[[], Regression]] = [
    lambda: Regression(
        "persona-linked-lorebook-validate",
        _dump({"personas": {"ann.png": "Ann"},
               "persona_descriptions": {"ann.png": {"description": "A ferry pilot.",
                                                    "position": 0, "lorebook": "Coast"}}}),
        "personas.json",
        "validate: AttributeError 'str' object has no attribute 'entries' (a persona's lorebook "
        "is the name of a linked book); fixed in bunzai/validate.py"),
    lambda: Regression(
        "integer-beyond-64-bits-to-backyard",
        _dump(_card(character_book={"entries": [{
            "keys": ["pier"], "content": "The pier is old.", "enabled": True,
            "insertion_order": 1, "extensions": {"counter": 10**20}}], "extensions": {}})),
        "card.json",
        "write sillytavern->backyard: TypeError 'Integer exceeds 64-bit range' from orjson; fixed "
        "in bunzai_backyard/_common/util.py (digest) and legacy/write.py"),
    lambda: Regression(
        "lone-surrogate-with-big-integer",
        _dump(_card(description="half a pair: \ud800", extensions={"counter": 10**20})),
        "card.json",
        "JSON holding an integer beyond 64 bits went to the standard-library parser, which "
        "accepts a lone surrogate escape; writing it back raised UnicodeEncodeError (found in a "
        "charx's module); fixed in bunzai/jsonio.py (refused like orjson refuses it)"),
    lambda: Regression(
        "charx-lone-surrogate-with-big-integer", _charx_lone_surrogate(), "card.charx",
        "read risu-charx: UnicodeEncodeError in jsonio.dumps; fixed in bunzai/jsonio.py"),
    lambda: Regression(
        "byaf-message-owner-is-a-list", _byaf_message_owner_is_a_list(), "card.byaf",
        "read backyard-byaf: TypeError unhashable type 'list' (a message's characterID looked "
        "up in a set); fixed in bunzai_backyard/byaf/read.py"),
    lambda: Regression(
        "creation-date-beyond-iso-to-agnai",
        _dump({**_card(creation_date=10**15, modification_date=-(10**14)),
               "spec": "chara_card_v3", "spec_version": "3.0"}),
        "card.json",
        "write ->agnai: OverflowError/ValueError from datetime.fromtimestamp on a date no ISO "
        "string can hold; now reported as dropped, in bunzai_tavern/agnai/fields.py"),
    lambda: Regression(
        "risum-trigger-effect-not-a-list", _risum_trigger_effect_not_a_list(), "m.risum",
        "validate risu-module: TypeError 'bool' object is not iterable (a trigger whose effect "
        "is not a list); fixed in bunzai_risu/module/read.py"),
    lambda: Regression(
        "backyard-chat-items-not-a-list", _backyard_chat_items_not_a_list(), "card.json",
        "read backyard: TypeError object of type 'int' has no len() (a chat whose ChatItems "
        "is a number; found by the CI fuzz run in a WebP UserComment); fixed in "
        "bunzai_backyard/legacy/read.py"),
    lambda: Regression(
        "novelai-category-id-not-text",
        _dump({"lorebookVersion": 4,
               "entries": [{"text": "The lighthouse keeper counts ships.", "keys": ["keeper"],
                            "category": "c1"}],
               "categories": [{"id": {"nested": "id"}, "name": "Harbour"}]}),
        "harbour.lorebook",
        "validate novelai-lorebook: TypeError unhashable type 'dict' (a category whose id is "
        "an object; found by the CI fuzz run); fixed in bunzai_novelai/novelai_lorebook/read.py"),
]


def regressions() -> list[Regression]:
    """Every kept finding: the built ones, then the stored ``*.bin`` files."""
    found = [build() for build in _BUILDERS]
    for path in sorted(HERE.glob("*.bin")):
        found.append(Regression(path.stem, path.read_bytes(), path.name,
                                (path.with_suffix(".txt").read_text().strip()
                                 if path.with_suffix(".txt").exists() else "")))
    return found

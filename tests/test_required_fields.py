"""Every V2/V3 card bunzai writes from a V1 (or partial) card carries every field its spec
requires, with the spec's defaults, and reports nothing for it (a default is not a loss).  A
rewrite in the card's own format and spec keeps the source's shape, gaps included."""

from __future__ import annotations

import json

import pytest

from bunzai.host.registry import Registry
from bunzai.io.input import as_input
from bunzai.sdk.cards import COMPLETED_KEYS
from bunzai.testing import without_completed

V2_DATA = ("name", "description", "personality", "scenario", "first_mes", "mes_example",
           "creator_notes", "system_prompt", "post_history_instructions", "alternate_greetings",
           "tags", "creator", "character_version", "extensions")
V3_DATA = (*V2_DATA, "group_only_greetings")
BOOK_ENTRY = ("keys", "content", "extensions", "enabled", "insertion_order")

V1_CARD = {"name": "Odile", "description": "Keeps the tide tables of a small harbour.",
           "personality": "patient", "scenario": "", "first_mes": "The tide turns at six.",
           "mes_example": "<START>\n{{user}}: When?\n{{char}}: At six."}
PARTIAL_V2 = {"spec": "chara_card_v2", "spec_version": "2.0", "data": {
    "name": "Odile", "description": "Keeps the tide tables.", "first_mes": "Six o'clock.",
    "character_book": {"entries": [{"keys": ["quay"], "content": "Stone steps."}]}}}

OUTPUTS = [("sillytavern", {"container": "png"}), ("sillytavern", {"chunks": "chara"}),
           ("sillytavern", {"container": "json", "spec": "v2"}),
           ("sillytavern", {"container": "json", "spec": "v3"}),
           ("rolecall", {"container": "json", "spec": "v3"}), ("risu", {"container": "png"}),
           ("risu", {"container": "json"}), ("risu-charx", {}), ("pygmalion", {"shape": "chat"})]


def _cards(data: bytes, suffix: str) -> list[dict]:
    inp = as_input(data, f"out{suffix}")
    if inp.container == "json":
        obj = json.loads(data)
        return [obj.get("character", obj)]
    if inp.container == "png":
        return [p.mutable() for kw in ("chara", "ccv3") for p in inp.png_json(kw)]
    return [json.loads(inp.zip.read("card.json"))]  # type: ignore[union-attr]


@pytest.mark.parametrize("source", ["v1", "partial-v2"])
@pytest.mark.parametrize(("target", "options"), OUTPUTS,
                         ids=[f"{t}-{'-'.join(o.values()) or 'default'}" for t, o in OUTPUTS])
def test_every_required_field_is_there(registry: Registry, source: str, target: str,
                                       options: dict[str, str]) -> None:
    doc = V1_CARD if source == "v1" else PARTIAL_V2
    _, res, _ = registry.read(as_input(json.dumps(doc).encode(), "odile.json"))
    out = registry.write(res.entities, target, options)
    cards = _cards(out.data, out.suffix)
    assert cards
    for card in cards:
        data = card["data"]
        if source == "partial-v2" and target == "sillytavern" and card["spec"] == "chara_card_v2":
            # its own format and spec: as it was, with what the spec requires added
            assert without_completed(PARTIAL_V2["data"], data,
                                     [k[5:] for k in COMPLETED_KEYS if k.startswith("data.")]
                                     ) == PARTIAL_V2["data"]
        required = V3_DATA if card["spec"] == "chara_card_v3" else V2_DATA
        assert card["spec_version"] == ("3.0" if card["spec"] == "chara_card_v3" else "2.0")
        missing = [k for k in required if k not in data]
        assert not missing, (card["spec"], missing)
        assert isinstance(data["extensions"], dict) and data["tags"] == []
        assert data["creator"] == "" and data["character_version"] == ""
        book = data.get("character_book")
        if book is not None:
            assert isinstance(book["extensions"], dict)
            for entry in book["entries"]:
                assert all(k in entry for k in BOOK_ENTRY), entry
                if card["spec"] == "chara_card_v3":
                    assert isinstance(entry["use_regex"], bool)
    filled = {"tags", "creator", "character_version", "creator_notes", "system_prompt",
              "post_history_instructions", "alternate_greetings", "extensions",
              "group_only_greetings", "personality", "scenario", "mes_example"}
    assert not [e.path for e in out.loss if e.path in filled], [str(e) for e in out.loss]

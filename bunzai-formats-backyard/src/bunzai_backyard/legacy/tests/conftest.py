"""Fixtures for the legacy Backyard tests: cards and PNGs built here from our own text."""

from __future__ import annotations

import base64
import json
import sys
import zlib
from typing import Any

import pytest

from bunzai.sdk.exif import build_exif_user_comment
from bunzai.sdk.png import PNG_SIGNATURE, make_chunk, make_text_chunk, minimal_png
from bunzai.testing import load_registry

STAMP = "2024-02-03T04:05:06.789Z"
V2_PNG = "other/other__ahoylabs_byaf__v2__b1152a4dc5.png"


def inner_v1(**over: Any) -> dict[str, Any]:
    """A version 1 character (mirostat samplers), with a chat history."""
    obj: dict[str, Any] = {
        "aiDisplayName": "Wren the Ferrywoman", "aiName": "Wren",
        "aiPersona": "{character} rows travellers across a grey river.",
        "basePrompt": "Text transcript of a conversation between {user} and {character}.",
        "createdAt": STAMP, "updatedAt": STAMP,
        "customDialogue": "#{user}: How much?\n#{character}: One coin, {user}.",
        "firstMessage": "*{character} holds out a hand.*", "grammar": None,
        "id": "clferry000000000000000001", "isNSFW": False, "model": "river-7b.q5.gguf",
        "repeatLastN": 64, "repeatPenalty": 1.2, "scenario": "Fog on the water.",
        "temperature": 0.6, "topK": 40, "topP": 0.85, "mirostatEnabled": False,
        "mirostatLearningRate": 0.1, "mirostatEntropy": 5,
        "Chat": [{"id": "chat1", "name": "", "modelConfigId": "clferry000000000000000001",
                  "authorNote": "", "createdAt": STAMP, "updatedAt": STAMP,
                  "ChatItems": [{"id": "item1", "input": "A private question",
                                 "output": "A private answer", "createdAt": STAMP,
                                 "updatedAt": STAMP,
                                 "RegenSwipes": [{"id": "sw1", "text": "A private answer",
                                                  "createdAt": STAMP, "updatedAt": STAMP,
                                                  "activeTimestamp": STAMP}]}]}],
        "loreItems": [],
    }
    obj.update(over)
    return obj


def inner_v4(**over: Any) -> dict[str, Any]:
    """A version 4 character: prompt template, canDeleteCustomDialogue, ordered lore."""
    obj = inner_v1(Chat=[])
    for key in ("mirostatEnabled", "mirostatLearningRate", "mirostatEntropy"):
        del obj[key]
    obj.update({"minP": 0.1, "minPEnabled": True, "promptTemplate": "Llama3",
                "canDeleteCustomDialogue": False, "isNSFW": True, "firstMessage": None,
                "loreItems": [
                    {"id": "lore2", "key": "river,ford", "value": "{character} knows the ford.",
                     "order": "a1", "createdAt": STAMP, "updatedAt": STAMP},
                    {"id": "lore1", "key": "coin", "value": "Coins are stamped with owls.",
                     "order": "a0", "createdAt": STAMP, "updatedAt": STAMP}]})
    obj.update(over)
    return obj


def card(inner: dict[str, Any], version: int) -> dict[str, Any]:
    return {"character": inner, "version": version}


def exif_png(payload: bytes, *, extra: list[bytes] | None = None, raw_json: bool = False,
             before_idat: bool = True) -> bytes:
    """A PNG holding ``payload`` in its eXIf UserComment, plus ``extra`` chunks after IHDR."""
    base = minimal_png(2, 2, (10, 90, 160, 255))
    ihdr, rest = base[8:33], base[33:]
    exif = make_chunk(b"eXIf", build_exif_user_comment(payload))
    parts = [PNG_SIGNATURE, ihdr, *(extra or [])]
    if before_idat:
        parts += [exif, rest]
    else:
        parts += [rest[:-12], exif, rest[-12:]]
    return b"".join(parts)


def card_png(obj: dict[str, Any], *, encoding: str = "base64", **kw: Any) -> bytes:
    text = json.dumps(obj, separators=(",", ":")).encode()
    return exif_png(base64.b64encode(text) if encoding == "base64" else text, **kw)


def tavern_v2(name: str) -> dict[str, Any]:
    return {"spec": "chara_card_v2", "spec_version": "2.0", "data": {
        "name": name, "description": "{{char}} rows travellers across a grey river.",
        "personality": "", "scenario": "Fog on the water.",
        "first_mes": "*{{char}} holds out a hand.*", "mes_example": "",
        "creator_notes": "", "system_prompt": "", "post_history_instructions": "",
        "alternate_greetings": [], "tags": [], "creator": "", "character_version": "",
        "extensions": {"ginger": {"version": 1}}}}


def hybrid_png() -> bytes:
    """What Ginger writes: a Backyard eXIf card, a Tavern chara chunk and its own zTXt."""
    chara = base64.b64encode(json.dumps(tavern_v2("Wren")).encode()).decode()
    ginger = base64.b64encode(zlib.compress(b"<Ginger><Name>Wren</Name></Ginger>")).decode()
    return card_png(card(inner_v4(), 4), extra=[make_text_chunk("chara", chara),
                                                make_text_chunk("ginger", ginger, "zTXt")])


@pytest.fixture(scope="session")
def registry() -> Any:
    return load_registry()


@pytest.fixture(scope="session")
def kit() -> Any:
    """This module: the card builders, for the test modules."""
    return sys.modules[__name__]

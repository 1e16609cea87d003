"""What each app's importer checks before it takes a chat, applied to what bunzai writes.

The rules are the apps' own, restated from their sources: SillyTavern's ``/api/chats/import``
(``src/endpoints/chats.js``), TavernAI 1.5's ``/importchat``, Agnai's ``ImportChat.tsx`` and
``srv/api/chat/create.ts`` validators, RisuAI's ``importChat`` and text-generation-webui's
``load_history_json``.  Every chat bunzai can read (the generated examples, every real chat) is
written in each format and the output must pass the importer of that format's app.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bunzai.host.registry import Registry
from bunzai.io.input import as_input
from bunzai.testing import corpus_files, require_corpus
from bunzai.testing.generated import canonical_examples

require_corpus()


def _jsonl(data: bytes) -> list[Any]:
    return [json.loads(line) for line in data.split(b"\n") if line.strip()]


def sillytavern(data: bytes) -> None:
    header = json.loads(data.split(b"\n")[0])  # chats.js: JSON.parse(lines[0])
    assert "user_name" in header or "name" in header or "chat_metadata" in header
    for msg in _jsonl(data)[1:]:  # the front end renders mes and trusts is_user / name
        assert isinstance(msg["mes"], str) and isinstance(msg["is_user"], bool)
        assert isinstance(msg["name"], str)


def tavernai(data: bytes) -> None:
    first = json.loads(data.split(b"\n")[0])
    assert first.get("user_name") is not None  # server.js /importchat
    for msg in _jsonl(data)[1:]:
        assert isinstance(msg["mes"], str) and isinstance(msg["send_date"], int)


def agnai(data: bytes) -> None:
    doc = json.loads(data)
    for key in ("name", "greeting", "scenario", "sampleChat"):  # ImportChat.tsx importValid
        assert isinstance(doc[key], str), key
    for msg in doc["messages"]:
        assert isinstance(msg["msg"], str)
        for key in ("characterId", "userId", "handle"):
            assert key not in msg or isinstance(msg[key], str), key
        assert "ooc" not in msg or isinstance(msg["ooc"], bool)
        assert all(isinstance(r, str) for r in msg.get("retries", []))


def risu(data: bytes) -> None:
    doc = json.loads(data)
    assert doc["type"] in ("risuChat", "risuAllChats") and doc["ver"] in (1, 2)
    chats = doc["data"] if isinstance(doc["data"], list) else [doc["data"]]
    for chat in chats:  # ver 1 insists on these four; ver 2 uses them all the same
        for key in ("message", "note", "name", "localLore"):
            assert chat.get(key) is not None, key
        for msg in chat["message"]:
            assert msg["role"] in ("user", "char") and isinstance(msg["data"], str)


def oobabooga(data: bytes) -> None:
    doc = json.loads(data)
    assert "internal" in doc and "visible" in doc  # load_history_json
    assert len(doc["internal"]) == len(doc["visible"])
    assert all(len(row) == 2 for row in doc["internal"])


def backyard(data: bytes) -> None:
    doc = json.loads(data)
    assert isinstance(doc["version"], int)
    for item in doc["chat"]["ChatItems"]:
        assert isinstance(item["input"], str) and isinstance(item["output"], str)


RULES: dict[str, Callable[[bytes], None]] = {
    "sillytavern-chat": sillytavern, "tavernai-chat": tavernai, "agnai-chat": agnai,
    "risu-chat": risu, "oobabooga-chat": oobabooga, "backyard-chat": backyard,
}


def _sources() -> list[Any]:
    out = [pytest.param(None, v, id=f"generated-{v}") for v in ("rich", "minimal")]
    for path in corpus_files("st-chat", "st-group-chat", "tavernai-chat", "backyard-chat"):
        if path.stat().st_size:
            out.append(pytest.param(path, None, id=path.name.split("__")[-2]))
    return out


@pytest.mark.parametrize("target", sorted(RULES))
@pytest.mark.parametrize(("path", "variant"), _sources())
def test_the_apps_importer_takes_what_bunzai_writes(registry: Registry, target: str,
                                                    path: Path | None,
                                                    variant: str | None) -> None:
    if target not in registry.adapters:
        pytest.skip(f"{target} not installed")
    if path is None:
        entities = canonical_examples("chat", variant or "rich")
    else:
        _, res, _ = registry.read(as_input(path))
        entities = res.entities
    for f in registry.write(entities, target).files:
        RULES[target](f.data)

"""A chat-completion preset bunzai writes is one RisuAI's importer takes as a SillyTavern preset.

RisuAI (``src/ts/storage/database.svelte.ts``, ``importPreset``) parses the JSON, treats
``presetVersion`` 3 or more as a NovelAI preset, and takes the SillyTavern path only when the
first ``prompt_order`` entry has an ``order`` list and ``prompts`` is a list; otherwise it keeps
the object as one of its own presets (SillyTavern's 0–2 temperature then reads as 0–0.02).  On
that path it multiplies ``temperature``, ``frequency_penalty`` and ``presence_penalty`` by 100
(a missing presence penalty becomes NaN), reads ``top_p``, and walks the first order: an enabled
identifier with no prompt is skipped.
"""

from __future__ import annotations

import json
from numbers import Real
from pathlib import Path
from typing import Any

import pytest

from bunzai import api
from bunzai.sdk import Preset
from bunzai.testing import presets_corpus_dir, shared_dir

FID = "sillytavern-openai"
LIBRARY = shared_dir() / "libraries" / "st-user-2208096" / "default-user" / "OpenAI Settings"


def risu_problems(data: bytes) -> list[str]:
    """Why RisuAI's importer would not take ``data`` as a SillyTavern preset, whole."""
    doc: Any = json.loads(data)
    if not isinstance(doc, dict):
        return ["not a JSON object"]
    out = []
    version = doc.get("presetVersion")
    if isinstance(version, Real) and version >= 3:
        out.append("presetVersion 3 or more: imported as a NovelAI preset")
    orders, prompts = doc.get("prompt_order"), doc.get("prompts")
    first = orders[0] if isinstance(orders, list) and orders else None
    if not (isinstance(first, dict) and isinstance(first.get("order"), list)
            and isinstance(prompts, list)):
        return [*out, "no prompt_order[0].order list and prompts list: not a SillyTavern preset"]
    ids = {p.get("identifier") for p in prompts if isinstance(p, dict)}
    for item in first["order"]:
        if isinstance(item, dict) and item.get("enabled") and item.get("identifier") not in ids:
            out.append(f"enabled prompt {item.get('identifier')!r} has no entry: skipped")
    for key in ("temperature", "frequency_penalty", "presence_penalty", "top_p"):
        if not isinstance(doc.get(key), Real) or isinstance(doc.get(key), bool):
            out.append(f"{key} is not a number: RisuAI fills in its own or gets NaN")
    return out


def _sources() -> list[Path]:
    return sorted((presets_corpus_dir() / "st-openai").glob("*.json")) + sorted(
        LIBRARY.glob("*.json"))


@pytest.mark.parametrize("path", _sources(), ids=lambda p: p.name)
def test_sillytavern_presets_rewritten_pass_risus_import(path: Path) -> None:
    out = api.write(api.read(path.read_bytes(), filename=path.name), FID)
    assert risu_problems(out.files[0].data) == []


@pytest.mark.parametrize("source", [
    Preset(name="Samplers only", sampling={"temperature": 0.7, "top_p": 0.9}),
    Preset(name="A system prompt", system_prompt={"content": "Keep the lamp lit."}),
    Preset(),
], ids=["samplers", "system-prompt", "empty"])
def test_presets_from_other_apps_pass_risus_import(source: Preset) -> None:
    out = api.write(source, FID)
    assert risu_problems(out.files[0].data) == []


def test_the_check_rejects_what_risu_would_not_take() -> None:
    assert risu_problems(b'{"temperature": 1, "prompts": []}')
    assert risu_problems(b'{"prompt_order": [{"order": [{"identifier": "main", '
                         b'"enabled": true}]}], "prompts": [], "temperature": 1, '
                         b'"frequency_penalty": 0, "presence_penalty": 0, "top_p": 1}')

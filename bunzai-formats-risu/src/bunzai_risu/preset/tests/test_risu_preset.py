"""risu-preset: RisuAI's packed, encrypted presets read by meaning."""

from __future__ import annotations

import gzip
import hashlib
from pathlib import Path
from typing import Any

import msgpack
import pytest
from cryptography.hazmat.primitives.ciphers.aead import AESGCM

from bunzai import api
from bunzai.sdk import MalformedInput, Preset
from bunzai.sdk.prompts import render_difference
from bunzai.testing import samples_dir
from bunzai_risu._common import rpack

FID = "risu-preset"
SAMPLE = samples_dir() / "risu" / "gen_risu_preset.risup"


def pack(preset: dict[str, Any], key: bytes = b"risupreset") -> bytes:
    """A .risup the way RisuAI's downloadPreset builds one (our own preset inside)."""
    sealed = AESGCM(hashlib.sha256(key).digest()).encrypt(bytes(12), msgpack.packb(preset),
                                                          None)
    outer = msgpack.packb({"presetVersion": 2, "type": "preset", "preset": sealed})
    return rpack.encode(gzip.compress(outer))


def read(data: bytes, name: str = "Ferry_preset.risup") -> Preset:
    got = api.read(data, filename=name)
    assert isinstance(got, Preset)
    return got


@pytest.mark.skipif(not SAMPLE.exists(), reason="samples not available")
def test_the_sample_reads_in_canonical_units() -> None:
    p = read(SAMPLE.read_bytes(), SAMPLE.name)
    assert p.name == "Sample preset"
    assert (p.sampling.temperature, p.sampling.frequency_penalty) == (0.8, 0.7)
    assert (p.sampling.max_tokens, p.sampling.max_context) == (300, 4000)
    assert p.chat_completion.prompts[0].content == "You are {{char}}."


@pytest.mark.skipif(not SAMPLE.exists(), reason="samples not available")
def test_converted_to_sillytavern_it_reports_nothing_and_builds_the_same_prompt() -> None:
    src = read(SAMPLE.read_bytes(), SAMPLE.name)
    out = api.write(src, "sillytavern-openai", verify=True)
    assert not list(out.loss)
    back = api.read(out.files[0].data, format="sillytavern-openai")
    assert render_difference(api.get_registry(), src, back) is None


def test_the_prompt_template_becomes_the_prompt_list() -> None:
    p = read(pack({"name": "Ferry", "temperature": 105, "top_k": 40, "promptTemplate": [
        {"type": "plain", "type2": "main", "text": "Steer the ferry.", "role": "system"},
        {"type": "description"},
        {"type": "chat", "rangeStart": 0, "rangeEnd": "end"},
        {"type": "chat", "rangeStart": -4, "rangeEnd": "end"},
        {"type": "jailbreak", "type2": "normal", "text": "Stay in the wheelhouse.",
         "role": "bot"},
        {"type": "memory"},
    ], "localStopStrings": ["\nAda:"], "aiModel": "openrouter"}))
    assert p.sampling.temperature == 1.05 and p.sampling.top_k == 40
    ids = [e.identifier for e in p.chat_completion.prompts]
    assert ids == ["main", "charDescription", "chatHistory", "risu-3", "risu-4", "risu-5"]
    partial = p.chat_completion.prompts[3]
    assert partial.app_data[FID] == {"rangeStart": -4, "rangeEnd": "end"}
    assert p.chat_completion.prompts[4].role == "assistant"
    assert p.app_data[FID] == {"aiModel": "openrouter"}
    out = api.write(p, "sillytavern-openai")
    assert f"chat_completion.prompts[3].app_data.{FID}.rangeStart" in {e.path for e in out.loss}


def test_a_preset_sealed_with_another_key_is_named_not_read() -> None:
    with pytest.raises(MalformedInput, match="does not decrypt"):
        read(pack({"name": "x"}, key=b"another"))


def test_a_truncated_file_is_refused_clearly(tmp_path: Path) -> None:
    path = tmp_path / "cut.risup"
    path.write_bytes(pack({"name": "Ferry", "temperature": 80})[:30])
    with pytest.raises(MalformedInput, match=r"cut\.risup"):
        api.read(path)

"""koboldai-lite-settings: Lite's settings read by meaning from a settings file or a save, and
written as a file Lite's loader imports."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest

from bunzai import api
from bunzai.sdk import Preset
from bunzai.testing import Registry, as_input, corpus_files, load_registry

FID = "koboldai-lite-settings"
SAMPLES = Path(__file__).parent / "samples"
REAL = corpus_files("kobold-lite-save")


@cache
def reg() -> Registry:
    return load_registry()


def read(path: Path, fmt: str | None = None) -> tuple[Preset, list[str]]:
    handle, res, _ = reg().read(as_input(path), format=fmt)
    assert handle.id == FID
    got = res.entities[0]
    assert isinstance(got, Preset)
    return got, [w.message for w in res.warnings]


@pytest.mark.skipif(not REAL, reason="chat corpus not available")
def test_a_real_save_is_a_chat_first_and_its_settings_are_read_by_name() -> None:
    assert api.detect(REAL[0].read_bytes(), str(REAL[0])).winner.format == "koboldai-lite"
    p, warnings = read(REAL[0], FID)
    assert any("story" in w for w in warnings)
    assert (p.sampling.temperature, p.sampling.repetition_penalty) == (0.75, 1.07)
    assert p.sampling.sampler_order[:2] == ["repetition_penalty", "top_k"]
    assert p.sampling.dynamic_temperature is False
    assert p.instruct.user_prefix == "{{[INPUT]}}" and p.reasoning.prefix == "<think>"


def test_dynamic_temperature_is_a_range_around_the_temperature() -> None:
    p, _ = read(SAMPLES / "lite-settings-lighthouse.json")
    s = p.sampling
    assert (s.dynamic_temperature, s.dynatemp_low, s.dynatemp_high) == (True, 0.4, 1.0)
    assert s.stop_strings == ["\n### Question:", "</log>"]
    assert p.instruct.system_prompt_prefix == "\n### Log:\n"


def test_a_range_off_centre_is_approximated_with_both_values_shown() -> None:
    src = Preset(sampling={"temperature": 0.7, "dynamic_temperature": True,
                           "dynatemp_low": 0.5, "dynatemp_high": 1.5})
    out = api.write(src, FID)
    got = json.loads(out.files[0].data)["savedsettings"]
    assert got["dynatemp_range"] == 0.5 and got["temperature"] == 0.7
    lines = {e.path: e.reason for e in out.loss}
    assert "0.5–1.5" in lines["sampling.dynatemp_low"]
    assert "0.2–1.2" in lines["sampling.dynatemp_low"]


def test_written_settings_are_what_lites_loader_imports() -> None:
    src = api.read(b'{"temp": 1.1, "rep_pen": 1.1, "top_k": 40, "typical": 1, '
                   b'"sampler_order": [6, 0, 1, 3, 4, 2, 5]}', filename="Kobold.json")
    out = api.write(src, FID)
    doc = json.loads(out.files[0].data)
    # Lite's kai_json_load: no "actions" means a share file; savedsettings is imported whole
    assert list(doc) == ["savedsettings"] and "actions" not in doc
    assert doc["savedsettings"]["temperature"] == 1.1
    assert doc["savedsettings"]["sampler_order"] == [6, 0, 1, 3, 4, 2, 5]

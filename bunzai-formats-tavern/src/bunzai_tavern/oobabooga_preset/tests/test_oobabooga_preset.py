"""oobabooga-preset: text-generation-webui sampler presets read by meaning and written as the
app's loader takes them."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest
import yaml

from bunzai import api
from bunzai.sdk import MalformedInput, Preset
from bunzai.testing import Registry, as_input, load_registry, presets_corpus_dir

FID = "oobabooga-preset"
SAMPLES = Path(__file__).parent / "samples"
REAL = sorted((presets_corpus_dir() / "ooba-preset").glob("*.yaml"))


@cache
def reg() -> Registry:
    return load_registry()


def read(path: Path) -> Preset:
    handle, res, _ = reg().read(as_input(path))
    assert handle.id == FID
    got = res.entities[0]
    assert isinstance(got, Preset)
    return got


@pytest.mark.skipif(not REAL, reason="preset corpus not available")
def test_shipped_presets_read_by_meaning() -> None:
    p = read(presets_corpus_dir() / "ooba-preset" / "tfs-with-top-a.yaml")
    assert (p.sampling.temperature, p.sampling.tfs, p.sampling.top_a) == (0.7, 0.95, 0.2)
    assert p.sampling.repetition_penalty == 1.15 and p.sampling.top_k is None


def test_sampler_priority_and_dry_breakers_are_lists() -> None:
    p = read(SAMPLES / "ooba-preset-ferry.yaml")
    assert p.sampling.sampler_order == ["repetition_penalty", "dry", "temperature",
                                        "smoothing", "min_p", "xtc"]
    assert p.sampling.dry_sequence_breakers == ["\n", ":", '"', "*"]
    assert p.app_data[FID] == {"adaptive_target": 0.3}


def test_a_text_completion_preset_becomes_what_the_loader_reads() -> None:
    src = Preset(sampling={"temperature": 1.2, "top_k": 40, "sampler_order": ["smoothing",
                                                                              "top_k"],
                           "dry_sequence_breakers": ["\n", "*"], "max_tokens": 300})
    out = api.write(src, FID)
    data = yaml.safe_load(out.files[0].data)
    assert data == {"temperature": 1.2, "top_k": 40,
                    "sampler_priority": "quadratic_sampling\ntop_k",
                    "dry_sequence_breakers": '"\\n", "*"'}
    assert [e.path for e in out.loss] == ["sampling.max_tokens"]


def test_an_empty_preset_is_a_mapping_the_loader_can_iterate() -> None:
    out = api.write(Preset(), FID)
    assert yaml.safe_load(out.files[0].data) == {}


def test_broken_yaml_is_refused_with_the_file_named(tmp_path: Path) -> None:
    bad = tmp_path / "broken.yaml"
    bad.write_text("temperature: [1\n")
    with pytest.raises(MalformedInput, match=r"broken\.yaml"):
        reg().read(as_input(bad), format=FID)


def test_other_yaml_is_not_claimed() -> None:
    det = api.detect(b"model: llama\nlayers: 32\n", "config.yaml")
    assert det.winner is None or det.winner.format != FID



def test_every_preset_value_is_converted_as_the_model_types_it() -> None:
    """The preset tables take a value's converter from its canonical type: a count must be
    read as a whole number, a switch as true/false, so a field the model adds or retypes has
    to be classified with it."""
    from typing import get_args

    from bunzai_tavern._common.stpresets import (
        CODES,
        COUNTS,
        OWN_FORM,
        SWITCHES,
        TEXTS,
        canonical_conv,
    )

    def kind(annotation: object) -> str:
        types = frozenset(get_args(annotation)) - {type(None)}
        return {frozenset({int}): "whole", frozenset({bool}): "switch",
                frozenset({str}): "text", frozenset({int, float}): "number"}.get(
                    types, "own form")

    def classified(attr: str) -> str:
        try:
            conv = canonical_conv(attr)
        except TypeError:
            return "own form"
        return {"a whole number": "whole", "int": "whole", "bool": "switch", "string": "text",
                "number": "number"}[conv.name]

    typed = {}
    for section in ("sampling", "instruct", "context", "chat_completion", "system_prompt",
                    "reasoning"):
        fields = Preset.model_fields[section].annotation.model_fields  # type: ignore[union-attr]
        typed.update({f"{section}.{n}": kind(f.annotation) for n, f in fields.items()})
    assert {attr: classified(attr) for attr in typed} == typed
    assert set(typed) >= COUNTS | CODES | SWITCHES | TEXTS | OWN_FORM

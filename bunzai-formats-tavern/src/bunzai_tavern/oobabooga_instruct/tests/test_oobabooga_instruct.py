"""oobabooga-instruct: both shapes of text-generation-webui's instruction templates become
instruct sequences proven against the template, and a template that cannot be is kept and
named."""

from __future__ import annotations

from functools import cache
from pathlib import Path

import pytest
import yaml

from bunzai import api
from bunzai.sdk import Preset
from bunzai.sdk.prompts import marker_scenes, render_difference, render_entity
from bunzai.testing import Registry, as_input, load_registry, presets_corpus_dir

FID = "oobabooga-instruct"
SAMPLES = Path(__file__).parent / "samples"
CORPUS = presets_corpus_dir()
BOTH = ["Bactrian", "ChatGLM", "Manticore Chat", "Open Assistant", "Wizard-Mega"]


@cache
def reg() -> Registry:
    return load_registry()


def read(path: Path) -> tuple[Preset, list[str]]:
    handle, res, _ = reg().read(as_input(path))
    assert handle.id == FID
    got = res.entities[0]
    assert isinstance(got, Preset)
    return got, [w.message for w in res.warnings]


@pytest.mark.skipif(not (CORPUS / "ooba-instruct-legacy").is_dir(), reason="no preset corpus")
@pytest.mark.parametrize("name", BOTH)
def test_the_2023_and_jinja_shapes_of_one_template_are_one_preset(name: str) -> None:
    old, _ = read(CORPUS / "ooba-instruct-legacy" / f"{name}.yaml")
    new, _ = read(CORPUS / "ooba-instruct-jinja" / f"{name}.yaml")
    assert old.instruct.user_prefix is not None
    assert old.instruct == new.instruct and old.system_prompt == new.system_prompt


@pytest.mark.skipif(not (CORPUS / "ooba-instruct-jinja").is_dir(), reason="no preset corpus")
def test_a_default_system_message_is_the_system_prompt() -> None:
    p, _ = read(CORPUS / "ooba-instruct-jinja" / "Vicuna-v1.1.yaml")
    assert p.system_prompt.content and p.system_prompt.content.startswith("A chat between")
    assert (p.instruct.user_prefix, p.instruct.assistant_prefix) == ("USER: ", "ASSISTANT: ")
    assert p.instruct.last_assistant_prefix == "ASSISTANT:"  # the app strips the space


def test_a_2023_context_splits_at_the_system_message() -> None:
    p, _ = read(SAMPLES / "ooba-instruct-lantern.yaml")
    assert p.instruct.system_prompt_prefix == "[Logbook]\n"
    assert p.system_prompt.content == ("The keeper answers in short sentences and never "
                                       "leaves the lamp unattended.")
    prompt = render_entity(reg(), p, marker_scenes()[0])
    assert prompt == ("[Logbook]\nThe keeper answers in short sentences and never leaves the "
                      "lamp unattended.\n\nTraveller: MARKER-U1\nKeeper:")


def test_a_tool_template_is_kept_and_refused_as_sequences() -> None:
    p, warnings = read(SAMPLES / "ooba-instruct-toolbox.yaml")
    assert p.instruct.user_prefix is None
    assert any("tool calls" in w for w in warnings)
    out = api.write(p, "sillytavern-instruct")
    assert any(e.path.startswith(f"app_data.{FID}.chat_template") for e in out.loss)
    assert api.write(p, FID).files[0].data == (SAMPLES / "ooba-instruct-toolbox.yaml").read_bytes()


@pytest.mark.skipif(not (CORPUS / "st-instruct").is_dir(), reason="no preset corpus")
def test_a_sillytavern_template_written_here_builds_the_same_prompt() -> None:
    src = api.read((CORPUS / "st-instruct" / "Alpaca.json").read_bytes(), filename="Alpaca.json")
    out = api.write(src, FID, verify=True)
    text = yaml.safe_load(out.files[0].data)["instruction_template"]
    assert "{%" in text
    back = api.read(out.files[0].data, format=FID)
    assert back.instruct.user_prefix == src.instruct.user_prefix
    assert render_difference(reg(), src, back) is None

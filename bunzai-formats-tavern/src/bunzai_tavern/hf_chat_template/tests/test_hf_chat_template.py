"""hf-chat-template: a model's chat template becomes instruct sequences proven on marker chats,
or is refused as sequences with the reason; either way it is kept and renders through Jinja."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path

import pytest

from bunzai import api
from bunzai.sdk import Preset
from bunzai.sdk.prompts import marker_scenes, render_difference, render_entity
from bunzai.testing import Registry, as_input, load_registry, presets_corpus_dir

FID = "hf-chat-template"
SAMPLES = Path(__file__).parent / "samples"


@cache
def reg() -> Registry:
    return load_registry()


def read(data: bytes | Path, name: str = "chat_template.jinja") -> tuple[Preset, list[str]]:
    handle, res, _ = reg().read(as_input(data, name) if isinstance(data, bytes)
                                else as_input(data))
    assert handle.id == FID
    got = res.entities[0]
    assert isinstance(got, Preset)
    return got, [w.message for w in res.warnings]


def test_the_default_of_named_templates_is_read_and_the_others_kept() -> None:
    p, warnings = read(SAMPLES / "heron-tokenizer_config.json")
    assert not warnings
    assert (p.instruct.user_prefix, p.instruct.last_assistant_prefix) == ("[Q] ", "[A]")
    assert p.system_prompt.content == "You are Heron, a patient tutor."
    assert p.app_data[FID]["other_chat_templates"][0]["name"] == "tool_use"


def test_a_leading_bos_is_left_to_the_backend_when_only_that_makes_sequences() -> None:
    p, _ = read(SAMPLES / "quill-tokenizer_config.json")
    assert p.instruct.user_prefix == "<|turn|>user\n"
    prompt = render_entity(reg(), p, marker_scenes()[0])
    assert prompt == "<|turn|>user\nMARKER-U1<|end|>\n<|turn|>assistant\n"


def test_tool_calls_are_refused_as_sequences_with_the_reason() -> None:
    p, warnings = read(SAMPLES / "tally-tools.jinja")
    assert p.instruct.user_prefix is None and any("tool calls" in w for w in warnings)
    out = api.write(p, "sillytavern-instruct")
    assert any(e.path == f"app_data.{FID}.chat_template" for e in out.loss)


def test_a_branch_on_what_a_message_says_is_refused() -> None:
    text = ("{% for m in messages %}{% if m['content'].startswith('/') %}{{ '<cmd>' }}"
            "{% endif %}{{ m['role'] + ': ' + m['content'] + '\\n' }}{% endfor %}")
    p, warnings = read(text.encode())
    assert p.instruct.user_prefix is None
    assert any("branches on what a message says" in w for w in warnings)


def test_a_system_message_folded_into_the_first_turn_is_refused() -> None:
    text = ("{% if messages[0]['role'] == 'system' %}{% set sys = messages[0]['content'] %}"
            "{% set rest = messages[1:] %}{% else %}{% set sys = '' %}{% set rest = messages %}"
            "{% endif %}{% for m in rest %}{% if m['role'] == 'user' %}{{ '[INST] ' }}"
            "{% if loop.first and sys %}{{ '<<SYS>>' + sys + '<</SYS>> ' }}{% endif %}"
            "{{ m['content'] + ' [/INST]' }}{% else %}{{ ' ' + m['content'] + '</s>' }}"
            "{% endif %}{% endfor %}")
    p, warnings = read(text.encode())
    assert p.instruct.user_prefix is None and warnings


def test_a_syntax_error_names_the_file() -> None:
    with pytest.raises(Exception, match=r"broken\.jinja.*does not parse"):
        read(b"{% for m in messages %}{{ m['content'] }", "broken.jinja")


@pytest.mark.parametrize("name", ["wren-chat_template.jinja", "heron-tokenizer_config.json"])
def test_converted_to_sillytavern_the_prompt_is_the_same(name: str) -> None:
    src, _ = read(SAMPLES / name)
    out = api.write(src, "sillytavern-master", verify=True)
    assert not [e for e in out.loss if not e.path.startswith(("app_data", "name"))]
    back = api.read(out.files[0].data, format="sillytavern-master")
    assert render_difference(reg(), src, back) is None


@pytest.mark.skipif(not (presets_corpus_dir() / "st-instruct").is_dir(), reason="no corpus")
def test_a_sillytavern_template_becomes_a_template_transformers_can_render() -> None:
    src = api.read((presets_corpus_dir() / "st-instruct" / "Gemma 2.json").read_bytes(),
                   filename="Gemma 2.json")
    out = api.write(src, FID, verify=True)
    assert out.files[0].suffix == ".jinja"
    back, warnings = read(out.files[0].data)
    assert not warnings and render_difference(reg(), src, back) is None


def test_a_config_keeps_its_other_keys_in_place() -> None:
    p, _ = read(SAMPLES / "quill-tokenizer_config.json")
    edited = p.model_copy(update={"system_prompt": p.system_prompt.model_copy(
        update={"content": "Be brief."})})
    out = api.write(edited, FID)
    doc = json.loads(out.files[0].data)
    assert list(doc)[:3] == ["add_bos_token", "add_eos_token", "added_tokens_decoder"]
    assert doc["eos_token"]["content"] == "<|stop|>" and "Be brief." in doc["chat_template"]

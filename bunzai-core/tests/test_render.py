"""SillyTavern's prompt rules as the renderer applies them, on presets written here."""

from __future__ import annotations

from bunzai.model.preset import ContextTemplate, InstructTemplate, Preset, SystemPrompt
from bunzai.prompts.render import Scene, Turn, handlebars, render_preset, substitute

CHAT = Scene("Ada", "Wren", turns=(Turn("user", "Ada", "hello"), Turn("assistant", "Wren", "hi"),
                                   Turn("user", "Ada", "bye")))


def _chatml(**kw: object) -> Preset:
    ins = dict(user_prefix="<|im_start|>user", assistant_prefix="<|im_start|>assistant",
               user_suffix="<|im_end|>\n", assistant_suffix="<|im_end|>\n", wrap=True,
               names_behavior="none")
    ins.update(kw)
    return Preset(instruct=InstructTemplate(**ins),
                  context=ContextTemplate(story_string="{{#if system}}{{system}}\n{{/if}}"),
                  system_prompt=SystemPrompt(content="Be {{char}}."))


def test_instruct_wraps_each_message_and_opens_the_reply() -> None:
    got = render_preset(_chatml(), CHAT)
    assert got == ("Be Wren.\n<|im_start|>user\nhello<|im_end|>\n<|im_start|>assistant\n"
                   "hi<|im_end|>\n<|im_start|>user\nbye<|im_end|>\n\n<|im_start|>assistant\n")


def test_names_always_prefix_every_message_and_the_reply() -> None:
    got = render_preset(_chatml(names_behavior="always"), CHAT)
    assert "user\nAda: hello" in got and got.endswith("<|im_start|>assistant\nWren:")


def test_last_and_first_prefixes_replace_the_plain_ones() -> None:
    got = render_preset(_chatml(first_user_prefix="[FIRST]", last_user_prefix="[LAST]",
                                last_assistant_prefix="[REPLY]"), CHAT)
    assert got.count("[FIRST]") == 1 and got.index("[FIRST]") < got.index("hello")
    assert got.index("[LAST]") < got.index("bye") and got.endswith("\n[REPLY]\n")


def test_without_wrap_sequences_touch_the_text() -> None:
    got = render_preset(_chatml(wrap=False, user_suffix="", assistant_suffix=""), CHAT)
    assert "<|im_start|>userhello<|im_start|>assistanthi" in got


def test_without_instruct_messages_are_name_lines_and_the_reply_is_named() -> None:
    p = Preset(context=ContextTemplate(story_string="{{system}}", chat_start="***"),
               system_prompt=SystemPrompt(content="Sys"))
    assert render_preset(p, CHAT) == "Sys\n***\nAda: hello\nWren: hi\nAda: bye\nWren:"


def test_story_string_blocks_and_trim() -> None:
    t = "{{#if a}}A{{else}}not A{{/if}}|{{#unless b}}no B{{/unless}}|{{unknown}}"
    assert handlebars(t, {"a": "", "b": ""}) == "not A|no B|{{unknown}}"
    assert substitute("x\n{{trim}}\ny {{USER}}", {"user": "Ada"}) == "xy Ada"

"""Typed reader/writer options: core checks them once, before any adapter runs."""

from __future__ import annotations

import warnings
from collections.abc import Mapping
from typing import Any

import pytest

import bunzai
from bunzai.errors import UsageError
from bunzai.host.adapter import FormatAdapter
from bunzai.host.registry import Registry
from bunzai.host.types import FormatInfo, Option, WriteResult
from bunzai.io.outputs import OutputFile
from bunzai.model import Character, Entity

SEEN: list[dict[str, Any]] = []


class _Card(FormatAdapter):
    format_id = "test-card"
    kind = "character"
    carries = ("name",)  # declared: core does not read the output back to find out
    options = (
        Option("indent", int, choices=(0, 2, 4), default=4, help="JSON indent"),
        Option("split", bool, default=False, help="one file per thing"),
        Option("container", choices=("png", "json"), help="the output file"),
        Option("title", help="free text"),
        Option("strict", bool, reader=True, help="refuse oddities"),
    )

    def detect(self, input: Any) -> float:
        return 1.0 if input.data.startswith(b"card") else 0.0

    def read(self, input: Any, options: Mapping[str, Any]) -> Entity:
        SEEN.append(dict(options))
        return Character(name="A")

    def write(self, entity: Entity, options: Mapping[str, Any]) -> WriteResult:
        SEEN.append(dict(options))
        return WriteResult([OutputFile(b"x", ".json")])


@pytest.fixture
def reg() -> Registry:
    SEEN.clear()
    return Registry.load(autoload=False, defaults=False, extra=[("test-card", _Card())])


def test_values_arrive_in_their_declared_types(reg: Registry) -> None:
    reg.write([Character(name="A")], "test-card",
              {"indent": "2", "split": "yes", "container": "JSON", "title": " Hi "})
    assert SEEN == [{"indent": 2, "split": True, "container": "json", "title": "Hi"}]
    SEEN.clear()
    bunzai.write(Character(name="A"), "test-card", registry=reg, indent=0, split=False)
    assert SEEN == [{"indent": 0, "split": False}]


@pytest.mark.parametrize(("given", "words"), [
    ({"indnt": "2"}, ["no writer option 'indnt'", "did you mean 'indent'?",
                      "indent, split, container, title"]),
    ({"split": "maybe"}, ["option split of test-card takes true or false, not 'maybe'"]),
    ({"indent": "3"}, ["takes 0, 2 or 4, not '3'"]),
    ({"container": "pgn"}, ["takes png or json, not 'pgn'", "did you mean 'png'?"]),
    ({"indent": "two"}, ["takes 0, 2 or 4"]),
])
def test_a_typo_is_a_usage_error_naming_the_valid_ones(reg: Registry, given: dict[str, str],
                                                       words: list[str]) -> None:
    with pytest.raises(UsageError) as info:
        reg.write([Character(name="A")], "test-card", given)
    assert info.value.exit_code == 2
    for w in words:
        assert w in info.value.message, info.value.message
    assert SEEN == []  # the writer never ran


def test_reader_options_are_checked_apart_from_writer_options(reg: Registry) -> None:
    bunzai.read(b"card", registry=reg, strict="true")
    assert SEEN == [{"strict": True}]
    with pytest.raises(UsageError, match="no reader option 'indent'"):
        bunzai.read(b"card", registry=reg, indent=2)
    with pytest.raises(UsageError, match="no writer option 'strict'"):
        reg.write([Character(name="A")], "test-card", {"strict": "true"})


def test_a_format_without_options_refuses_any() -> None:
    reg = Registry.load(autoload=False)
    with pytest.raises(UsageError, match="vaud-json takes no writer options"):
        reg.write([Character(name="A")], "vaud-json", {"indent": "2"})


def test_old_style_descriptions_still_load_as_free_text_with_a_deprecation_warning() -> None:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        info = FormatInfo("old", "character", "Old", options={"pretty": "indent the JSON"})
    assert any(issubclass(w.category, DeprecationWarning) for w in caught)
    opt = info.options["pretty"]
    assert opt.free and opt.help == "indent the JSON"

    class _Old(FormatAdapter):
        format_id = "old"
        kind = "character"
        options = {"pretty": "indent the JSON"}  # type: ignore[assignment]

        def detect(self, input: Any) -> float:
            return 0.0

        def write(self, entity: Entity, options: Mapping[str, Any]) -> WriteResult:
            SEEN.append(dict(options))
            return WriteResult([OutputFile(b"x", ".json")])

    SEEN.clear()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        reg = Registry.load(autoload=False, defaults=False, extra=[("old", _Old())])
    reg.write([Character(name="A")], "old", {"pretty": "TRUE"})
    assert SEEN == [{"pretty": True}]  # as parse_options used to give it
    with pytest.raises(UsageError, match="did you mean 'pretty'"):
        reg.write([Character(name="A")], "old", {"prety": "1"})


def test_option_declarations_are_checked_when_written() -> None:
    with pytest.raises(TypeError, match="bool, int or str"):
        Option("ratio", float)  # type: ignore[arg-type]

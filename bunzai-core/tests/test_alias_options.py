"""Aliases can imply writer options: ``--to json`` on a PNG-by-default format writes JSON."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bunzai.host.adapter import FormatAdapter
from bunzai.host.registry import Registry
from bunzai.host.types import Option, WriteResult
from bunzai.io.outputs import OutputFile
from bunzai.model import Character, Entity


class _Card(FormatAdapter):
    format_id = "test-card"
    kind = "character"
    suffix = ".png"
    aliases = ("img", "js")
    alias_options = {"js": {"container": "json"}}
    options = (Option("container", choices=("png", "json")),)

    def detect(self, input: Any) -> float:
        return 0.0

    def write(self, entity: Entity, options: Mapping[str, Any]) -> WriteResult:
        container = options.get("container", "png")
        return WriteResult([OutputFile(container.encode(), "." + container)])


def _reg() -> Registry:
    return Registry.load(autoload=False, defaults=False, extra=[("test-card", _Card())])


def test_an_alias_applies_the_options_it_implies() -> None:
    reg = _reg()
    ch = Character(name="A")
    assert reg.write([ch], "js").data == b"json"
    assert reg.write([ch], "JS").data == b"json"
    assert reg.write([ch], "img").data == b"png"
    assert reg.write([ch], "test-card").data == b"png"  # the id implies nothing


def test_explicit_options_win_over_implied_ones() -> None:
    assert _reg().write([Character(name="A")], "js", {"container": "png"}).data == b"png"


def test_alias_options_are_declared_in_the_format_info() -> None:
    assert _Card.info().alias_options == {"js": {"container": "json"}}

"""Finding plugins quickly must find exactly what pluggy would.

The host answers most of pluggy's per-attribute questions itself; it is only allowed to be
faster, never different.
"""

from __future__ import annotations

from abc import ABC
from typing import Any

import pluggy
import pytest

from bunzai.host import hookspecs
from bunzai.host.adapter import FormatAdapter
from bunzai.host.hookspecs import PROJECT, hookimpl
from bunzai.host.plugins import PluginHost
from bunzai.host.types import FormatInfo

# -- hook discovery -------------------------------------------------------------------------------


def _info() -> FormatInfo:
    return FormatInfo(id="x", kind="regex", label="x")


class Adapter(FormatAdapter):
    format_id = "x"
    kind = "regex"

    def detect(self, input: Any) -> float:
        return 0.0

    @property
    def bunzai_validate(self) -> Any:  # a property is never a hook, whatever it returns
        return hookimpl(lambda input, entities: [])


class ClassAndStatic:
    @hookimpl
    @classmethod
    def bunzai_format_info(cls) -> FormatInfo:
        return _info()

    @staticmethod
    @hookimpl
    def bunzai_detect(input: Any) -> float:
        return 0.0

    @hookimpl(specname="bunzai_label_rules")
    def rules_under_another_name(self) -> list[Any]:
        return []


class OnTheInstance:
    def __init__(self) -> None:
        self.bunzai_format_info = hookimpl(_info)


class Slotted:
    __slots__ = ("bunzai_format_info",)

    def __init__(self) -> None:
        self.bunzai_format_info = hookimpl(_info)


class WithMeta(ABC):  # noqa: B024 - a metaclass is the point
    @hookimpl
    def bunzai_format_info(self) -> FormatInfo:
        return _info()


def _hooks(pm: pluggy.PluginManager, plugin: object) -> list[tuple[str, str, Any]]:
    pm.register(plugin)
    return sorted((caller.name, impl.function.__name__, impl.opts.get("specname"))
                  for caller in pm.get_hookcallers(plugin) or []
                  for impl in caller.get_hookimpls() if impl.plugin is plugin)


@pytest.mark.parametrize("make", [Adapter, ClassAndStatic, OnTheInstance, Slotted, WithMeta])
def test_host_registers_the_same_hooks_as_pluggy(make: type) -> None:
    plain = pluggy.PluginManager(PROJECT)
    plain.add_hookspecs(hookspecs)
    expected = _hooks(plain, make())
    assert expected, "every sample plugin implements at least one hook"
    assert _hooks(PluginHost().pm, make()) == expected

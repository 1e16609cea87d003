"""Finding plugins quickly must find exactly what pluggy and importlib.metadata would.

The host answers most of pluggy's per-attribute questions itself, and the entry points are
remembered between runs; both are only allowed to be faster, never different.
"""

from __future__ import annotations

import os
import shutil
import sys
import textwrap
from abc import ABC
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pluggy
import pytest

from bunzai import entrypoints, hookspecs
from bunzai.adapter import FormatAdapter
from bunzai.hookspecs import PROJECT, hookimpl
from bunzai.plugins import PluginHost
from bunzai.types import FormatInfo

GROUPS = ("bunzai.formats", "bunzai.plugins")


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


# -- the entry-point cache ------------------------------------------------------------------------


PLUGIN = '''
from bunzai.adapter import FormatAdapter
class Adapter(FormatAdapter):
    format_id = "{fid}"
    kind = "lorebook"
    def detect(self, input):
        return 0.0
'''


def _install(site: Path, dist: str, fid: str, *, age: float = 0) -> None:
    module = dist.replace("-", "_")
    (site / f"{module}.py").write_text(textwrap.dedent(PLUGIN.format(fid=fid)))
    info = site / f"{module}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(f"[bunzai.formats]\n{fid} = {module}:Adapter\n")
    if age:
        _age(site, age)


def _age(site: Path, seconds: float) -> None:
    """Date everything back, like an environment installed a while ago."""
    then = os.stat(site).st_mtime - seconds
    for path in [*site.rglob("*"), site]:
        os.utime(path, (then, then))


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A ``sys.path`` holding only an empty site folder, and a private cache folder."""
    folder = tmp_path / "site"
    folder.mkdir()
    monkeypatch.setattr(sys, "path", [str(folder)])
    yield folder
    for name in [m for m in sys.modules if m.startswith("bzc_")]:
        del sys.modules[name]


@pytest.fixture
def scans(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Counts the real metadata scans."""
    calls: list[int] = []
    real = entrypoints.scan

    def counted(groups: Any) -> list[entrypoints.Row]:
        calls.append(1)
        return real(groups)

    monkeypatch.setattr(entrypoints, "scan", counted)
    return calls


def _names(rows: list[entrypoints.Row]) -> set[str]:
    return {r[3] for r in rows}


def _env(tmp_path: Path) -> dict[str, str]:
    return {"BUNZAI_PLUGIN_CACHE": str(tmp_path / "cache")}


def test_an_unchanged_environment_is_not_scanned_again(site: Path, tmp_path: Path,
                                                       scans: list[int]) -> None:
    _install(site, "bzc-one", "bzc-one-format", age=60)
    env = _env(tmp_path)
    first = entrypoints.find(GROUPS, env)
    assert _names(first) == {"bzc-one-format"}
    assert entrypoints.find(GROUPS, env) == first
    assert len(scans) == 1


def test_installing_and_uninstalling_are_seen_at_once(site: Path, tmp_path: Path) -> None:
    _install(site, "bzc-one", "bzc-one-format", age=60)
    env = _env(tmp_path)
    entrypoints.find(GROUPS, env)
    _install(site, "bzc-two", "bzc-two-format")  # now, possibly within the same clock tick
    assert _names(entrypoints.find(GROUPS, env)) == {"bzc-one-format", "bzc-two-format"}
    _age(site, 60)
    entrypoints.find(GROUPS, env)
    shutil.rmtree(site / "bzc_one-1.0.dist-info")
    assert _names(entrypoints.find(GROUPS, env)) == {"bzc-two-format"}


def test_an_edited_entry_point_file_is_seen(site: Path, tmp_path: Path) -> None:
    _install(site, "bzc-one", "bzc-one-format", age=60)
    env = _env(tmp_path)
    entrypoints.find(GROUPS, env)
    eps = site / "bzc_one-1.0.dist-info" / "entry_points.txt"
    eps.write_text("[bunzai.formats]\nrenamed = bzc_one:Adapter\n")
    assert _names(entrypoints.find(GROUPS, env)) == {"renamed"}


def test_a_fresh_environment_is_not_remembered(site: Path, tmp_path: Path,
                                               scans: list[int]) -> None:
    _install(site, "bzc-one", "bzc-one-format")  # file times too recent to trust
    env = _env(tmp_path)
    entrypoints.find(GROUPS, env)
    entrypoints.find(GROUPS, env)
    assert len(scans) == 2
    assert not (tmp_path / "cache").exists()


def test_the_cache_can_be_turned_off(site: Path, tmp_path: Path, scans: list[int]) -> None:
    _install(site, "bzc-one", "bzc-one-format", age=60)
    for _ in range(2):
        assert _names(entrypoints.find(GROUPS, {"BUNZAI_PLUGIN_CACHE": "0"})) == {
            "bzc-one-format"}
    assert len(scans) == 2


def test_a_damaged_cache_file_is_ignored(site: Path, tmp_path: Path) -> None:
    _install(site, "bzc-one", "bzc-one-format", age=60)
    env = _env(tmp_path)
    entrypoints.find(GROUPS, env)
    target = entrypoints.cache_file(env)
    assert target is not None and target.exists()
    target.write_bytes(b'{"format": 1, "rows": [')
    assert _names(entrypoints.find(GROUPS, env)) == {"bzc-one-format"}


def test_a_cached_plugin_loads_like_a_scanned_one(site: Path, tmp_path: Path) -> None:
    _install(site, "bzc-one", "bzc-one-format", age=60)
    env = _env(tmp_path)
    entrypoints.find(GROUPS, env)  # fills the cache
    host = PluginHost().load(environ=env, defaults=False)
    (record,) = [r for r in host.loaded if r.name == "bzc-one-format"]
    assert (record.distribution, record.version) == ("bzc-one", "1.0")


def test_a_malformed_reference_names_itself() -> None:
    with pytest.raises(ValueError, match="not a reference"):
        entrypoints.load("not a reference")

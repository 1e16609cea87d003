"""Plugin loading through real entry points (dist-info folders on a temporary sys.path)."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from bunzai.errors import ConversionRefused, MalformedInput
from bunzai.host.registry import Registry

GOOD = '''
from bunzai.host.adapter import FormatAdapter
class Good(FormatAdapter):
    format_id = "{fid}"
    kind = "lorebook"
    label = "test format"
    def detect(self, input):
        return 0.9 if input.data.startswith(b"GOOD") else 0.0
'''


def make_dist(root: Path, dist: str, module: str, source: str,
              entry_points: dict[str, str], group: str = "bunzai.formats") -> None:
    (root / f"{module}.py").write_text(textwrap.dedent(source))
    info = root / f"{dist.replace('-', '_')}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n")
    eps = "\n".join(f"{k} = {v}" for k, v in entry_points.items())
    (info / "entry_points.txt").write_text(f"[{group}]\n{eps}\n")


@pytest.fixture
def site(tmp_path: Path) -> Iterator[Path]:
    sys.path.insert(0, str(tmp_path))
    try:
        yield tmp_path
    finally:
        sys.path.remove(str(tmp_path))
        for name in [m for m in sys.modules if m.startswith("bzt_")]:
            del sys.modules[name]


def load(**kw: object) -> Registry:
    kw.setdefault("environ", {})
    return Registry.load(**kw)  # type: ignore[arg-type]


def test_entry_point_is_discovered_and_registered(site: Path) -> None:
    make_dist(site, "bzt-good", "bzt_good", GOOD.format(fid="bzt-good-format"),
              {"bzt-good-format": "bzt_good:Good"})
    reg = load()
    assert "bzt-good-format" in reg.adapters
    assert reg.adapters["bzt-good-format"].distribution == "bzt-good"
    assert "vaud-json" in reg.adapters  # the default plugin, registered the same way


def test_import_error_is_quarantined_and_others_still_load(site: Path) -> None:
    make_dist(site, "bzt-broken", "bzt_broken", "raise ImportError('no codec')\n",
              {"bzt-broken-format": "bzt_broken:X"})
    make_dist(site, "bzt-good", "bzt_good", GOOD.format(fid="bzt-good-format"),
              {"bzt-good-format": "bzt_good:Good"})
    reg = load()
    assert "bzt-good-format" in reg.adapters
    broken = {b.name: b for b in reg.broken}
    assert "no codec" in broken["bzt-broken-format"].reason
    assert broken["bzt-broken-format"].distribution == "bzt-broken"


def test_duplicate_format_id_names_both_distributions(site: Path) -> None:
    make_dist(site, "bzt-a", "bzt_a", GOOD.format(fid="dup"), {"dup": "bzt_a:Good"})
    make_dist(site, "bzt-b", "bzt_b", GOOD.format(fid="dup"), {"dup": "bzt_b:Good"})
    reg = load()
    assert reg.adapters["dup"].distribution == "bzt-a"  # deterministic: sorted by dist
    (b,) = [b for b in reg.broken if b.name == "dup"]
    assert "bzt-a" in b.reason and "bzt-b" in b.reason


def test_overriding_a_core_format_id_is_refused(site: Path) -> None:
    make_dist(site, "bzt-c", "bzt_c", GOOD.format(fid="vaud-json"), {"vaud-json": "bzt_c:Good"})
    reg = load()
    assert reg.adapters["vaud-json"].distribution == "bunzai-core"
    assert any(b.name == "vaud-json" and "bunzai-core" in b.reason for b in reg.broken)


def test_misspelled_hook_is_refused(site: Path) -> None:
    src = GOOD.format(fid="typo") + textwrap.dedent('''
        from bunzai.host.hookspecs import hookimpl
        class Typo(Good):
            @hookimpl
            def bunzai_detcet(self, input):
                return 1.0
    ''')
    make_dist(site, "bzt-typo", "bzt_typo", src, {"typo": "bzt_typo:Typo"})
    reg = load()
    assert "typo" not in reg.adapters
    (b,) = [b for b in reg.broken if b.name == "typo"]
    assert "bunzai_detcet" in b.reason


def test_hook_with_unknown_argument_fails_validation(site: Path) -> None:
    src = GOOD.format(fid="badarg") + textwrap.dedent('''
        from bunzai.host.hookspecs import hookimpl
        class BadArg(Good):
            @hookimpl
            def bunzai_detect(self, input, extra):
                return 1.0
    ''')
    make_dist(site, "bzt-badarg", "bzt_badarg", src, {"badarg": "bzt_badarg:BadArg"})
    reg = load()
    assert "badarg" not in reg.adapters
    assert any(b.name == "badarg" and "invalid hook" in b.reason for b in reg.broken)


def test_unsupported_api_version_is_refused(site: Path) -> None:
    src = GOOD.format(fid="future") + "Good.api_version = 99\n"
    make_dist(site, "bzt-future", "bzt_future", src, {"future": "bzt_future:Good"})
    reg = load()
    assert "future" not in reg.adapters
    assert any(b.name == "future" and "API 99" in b.reason for b in reg.broken)


def test_entry_point_name_must_match_format_id(site: Path) -> None:
    make_dist(site, "bzt-misnamed", "bzt_misnamed", GOOD.format(fid="real-id"),
              {"other-id": "bzt_misnamed:Good"})
    reg = load()
    assert "real-id" not in reg.adapters and "other-id" not in reg.adapters
    assert any("real-id" in b.reason for b in reg.broken)


def test_raw_pluggy_module_plugin_works(site: Path) -> None:
    src = '''
        from bunzai.sdk import (Detection, FormatInfo, OutputFile, ReadResult, WriteResult,
                                hookimpl)
        @hookimpl
        def bunzai_format_info():
            return FormatInfo(id="raw", kind="regex", label="raw module plugin")
        @hookimpl
        def bunzai_detect(input):
            return Detection(0.75 if input.data == b"RAW" else 0)
        @hookimpl
        def bunzai_to_canonical(input, options):
            from bunzai.sdk import RegexScript
            return ReadResult([RegexScript(name="raw", pattern="x")])
        @hookimpl
        def bunzai_from_canonical(entities, options):
            return WriteResult([OutputFile(b"RAW", ".raw")])
    '''
    make_dist(site, "bzt-raw", "bzt_raw", src, {"raw": "bzt_raw"})
    reg = load()
    rep = reg.detect(__import__("bunzai").AdapterInput(b"RAW"))
    assert rep.winner is not None and rep.winner.format == "raw"
    _, result, _ = reg.read(__import__("bunzai").AdapterInput(b"RAW"))
    assert result.entities[0].name == "raw"
    assert reg.write(result.entities, "raw").data == b"RAW"


def test_format_plugin_missing_required_hooks_is_refused(site: Path) -> None:
    src = '''
        from bunzai.host.hookspecs import hookimpl
        from bunzai.host.types import FormatInfo
        @hookimpl
        def bunzai_format_info():
            return FormatInfo(id="half", kind="regex", label="half")
    '''
    make_dist(site, "bzt-half", "bzt_half", src, {"half": "bzt_half"})
    reg = load()
    assert "half" not in reg.adapters
    assert any(b.name == "half" and "bunzai_detect" in b.reason for b in reg.broken)


def test_disable_autoload_loads_no_entry_points(site: Path) -> None:
    make_dist(site, "bzt-good", "bzt_good", GOOD.format(fid="bzt-good-format"),
              {"bzt-good-format": "bzt_good:Good"})
    reg = load(environ={"BUNZAI_DISABLE_PLUGIN_AUTOLOAD": "1"})
    assert list(reg.adapters) == ["vaud-json"]
    assert "bzt_good" not in sys.modules


def test_load_plugins_allow_list(site: Path) -> None:
    make_dist(site, "bzt-a", "bzt_a", GOOD.format(fid="fa"), {"fa": "bzt_a:Good"})
    make_dist(site, "bzt-b", "bzt_b", GOOD.format(fid="fb"), {"fb": "bzt_b:Good"})
    reg = load(environ={"BUNZAI_LOAD_PLUGINS": "bzt_a"})  # names are normalised
    assert "fa" in reg.adapters and "fb" not in reg.adapters
    reg = load(environ={"BUNZAI_LOAD_PLUGINS": ""})
    assert set(reg.adapters) == {"vaud-json"}


def test_plugins_group_may_add_cli_commands(site: Path) -> None:
    src = '''
        from bunzai.host.hookspecs import hookimpl
        @hookimpl
        def bunzai_register_commands(app):
            @app.command("hello-bzt")
            def hello():
                print("hello from a plugin")
    '''
    make_dist(site, "bzt-cmd", "bzt_cmd", src, {"cmd": "bzt_cmd"}, group="bunzai.plugins")
    import typer
    from typer.testing import CliRunner

    reg = load()
    app = typer.Typer()

    @app.callback()
    def _root() -> None: ...

    reg.register_commands(app)
    res = CliRunner().invoke(app, ["hello-bzt"])
    assert res.exit_code == 0 and "hello from a plugin" in res.output


def test_raw_hooks_must_return_the_declared_types(site: Path) -> None:
    """FormatAdapter accepts a bare score or an entity; a raw hook answers with the types the
    hookspecs declare, and anything else is a fault named after the adapter."""
    src = '''
        from bunzai.sdk import FormatInfo, hookimpl
        @hookimpl
        def bunzai_format_info():
            return FormatInfo(id="loose", kind="regex", label="loose raw plugin")
        @hookimpl
        def bunzai_detect(input):
            return 0.9
        @hookimpl
        def bunzai_to_canonical(input, options):
            from bunzai.sdk import RegexScript
            return RegexScript(name="loose")
        @hookimpl
        def bunzai_from_canonical(entities, options):
            return b"LOOSE"
    '''
    make_dist(site, "bzt-loose", "bzt_loose", src, {"loose": "bzt_loose"})
    reg = load()
    inp = __import__("bunzai").AdapterInput(b"LOOSE")
    rep = reg.detect(inp)
    assert rep.winner is None
    assert [f.message for f in rep.faults if f.format == "loose"] == [
        "TypeError: returned float, not a Detection"]
    with pytest.raises(MalformedInput, match="returned RegexScript, not a ReadResult"):
        reg.read(inp, format="loose")
    from bunzai.model import RegexScript
    with pytest.raises(ConversionRefused, match="returned bytes, not a WriteResult"):
        reg.write([RegexScript(name="x")], "loose")

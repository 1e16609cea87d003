"""The CLI end to end on core's native format: every command and every exit code."""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

import bunzai
from bunzai.cli import app
from bunzai.host.registry import Registry, set_registry
from bunzai.model import Character, Lorebook, LorebookEntry, Persona

from .test_detection import make

runner = CliRunner()


@pytest.fixture(autouse=True)
def core_only() -> Iterator[Registry]:
    from bunzai.io.limits import get_limits, set_limits

    limits = get_limits()
    lore = make("test-lore", 0.0, kind="lorebook")
    reg = Registry.load(autoload=False, extra=[("test-lore", lore)])
    set_registry(reg)
    yield reg
    set_registry(None)
    set_limits(limits)  # --max-size sets the process-wide limit


def vaud(tmp_path: Path, entity: object, name: str = "thing.vaud.json") -> Path:
    p = tmp_path / name
    p.write_bytes(bunzai.write(entity, "vaud-json").data)  # type: ignore[arg-type]
    return p


def sha(p: Path) -> str:
    return hashlib.sha256(p.read_bytes()).hexdigest()


def invoke(*args: str | Path) -> tuple[int, str, str]:
    res = runner.invoke(app, [str(a) for a in args])
    return res.exit_code, res.stdout, res.stderr


CARD = Character(name="Wren", description="A cartographer.", first_mes="Hello.",
                 lorebook=Lorebook(entries=[LorebookEntry(keys=["map"], content="Old.")]))


def test_convert_writes_next_to_source_and_never_touches_it(tmp_path: Path) -> None:
    src = vaud(tmp_path, CARD)
    before = sha(src)
    code, out, _ = invoke("convert", src, "--to", "vaud-json")
    assert code == 0, out
    assert sha(src) == before
    produced = tmp_path / "thing.vaud-json.vaud.json"
    assert produced.exists() and "nothing lost" in out
    assert bunzai.read(produced) == CARD


def test_convert_refuses_to_overwrite_without_force(tmp_path: Path) -> None:
    src = vaud(tmp_path, CARD)
    out = tmp_path / "out.json"
    out.write_text("keep me")
    code, _, err = invoke("convert", src, "--to", "vaud", "-o", out)
    assert code == 5 and "--force" in err and out.read_text() == "keep me"
    code, _, _ = invoke("convert", src, "--to", "vaud", "-o", out, "--force")
    assert code == 0 and bunzai.read(out) == CARD


def test_convert_json_output(tmp_path: Path) -> None:
    src = vaud(tmp_path, CARD)
    code, out, _ = invoke("convert", src, "--to", "vaud-json", "-o", tmp_path / "o.json",
                          "--json")
    doc = json.loads(out)
    assert code == 0
    assert {"path", "container", "format", "kind", "confidence", "candidates", "output",
            "loss"} <= set(doc)
    assert doc["format"] == "vaud-json" and doc["loss"] == []


def test_cross_kind_conversion_is_refused_with_exit_5(tmp_path: Path) -> None:
    src = vaud(tmp_path, CARD)
    code, _, err = invoke("convert", src, "--to", "test-lore", "-o", tmp_path / "x")
    assert code == 5 and "cross-kind" in err
    assert not (tmp_path / "x").exists()


def test_unknown_target_is_a_usage_error(tmp_path: Path) -> None:
    src = vaud(tmp_path, CARD)
    code, _, err = invoke("convert", src, "--to", "no-such-format")
    assert code == 2 and "unknown format" in err and "vaud-json" in err


def test_unrecognized_input_exits_3_with_one_line(tmp_path: Path) -> None:
    p = tmp_path / "other.json"
    p.write_text('{"hello": "world"}')
    code, out, err = invoke("inspect", p)
    assert code == 3
    assert err.strip().count("\n") == 0 and str(p) in err and "unrecognized" in err
    assert "vaud-json" in out  # the candidate list is still shown


def test_ambiguous_input_exits_3_and_suggests_from(tmp_path: Path) -> None:
    reg = Registry.load(autoload=False, defaults=False,
                        extra=[("t1", make("t1", 0.8)), ("t2", make("t2", 0.8))])
    set_registry(reg)
    p = tmp_path / "f.bin"
    p.write_bytes(b"\x00\x01")
    code, _, err = invoke("inspect", p)
    assert code == 3 and "--from" in err and "t1" in err and "t2" in err


@pytest.mark.parametrize("content", [b'{"kind": "character", ', b"", b"\xff\xfe{\x00"])
def test_malformed_input_exits_4_without_traceback(tmp_path: Path, content: bytes) -> None:
    p = tmp_path / "broken.json"
    p.write_bytes(content)
    code, _, err = invoke("convert", p, "--to", "vaud-json")
    assert code in (3, 4)
    assert "Traceback" not in err and str(p) in err


def test_invalid_json_is_reported_as_malformed(tmp_path: Path) -> None:
    p = tmp_path / "broken.json"
    p.write_bytes(b'{"kind": "character", ')
    code, _, err = invoke("inspect", p)
    assert code == 4 and "invalid JSON" in err


def test_missing_file_exits_4_and_an_empty_folder_is_a_usage_error(tmp_path: Path) -> None:
    code, _, err = invoke("inspect", tmp_path / "nope.png")
    assert code == 4 and "no such file" in err
    code, _, err = invoke("inspect", tmp_path)
    assert code == 2 and f"{tmp_path}: is a folder with no files to read" in err


def test_max_size_is_named_when_exceeded(tmp_path: Path) -> None:
    src = vaud(tmp_path, CARD)
    code, _, err = invoke("inspect", src, "--max-size", "10")
    assert code == 4 and "--max-size" in err


def test_inspect_json_summary(tmp_path: Path) -> None:
    src = vaud(tmp_path, CARD)
    code, out, _ = invoke("inspect", src, "--json")
    doc = json.loads(out)
    assert code == 0
    assert doc["format"] == "vaud-json" and doc["kind"] == "character"
    assert doc["confidence"] == 1.0
    assert doc["entities"][0]["name"] == "Wren"
    assert doc["entities"][0]["lorebook_entries"] == 1


def test_validate_warnings_pass_unless_strict(tmp_path: Path) -> None:
    src = vaud(tmp_path, Persona(name=""))
    code, out, _ = invoke("validate", src)
    assert code == 0 and "warning" in out
    code, out, _ = invoke("validate", src, "--strict", "--json")
    doc = json.loads(out)
    assert code == 1 and doc["valid"] is False
    assert doc["warnings"][0]["path"] == "canonical.name"


def test_validate_says_one_cause_once_and_every_place_with_verbose(tmp_path: Path) -> None:
    book = Lorebook(entries=[LorebookEntry(keys=[], content=f"Note {i}.") for i in range(5)])
    src = vaud(tmp_path, book)
    code, out, _ = invoke("validate", src)
    lines = [ln for ln in out.splitlines() if ln.startswith("  warning")]
    assert code == 0 and len(lines) == 1
    assert "entries[0] and 4 more like it: entry has no keys" in lines[0]
    code, out, _ = invoke("-v", "validate", src)
    assert sum(ln.startswith("  warning") for ln in out.splitlines()) == 5
    doc = json.loads(invoke("validate", src, "--json")[1])
    assert len(doc["warnings"]) == 5  # --json is complete


def test_validate_clean_file(tmp_path: Path) -> None:
    code, _, _ = invoke("validate", vaud(tmp_path, CARD), "--strict")
    assert code == 0


def test_label_json_has_documented_keys(tmp_path: Path) -> None:
    code, out, _ = invoke("label", vaud(tmp_path, CARD), "--json")
    doc = json.loads(out)
    assert code == 0 and {"path", "app", "confidence", "evidence"} <= set(doc)


def test_formats_and_plugins_listings() -> None:
    code, out, _ = invoke("formats", "--json")
    assert code == 0
    assert {f["format"] for f in json.loads(out)} == {"vaud-json", "test-lore"}
    code, out, _ = invoke("formats", "--markdown")
    assert code == 0 and "| `vaud-json` |" in out
    code, out, _ = invoke("plugins", "--json")
    doc = json.loads(out)
    assert code == 0
    core = next(d for d in doc["distributions"] if d["name"] == "bunzai-core")
    assert core["adapters"][0]["format"] == "vaud-json" and core["compatible"]


def test_schema_prints_json_schema_and_rejects_unknown_kinds() -> None:
    code, out, _ = invoke("schema", "lorebook")
    assert code == 0 and json.loads(out)["title"] == "Lorebook"
    code, _, err = invoke("schema", "spaceship")
    assert code == 2 and "unknown kind" in err


def test_help_and_version_import_no_format_plugin_or_models() -> None:
    """Help lists plugin commands from the plugins group; it loads no format adapter, no
    registry and no pydantic model."""
    probe = ("import sys\nfrom bunzai.cli import main\n"
             "for args in (['--help'], ['--version']):\n"
             "    try:\n        main(args)\n    except SystemExit:\n        pass\n"
             "bad = [m for m in sys.modules if m.startswith(('bunzai_tavern', 'bunzai_risu', "
             "'bunzai_backyard', 'bunzai_novelai', 'pydantic', 'PIL', 'importlib.metadata'))"
             " or m in ('bunzai.model', 'bunzai.host.registry',"
             " 'bunzai.host.plugins', 'bunzai.host.types')]\n"
             "print('LOADED', bad)\n")
    res = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                         check=True)
    assert "LOADED []" in res.stdout, res.stdout
    assert "bunzai" in res.stdout and "Usage" in res.stdout

"""risu-module: the .risum layout, RPack, the module mapping and clear refusals."""

from __future__ import annotations

import json
import struct
from pathlib import Path
from typing import Any

import pytest

from bunzai.sdk import (
    AdapterInput,
    Asset,
    Lorebook,
    LorebookEntry,
    MalformedInput,
    Module,
    RegexScript,
    UnsupportedInput,
)
from bunzai.sdk.png import minimal_png
from bunzai.testing import load_registry, samples_dir
from bunzai_risu._common import risum, rpack

SAMPLE = samples_dir() / "risu" / "gen_risu_module.risum"
VERSION1 = samples_dir() / "risu" / "gen_malformed_version1.risum"
RPACK_MAP = samples_dir() / "risu" / "rpack_map.bin"

pytestmark = pytest.mark.skipif(not SAMPLE.exists(), reason="shared samples not available")


@pytest.fixture(scope="module")
def reg() -> Any:
    return load_registry()


def _read(reg: Any, data: bytes | Path, name: str = "m.risum") -> Module:
    source = data.read_bytes() if isinstance(data, Path) else data
    _, result, _ = reg.read(AdapterInput(source, name))
    (module,) = result.entities
    assert isinstance(module, Module)
    return module


def test_rpack_table_is_the_format_table() -> None:
    table = RPACK_MAP.read_bytes()
    assert table[:256] == rpack.ENCODE_TABLE
    assert table[256:] == rpack.DECODE_TABLE
    assert sorted(rpack.ENCODE_TABLE) == list(range(256))
    assert all(rpack.ENCODE_TABLE[b] != b for b in range(256))  # no fixed points
    blob = bytes(range(256)) * 3
    assert rpack.decode(rpack.encode(blob)) == blob


def test_sample_module_maps_every_part(reg: Any) -> None:
    assert reg.detect(AdapterInput.from_path(SAMPLE)).winner.format == "risu-module"  # type: ignore[union-attr]
    m = _read(reg, SAMPLE)
    assert (m.name, m.namespace, m.id) == ("Harbor Lore", "harbor",
                                           "0b7c6a2e-2222-4222-8222-000000000002")
    assert m.lorebook is not None
    folder, harbor, lantern, always = m.lorebook.entries
    assert folder.is_folder and folder.id == "6f1d1b0e-0000-4000-8000-000000000001"
    assert harbor.folder == folder.id
    assert (harbor.position, harbor.depth, harbor.role) == ("at_depth", 4, "system")
    assert harbor.content == "The harbor smells of tar and salt."
    assert lantern.keys == ["/lanterns?/i"] and lantern.use_regex
    assert always.constant and always.content.startswith("@@position after_desc")
    assert [s.name for s in m.regex_scripts] == ["Strip OOC", "Bold names"]
    assert m.regex_scripts[1].extensions == {"risuai": {"meta_flags": "<order 5>"}}
    assert m.triggers is not None and m.triggers[1]["effect"][0]["type"] == "triggerlua"
    (asset,) = m.assets
    assert asset.name == "room" and asset.media_type == "image/png"
    assert m.app_data["risu-module"]["hideIcon"] is False
    assert m.app_data["risu-module"]["customModuleToggle"] == ""


def test_same_format_round_trip_is_byte_identical(reg: Any) -> None:
    m = _read(reg, SAMPLE)
    out = reg.write([m], "risu-module")
    assert not out.loss
    assert out.data == SAMPLE.read_bytes()
    back = _read(reg, out.data)
    assert back.assets[0].data == m.assets[0].data
    assert back.model_dump(exclude={"passthrough"}) == m.model_dump(exclude={"passthrough"})


def test_edited_entry_regenerates_its_decorators(reg: Any) -> None:
    m = _read(reg, SAMPLE)
    assert m.lorebook is not None
    m.lorebook.entries[1].depth = 2
    m.lorebook.entries[1].enabled = False
    body, _ = risum_main(reg.write([m], "risu-module").data)
    content = body["module"]["lorebook"][1]["content"]
    assert content.splitlines()[:3] == ["@@depth 2", "@@role system", "@@dont_activate"]
    again = _read(reg, reg.write([m], "risu-module").data)
    assert again.lorebook is not None and again.lorebook.entries[1].enabled is False


def risum_main(data: bytes) -> tuple[dict, list[bytes]]:
    decoded = risum.decode(data)
    return decoded.main, decoded.assets


def test_unknown_version_is_recognised_then_refused(reg: Any) -> None:
    rep = reg.detect(AdapterInput.from_path(VERSION1))
    assert rep.winner is not None and rep.winner.format == "risu-module"
    with pytest.raises(UnsupportedInput, match="version 1 is not supported") as err:
        reg.read(AdapterInput.from_path(VERSION1))
    assert err.value.exit_code == 4


def test_truncated_main_block_is_refused() -> None:
    with pytest.raises(MalformedInput, match="truncated"):
        risum.decode(SAMPLE.read_bytes()[:40])


def test_huge_declared_length_is_refused_without_allocating() -> None:
    data = SAMPLE.read_bytes()
    with pytest.raises(MalformedInput, match="truncated"):
        risum.decode(data[:2] + struct.pack("<I", 0xFFFFFFF0) + data[6:])


def test_unknown_record_marker_is_refused() -> None:
    with pytest.raises(MalformedInput, match="unknown record marker 0x07"):
        risum.decode(SAMPLE.read_bytes()[:-1] + b"\x07")


def test_asset_record_longer_than_the_file_is_refused() -> None:
    main = risum.dump_main({"name": "x", "id": "1", "assets": [["a", "", "png"]]})
    blob = risum.encode(main, [b"abc"])
    hostile = blob[: -(1 + 4 + 3 + 1)] + b"\x01" + struct.pack("<I", 2**32 - 1) + b"abc\x00"
    with pytest.raises(MalformedInput, match="declares 4,294,967,295 bytes"):
        risum.decode(hostile)


def test_missing_end_marker_and_count_mismatch_are_warnings(reg: Any) -> None:
    main = risum.dump_main({"name": "x", "id": "1", "assets": [["a", "", "png"]]})
    data = risum.encode(main, [b"one", b"two"])[:-1]
    _, result, _ = reg.read(AdapterInput(data, "x.risum"))
    messages = " ".join(w.message for w in result.warnings)
    assert "no end marker" in messages and "1 asset(s) but holds 2" in messages
    (module,) = result.entities
    assert [a.orphan for a in module.assets] == [False, True]


def test_new_module_from_canonical_reads_back(reg: Any) -> None:
    m = Module(name="Weather", description="Rain and sun",
               lorebook=Lorebook(entries=[LorebookEntry(keys=["rain", "storm"], content="Wet.",
                                                        sticky=3)]),
               regex_scripts=[RegexScript(name="x", pattern="a", replace="b", flags="gi",
                                          placement=["ai_output"])],
               triggers=[{"comment": "t", "type": "start", "conditions": [], "effect": []}],
               assets=[Asset(type="x-risu-asset", name="sun", data=minimal_png())])
    out = reg.write([m], "risu-module")
    paths = {e.path for e in out.loss}
    assert "id" not in paths  # generated (RisuAI needs one and replaces it on import)
    assert "lorebook.entries[0].sticky" in paths
    back = _read(reg, out.data)
    assert back.lorebook is not None and back.lorebook.entries[0].keys == ["rain", "storm"]
    assert back.regex_scripts[0].flags == "gi"
    assert back.triggers == m.triggers
    assert back.assets[0].data == m.assets[0].data


def test_flat_module_json_reads_and_writes(reg: Any) -> None:
    flat = {"name": "Flat", "id": "abc", "description": "", "type": "risuModule",
            "regex": [{"comment": "c", "in": "a", "out": "b", "type": "editinput"}],
            "mcp": {"url": "http://localhost:1"}}
    data = json.dumps(flat).encode()
    assert reg.detect(AdapterInput(data, "m.json")).winner.format == "risu-module"  # type: ignore[union-attr]
    m = _read(reg, data, "m.json")
    assert m.app_data["risu-module"]["mcp"] == {"url": "http://localhost:1"}
    out = reg.write([m], "risu-module")
    assert out.suffix == ".json" and json.loads(out.data) == flat
    issues = reg.adapters["risu-module"].call(
        "bunzai_validate", input=AdapterInput(data, "m.json"), entities=[m])
    assert any("MCP server" in i.message for i in issues)

"""Helpers the CLI and the studio share, so both name outputs and report issues alike."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bunzai.api import parse_options
from bunzai.engine.validate import file_issues
from bunzai.errors import UsageError
from bunzai.host.registry import Registry
from bunzai.io.input import as_input
from bunzai.io.outputs import OutputFile, output_names, write_atomic
from bunzai.model import Character


def test_one_file_is_stem_plus_suffix() -> None:
    assert output_names("Wren", [OutputFile(b"", ".png")]) == ["Wren.png"]


def test_several_files_get_safe_unique_names_case_insensitively() -> None:
    files = [OutputFile(b"", ".json", "Ann"), OutputFile(b"", ".json", "ann"),
             OutputFile(b"", ".json", "a/b"), OutputFile(b"", ".json", None)]
    assert output_names("backup", files) == [
        "backup-Ann.json", "backup-ann-2.json", "backup-a_b.json", "backup-4.json"]


def test_an_output_in_parts_streams_them_and_joins_on_demand(tmp_path: Path) -> None:
    produced: list[int] = []

    class Lazy:
        """A part produced as it is written (a base64 asset chunk, say)."""

        def __iter__(self) -> Iterator[bytes]:
            produced.append(1)
            yield b"cd"
            yield b"ef"

    out = OutputFile([b"ab", memoryview(b"__x")[2:], Lazy()], ".bin")
    write_atomic(tmp_path / "a.bin", out.parts)
    write_atomic(tmp_path / "b.bin", out.parts)  # the parts can be written again
    assert (tmp_path / "a.bin").read_bytes() == (tmp_path / "b.bin").read_bytes() == b"abxcdef"
    assert out.data == b"abxcdef" and out.data is out.data
    assert len(produced) == 3  # twice written, once joined
    assert out == OutputFile(b"abxcdef", ".bin") != OutputFile(b"abxcdef", ".png")


def test_parse_options_keeps_values_as_text_for_the_format_to_type() -> None:
    assert parse_options(["spec=v3", "pretty=TRUE", "k=a=b"]) == {
        "spec": "v3", "pretty": "TRUE", "k": "a=b"}
    assert parse_options(None) == {}
    with pytest.raises(UsageError, match="KEY=VALUE"):
        parse_options(["novalue"])


def test_file_issues_lists_reader_warnings_then_format_then_canonical() -> None:
    import bunzai

    reg = Registry.load(autoload=False)
    data = bunzai.write(Character(name=" "), "vaud-json", registry=reg).data
    inp = as_input(data, "empty.vaud.json")
    handle, result, _ = reg.read(inp)
    issues = file_issues(reg, handle, inp, result)
    assert [(i.path, i.severity) for i in issues] == [
        ("canonical.name", "warning"), ("canonical", "warning")]


def test_the_hint_table_names_every_first_party_format() -> None:
    """The table core keeps to point at a missing distribution lists each installed first-party
    adapter's id and aliases under its own distribution."""
    from bunzai.host.hints import FIRST_PARTY
    from bunzai.testing import load_registry

    rows = {d.name: set(d.formats) for d in FIRST_PARTY}
    reg = load_registry()
    for info in reg.formats():
        dist = reg.adapters[info.id].distribution
        if dist in rows:
            assert {info.id, *info.aliases} <= rows[dist], (dist, info.id, info.aliases)

"""Helpers the CLI and the studio share, so both name outputs and report issues alike."""

from __future__ import annotations

import pytest

from bunzai.api import as_input, parse_options
from bunzai.errors import UsageError
from bunzai.model import Character
from bunzai.outputs import output_names
from bunzai.registry import Registry
from bunzai.types import OutputFile
from bunzai.validate import file_issues


def test_one_file_is_stem_plus_suffix() -> None:
    assert output_names("Wren", [OutputFile(b"", ".png")]) == ["Wren.png"]


def test_several_files_get_safe_unique_names_case_insensitively() -> None:
    files = [OutputFile(b"", ".json", "Ann"), OutputFile(b"", ".json", "ann"),
             OutputFile(b"", ".json", "a/b"), OutputFile(b"", ".json", None)]
    assert output_names("backup", files) == [
        "backup-Ann.json", "backup-ann-2.json", "backup-a_b.json", "backup-4.json"]


def test_parse_options_turns_true_false_into_booleans() -> None:
    assert parse_options(["spec=v3", "pretty=TRUE", "x=false", "k=a=b"]) == {
        "spec": "v3", "pretty": True, "x": False, "k": "a=b"}
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

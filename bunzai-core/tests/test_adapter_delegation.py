"""An adapter can name its reader, writer, validator and labeler instead of writing the stanza
that imports them: they load on first use, so detection never pays for them."""

from __future__ import annotations

import sys
from collections.abc import Callable

import pytest

from bunzai.sdk import AdapterInput, WriteResult


@pytest.fixture
def plugin(write_package: Callable[[dict[str, str]], None]) -> None:
    write_package({"delegating_plugin/note/__init__.py": '''
        from bunzai.sdk import FormatAdapter, Detection

        class NoteAdapter(FormatAdapter):
            format_id = "note"
            kind = "persona"
            reader = "io:read_note"
            writer = "io:write_note"
            validator = "io:check_note"
            labeler = "io:rules"

            def detect(self, input):
                return Detection(0.0)
    ''', "delegating_plugin/note/io.py": '''
        from bunzai.sdk import Issue, OutputFile, WriteResult, Persona

        def read_note(input, options, format_id):
            return Persona(name=input.data.decode(), description=format_id)

        def write_note(entity, options, format_id):
            return WriteResult([OutputFile(entity.name.encode(), ".txt")])

        def check_note(input, entities, format_id):
            return [Issue("$", f"{format_id}: {len(entities)} entity")]

        def rules():
            return []
    '''})


def test_named_functions_do_the_work_and_load_on_first_use(plugin: None) -> None:
    from delegating_plugin.note import NoteAdapter  # type: ignore[import-not-found]

    info = NoteAdapter.info()
    assert info.can_read and info.can_write
    assert "delegating_plugin.note.io" not in sys.modules
    adapter = NoteAdapter()
    ent = adapter.read(AdapterInput(b"Ada", "x.txt"), {})
    assert "delegating_plugin.note.io" in sys.modules
    assert (ent.name, ent.description) == ("Ada", "note")
    out = adapter.write(ent, {})
    assert isinstance(out, WriteResult) and out.files[0].data == b"Ada"
    assert adapter.validate(AdapterInput(b"x", "x.txt"), [ent])[0].message == "note: 1 entity"
    assert adapter.label_rules() == []

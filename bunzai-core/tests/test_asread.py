"""An unchanged rewrite gives back the file it was read from: the JSON text, the zip archive.

Files here are our own, laid out as other tools lay them out (short arrays on one line, tab
indents, ``\\u`` escapes, a blank line at the end; zips with other timestamps, compression and
comments), read and written through the registry (the native vaud-json format) or core's zip
writer.
"""

from __future__ import annotations

import gc
import json
import re

import pytest

from bunzai.asread import recall, remember, same_json
from bunzai.model import Character, Lorebook, LorebookEntry
from bunzai.testing import as_input, load_registry

VAUD = "vaud-json"


def _inline_arrays(text: str) -> str:
    """Arrays of short strings on one line, as many editors and tools write them."""
    def join(m: re.Match[str]) -> str:
        return "[" + re.sub(r",\s+", ", ", m.group(1).strip()) + "]"
    return re.sub(r"\[(\s+\"[^\"\n]*\"(?:,\s+\"[^\"\n]*\")*\s+)\]", join, text)


# -- the rule -------------------------------------------------------------------------------


def test_the_source_text_is_given_back_for_the_same_value() -> None:
    source = b'{\n\t"tags": ["a", "b"],\n\t"n": 1\n}\n\n'
    assert same_json(b'{"tags":["a","b"],"n":1}', source) is source
    assert same_json(b'{"n":1,"tags":["a","b"]}', source) is source  # key order aside
    escaped = b'["\\u00e9t\\u00e9"]'
    assert same_json('["été"]'.encode(), escaped) is escaped


@pytest.mark.parametrize("out", [b'{"n":1.0}', b'{"n":true}', b'{"n":"1"}', b'{"n":2}',
                                 b'{"n":1,"m":null}', b"\x89PNG\r\n", b"[1]", b""])
def test_a_different_value_is_written_as_the_writer_wrote_it(out: bytes) -> None:
    assert same_json(out, b'{"n": 1}') is out


def test_nothing_remembered_writes_what_the_writer_wrote() -> None:
    out = b'{"a":1}'
    assert same_json(out, None) is out
    assert same_json(out, b"not json") is out


def test_the_memory_is_not_part_of_the_entity() -> None:
    a, b = Character(name="x"), Character(name="x")
    remember(a, "file", ("f", b"{}", 1))
    assert a == b and a.model_dump() == b.model_dump()
    assert recall(a.model_copy(), "file") is None  # a copy is a new entity
    key = id(a)
    del a
    gc.collect()
    from bunzai import asread
    assert key not in asread._TABLE


# -- JSON files through the registry ----------------------------------------------------------


def _vaud_file(entity: Character) -> bytes:
    reg = load_registry()
    out = reg.write([entity], VAUD).files[0].data
    return (_inline_arrays(json.dumps(json.loads(out), indent="\t", ensure_ascii=True))
            + "\n\n").encode()


def _character() -> Character:
    return Character(name="Ash", description="A lamplighter \u00e9", tags=["quiet", "kind"],
                     alternate_greetings=["Evening.", "Lamps are lit."],
                     lorebook=Lorebook(entries=[LorebookEntry(keys=["lamp", "oil"],
                                                              content="Oil is scarce.")]))


def test_an_unchanged_json_file_is_written_back_byte_for_byte() -> None:
    reg = load_registry()
    source = _vaud_file(_character())
    assert b'["quiet", "kind"]' in source and b"\\u00e9" in source
    _, res, _ = reg.read(as_input(source, "ash.json"), format=VAUD)
    assert reg.write(res.entities, VAUD).files[0].data == source


def test_a_changed_json_file_is_written_anew_with_the_change() -> None:
    reg = load_registry()
    source = _vaud_file(_character())
    _, res, _ = reg.read(as_input(source, "ash.json"), format=VAUD)
    res.entities[0].description = "A lamplighter, retired"
    out = reg.write(res.entities, VAUD).files[0].data
    assert out != source
    assert b"retired" in out


def test_a_copy_or_a_new_entity_is_written_anew() -> None:
    reg = load_registry()
    source = _vaud_file(_character())
    _, res, _ = reg.read(as_input(source, "ash.json"), format=VAUD)
    assert reg.write([res.entities[0].model_copy()], VAUD).files[0].data != source

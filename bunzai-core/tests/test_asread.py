"""An unchanged rewrite gives back the file it was read from: the JSON text, the zip archive.

Files here are our own, laid out as other tools lay them out (short arrays on one line, tab
indents, ``\\u`` escapes, a blank line at the end; zips with other timestamps, compression and
comments), read and written through the registry (the native vaud-json format) or core's zip
writer.
"""

from __future__ import annotations

import gc
import io
import json
import random
import zipfile
import zlib

import pytest

from bunzai.io.asread import ZIP, recall, remember, same_json
from bunzai.io.containers.zipsafe import SafeZip, write_zip
from bunzai.model import Character, Lorebook, LorebookEntry
from bunzai.testing import as_input, hand_laid, load_registry

VAUD = "vaud-json"


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
    from bunzai.io import asread
    assert key not in asread._TABLE


# -- JSON files through the registry ----------------------------------------------------------


def _vaud_file(entity: Character) -> bytes:
    reg = load_registry()
    out = reg.write([entity], VAUD).files[0].data
    return hand_laid(json.loads(out), "\t", ascii=True)


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


# -- zip archives ---------------------------------------------------------------------------


def _archive(members: list[tuple[str, bytes, int, int]], comment: bytes = b"",
             prefix: bytes = b"") -> bytes:
    """A zip as another tool writes it: its own timestamps, methods and levels, a comment."""
    buf = io.BytesIO()
    buf.write(prefix)
    with zipfile.ZipFile(buf, "w") as zf:
        for name, data, method, level in members:
            info = zipfile.ZipInfo(name, (2023, 5, 17, 9, 41, 12))
            info.compress_type = method
            info.external_attr = 0o600 << 16
            zf.writestr(info, data, compresslevel=level)
        zf.comment = comment
    return buf.getvalue()


CARD = b'{\n  "name": "Ash",\n  "tags": ["quiet", "kind"]\n}\n'
NOISE = random.Random(7).randbytes(1_500_000)  # incompressible: deflated into stored blocks


def _members() -> list[tuple[str, bytes, int, int]]:
    return [("card.json", CARD, zipfile.ZIP_DEFLATED, 9),
            ("assets/", b"", zipfile.ZIP_STORED, 0),
            ("assets/a.bin", NOISE, zipfile.ZIP_DEFLATED, 0),
            ("assets/b.txt", b"hello " * 500, zipfile.ZIP_DEFLATED, 1),
            ("assets/c.bin", b"\x00\x01" * 10, zipfile.ZIP_STORED, 0)]


def _read_back(data: bytes) -> tuple[Character, list[tuple[str, bytes]]]:
    entity = Character(name="Ash")
    zf = SafeZip.open(data)
    remember(entity, ZIP, zf.source())
    return entity, [(n, zf.read(n)) for n in zf.names()]


@pytest.mark.parametrize("prefix", [b"", b"\xff\xd8\xff\xe0 a cover \xff\xd9"])
def test_an_unchanged_archive_is_written_back_byte_for_byte(prefix: bytes) -> None:
    source = _archive(_members(), b"made elsewhere", prefix)
    entity, members = _read_back(source)
    assert write_zip(members, comment=b"made elsewhere", prefix=prefix, like=entity) == source
    assert write_zip(members, comment=b"made elsewhere", prefix=prefix) != source


def test_stored_blocks_are_made_again_not_kept() -> None:
    zf = SafeZip.open(_archive(_members()))
    kinds = {m.name: m.payload.kind for m in zf.source().members if m.payload}
    assert kinds == {"card.json": "raw", "assets/": "stored", "assets/a.bin": "blocks",
                     "assets/b.txt": "raw", "assets/c.bin": "stored"}


@pytest.mark.parametrize("change", ["member", "order", "comment", "prefix", "more"])
def test_a_changed_archive_is_written_anew(change: str) -> None:
    source = _archive(_members(), b"c")
    entity, members = _read_back(source)
    comment, prefix = b"c", b""
    if change == "member":
        members[3] = ("assets/b.txt", b"bye")
    elif change == "order":
        members[3], members[4] = members[4], members[3]
    elif change == "comment":
        comment = b"d"
    elif change == "prefix":
        prefix = b"\xff\xd8\xff\xd9"
    else:
        members.append(("assets/d.txt", b"new"))
    out = write_zip(members, comment=comment, prefix=prefix, like=entity)
    assert out != source
    got = SafeZip.open(out)
    assert [(n, got.read(n)) for n in got.names()] == members
    assert got.comment == comment


def test_an_unchanged_json_member_keeps_its_text_when_others_change() -> None:
    source = _archive(_members())
    entity, members = _read_back(source)
    members[0] = ("card.json", json.dumps(json.loads(CARD)).encode())  # re-serialized, same value
    members[3] = ("assets/b.txt", b"bye")
    got = SafeZip.open(write_zip(members, like=entity))
    assert got.read("card.json") == CARD
    members[0] = ("card.json", b'{"name": "Ash", "tags": ["quiet"]}')
    got = SafeZip.open(write_zip(members, like=entity))
    assert got.read("card.json") == b'{"name": "Ash", "tags": ["quiet"]}'


def test_a_member_compressed_by_another_tool_must_inflate_to_the_bytes_written() -> None:
    # same size and CRC cannot stand in for the bytes where the compressed data is kept
    source = _archive([("a.txt", b"abc" * 100, zipfile.ZIP_DEFLATED, 9)])
    entity, _ = _read_back(source)
    member = SafeZip.open(source).source().members[0]
    assert member.payload is not None and member.payload.kind == "raw"
    assert zlib.crc32(b"abc" * 100) == member.crc
    assert write_zip([("a.txt", b"abc" * 100)], like=entity) == source


def test_folder_entries_are_the_archive_s_layout() -> None:
    source = _archive([m for m in _members() if not m[0].endswith("/")])
    entity, members = _read_back(source)
    assert write_zip(members, dirs=True, like=entity) == source

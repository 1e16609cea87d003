"""PNG chunk walking, text chunks and splicing, on built fixtures and the shared corpus."""

from __future__ import annotations

import base64
import glob
import json
import os
import random
import struct
import zlib
from collections.abc import Mapping

import pytest

from bunzai.errors import BunzaiError, LimitExceeded, MalformedInput
from bunzai.io.containers.png import (
    PNG_SIGNATURE,
    Base64TextChunk,
    PngFile,
    is_text_chunk_with_keyword,
    make_chunk,
    make_text_chunk,
    minimal_png,
    splice,
    splice_parts,
)
from bunzai.io.limits import Limits

CORPUS = "/work/shared/corpus"
CORPUS_PNGS = sorted(glob.glob(f"{CORPUS}/png-*/*.png"))
RISU_PNG = "/work/shared/samples/risu/gen_risu_card_v3.png"
IEND = make_chunk(b"IEND", b"")


def build_png(*middle: bytes, iend: bool = True, after: bytes = b"") -> bytes:
    """Signature + IHDR + IDAT of a 2x2 image + ``middle`` chunks + IEND + ``after``."""
    base = minimal_png(2, 2, (1, 2, 3, 255))
    p = PngFile.parse(base)
    ihdr, idat = p.chunks[0].raw.tobytes(), p.chunks[1].raw.tobytes()
    return PNG_SIGNATURE + ihdr + idat + b"".join(middle) + (IEND if iend else b"") + after


def card_png(card: Mapping[str, object], keyword: str = "chara", kind: str = "tEXt") -> bytes:
    b64 = base64.b64encode(json.dumps(card).encode()).decode()
    return build_png(make_text_chunk(keyword, b64, kind))


# -- real files ------------------------------------------------------------------------------


@pytest.mark.skipif(not CORPUS_PNGS, reason="shared corpus not available")
@pytest.mark.parametrize("path", CORPUS_PNGS, ids=os.path.basename)
def test_corpus_card_chunk_found(path: str) -> None:
    with open(path, "rb") as f:
        data = f.read()
    png = PngFile.parse(data)
    assert not png.truncated
    assert png.iend_index == len(png.chunks) - 1
    found = png.find_text("chara", "ccv3")
    assert found, png.chunk_types
    keywords = {t.keyword.lower() for t in found}
    if "png-both" in path:
        assert keywords == {"chara", "ccv3"}
    for text in found:
        card = json.loads(base64.b64decode(text.value_bytes()))
        assert isinstance(card, dict)
    assert all(c.crc_ok() for c in png.chunks)
    assert splice(png) == data


@pytest.mark.skipif(not os.path.exists(RISU_PNG), reason="risu samples not available")
def test_risu_sample_has_ccv3_and_assets() -> None:
    with open(RISU_PNG, "rb") as f:
        png = PngFile.parse(f.read())
    keywords = [t.keyword for t in png.text_chunks()]
    assert "ccv3" in keywords
    assert png.find_text("CCV3")


# -- text chunks -----------------------------------------------------------------------------


def test_text_kinds_are_read() -> None:
    data = build_png(
        make_text_chunk("chara", "plain latin-1 é"),
        make_text_chunk("ccv3", "compressed " * 50, "zTXt"),
        make_text_chunk("Comment", "ünïcødé ✓", "iTXt"),
        make_chunk(b"iTXt", b"Title\x00\x01\x00en\x00Titel\x00" + zlib.compress("日本".encode())),
    )
    png = PngFile.parse(data)
    texts = png.text_chunks()
    assert [t.kind for t in texts] == ["tEXt", "zTXt", "iTXt", "iTXt"]
    assert texts[0].value_text() == "plain latin-1 é"
    assert texts[1].compressed and texts[1].value_text() == "compressed " * 50
    assert texts[2].value_text() == "ünïcødé ✓"
    assert not texts[2].compressed
    assert texts[3].compressed and texts[3].language == "en"
    assert texts[3].translated_keyword == "Titel"
    assert texts[3].value_text() == "日本"
    assert isinstance(texts[0].value_buffer(), memoryview)  # zero copy when uncompressed


def test_find_text_is_case_insensitive() -> None:
    data = build_png(make_text_chunk("Chara", "a"), make_text_chunk("CCV3", "b", "zTXt"),
                     make_text_chunk("other", "c"))
    png = PngFile.parse(data)
    assert [t.keyword for t in png.find_text("chara", "ccv3")] == ["Chara", "CCV3"]
    assert [t.keyword for t in png.find_text("CHARA")] == ["Chara"]
    assert png.find_text("missing") == []


def test_malformed_text_headers_are_skipped() -> None:
    data = build_png(
        make_chunk(b"tEXt", b"no-terminator"),
        make_chunk(b"zTXt", b"kw\x00\x05xx"),
        make_chunk(b"zTXt", b"kw\x00"),
        make_chunk(b"iTXt", b"kw\x00\x00\x00en"),
        make_chunk(b"iTXt", b"kw\x00\x07\x00\x00\x00x"),
        make_text_chunk("chara", "ok"),
    )
    png = PngFile.parse(data)
    texts = png.text_chunks()
    assert [t.keyword for t in texts] == ["chara"]
    assert len(png.problems) == 5
    png.text_chunks()  # cached: problems are not added twice
    assert len(png.problems) == 5


def test_bad_text_payloads_raise_malformed() -> None:
    data = build_png(
        make_chunk(b"zTXt", b"a\x00\x00not zlib"),
        make_chunk(b"zTXt", b"b\x00\x00" + zlib.compress(b"x" * 1000)[:-6]),
        make_chunk(b"iTXt", b"c\x00\x00\x00\x00\x00\xff\xfe"),
    )
    a, b, c = PngFile.parse(data).text_chunks()
    with pytest.raises(MalformedInput, match="corrupt zlib"):
        a.value_bytes()
    with pytest.raises(MalformedInput, match="truncated zlib"):
        b.value_bytes()
    assert c.value_bytes() == b"\xff\xfe"
    with pytest.raises(MalformedInput, match="UTF-8"):
        c.value_text()


def test_ztxt_bomb_refused_by_ratio() -> None:
    bomb = zlib.compress(b"\x00" * (8 * 1024 * 1024), 9)  # ~8 KB inflating to 8 MiB
    png = PngFile.parse(build_png(make_chunk(b"zTXt", b"chara\x00\x00" + bomb)))
    (text,) = png.text_chunks()
    with pytest.raises(LimitExceeded) as err:
        text.value_bytes()
    assert err.value.what == "zTXt/iTXt payload"
    assert "BUNZAI_MAX_RATIO" in str(err.value)
    assert err.value.value == err.value.limit + 1  # stopped right after the limit


def test_ztxt_size_limit() -> None:
    payload = os.urandom(300_000).hex().encode()  # incompressible-ish, 600 KB
    png = PngFile.parse(build_png(make_text_chunk("chara", payload, "zTXt")))
    (text,) = png.text_chunks()
    assert text.value_bytes() == payload
    with pytest.raises(LimitExceeded, match="BUNZAI_MAX_TEXT_CHUNK"):
        text.value_bytes(Limits(max_text_chunk=100_000))
    itxt = make_chunk(b"iTXt", b"k\x00\x01\x00\x00\x00" + zlib.compress(payload))
    (text,) = PngFile.parse(build_png(itxt)).text_chunks()
    with pytest.raises(LimitExceeded):
        text.value_text(Limits(max_text_chunk=1000))


def test_small_compressible_text_is_fine() -> None:
    text = "{" + " " * 500_000 + "}"
    png = PngFile.parse(build_png(make_text_chunk("chara", text, "zTXt")))
    assert png.text_chunks()[0].value_text() == text


# -- structure ------------------------------------------------------------------------------


def test_chunk_fields_and_crc() -> None:
    data = build_png(make_text_chunk("chara", "abc"))
    png = PngFile.parse(data)
    chunk = png.chunks_of("tEXt")[0]
    assert chunk.type == "tEXt"
    assert chunk.length == len(b"chara\x00abc")
    assert bytes(chunk.data) == b"chara\x00abc"
    assert chunk.raw.tobytes() == data[chunk.offset:chunk.end]
    assert chunk.end == chunk.offset + 12 + chunk.length
    assert chunk.crc_ok()
    assert png.chunks_of(b"tEXt") == [chunk]
    bad = bytearray(data)
    bad[chunk.offset + 8] ^= 1
    broken = PngFile.parse(bytes(bad))
    assert not broken.chunks_of("tEXt")[0].crc_ok()
    assert broken.problems == []  # CRC is not checked during the walk


def test_memoryview_input() -> None:
    data = build_png(make_text_chunk("chara", "abc"))
    png = PngFile.parse(memoryview(bytearray(data)))
    assert png.find_text("chara")[0].value_bytes() == b"abc"
    assert splice(png) == data


def test_minimal_png() -> None:
    data = minimal_png(3, 2, (255, 0, 0, 255))
    png = PngFile.parse(data)
    assert (png.width, png.height) == (3, 2)
    assert png.chunk_types == ["IHDR", "IDAT", "IEND"]
    assert png.problems == []
    assert all(c.crc_ok() for c in png.chunks)
    raw = zlib.decompress(png.chunks_of("IDAT")[0].data)
    assert raw == (b"\x00" + b"\xff\x00\x00\xff" * 3) * 2
    with pytest.raises(MalformedInput):
        minimal_png(0, 1)


def test_bad_signature_and_missing_ihdr() -> None:
    with pytest.raises(MalformedInput, match="bad signature"):
        PngFile.parse(b"GIF89a" + b"\x00" * 40)
    with pytest.raises(MalformedInput, match="IHDR"):
        PngFile.parse(PNG_SIGNATURE + make_text_chunk("chara", "x") + IEND)
    with pytest.raises(MalformedInput, match="IHDR"):
        PngFile.parse(PNG_SIGNATURE)


def test_max_size_limit() -> None:
    """The remedy in Python's words (the command line says --max-size)."""
    with pytest.raises(LimitExceeded, match=r"replace\(max_size=BYTES\)\) or BUNZAI_MAX_SIZE"):
        PngFile.parse(build_png(), limits=Limits(max_size=10))


def test_apng_flag() -> None:
    actl = make_chunk(b"acTL", struct.pack(">II", 1, 0))
    base = build_png()
    sig_ihdr_end = 8 + 25
    apng = base[:sig_ihdr_end] + actl + base[sig_ihdr_end:]
    assert PngFile.parse(apng).is_apng
    assert not PngFile.parse(base).is_apng
    late = build_png(actl)  # acTL after IDAT does not make an APNG
    assert not PngFile.parse(late).is_apng


def test_truncated_at_every_offset() -> None:
    data = build_png(make_text_chunk("chara", "x" * 40), make_text_chunk("ccv3", "y" * 30, "zTXt"))
    full = PngFile.parse(data)
    boundaries = {c.end for c in full.chunks}
    for cut in range(len(data)):
        try:
            png = PngFile.parse(data[:cut])
        except MalformedInput:
            assert cut < full.chunks[0].end  # only a missing/cut IHDR is fatal
            continue
        assert png.truncated
        assert png.iend_index is None
        assert any("IEND" in p for p in png.problems)
        assert all(c.end <= cut for c in png.chunks)
        assert [c.raw.tobytes() for c in png.chunks] == [
            c.raw.tobytes() for c in full.chunks if c.end <= cut
        ]
        if cut not in boundaries:
            assert any("truncated" in p for p in png.problems)
        for t in png.text_chunks():
            t.value_bytes()
        rebuilt = splice(png, insert_before_iend=[make_text_chunk("chara", "new")])
        again = PngFile.parse(rebuilt)
        assert not again.truncated and again.find_text("chara")[-1].value_text() == "new"


def test_huge_chunk_lengths_stop_the_walk() -> None:
    for length in (2**31 - 1, 2**31, 2**32 - 1):
        head = build_png(iend=False)
        data = head + struct.pack(">I", length) + b"tEXt" + b"chara\x00abc"
        png = PngFile.parse(data)
        assert png.truncated
        assert png.chunk_types == ["IHDR", "IDAT"]
        reason = "exceeds 2**31-1" if length > 2**31 - 1 else "runs past the end"
        assert any(reason in p for p in png.problems), png.problems


def test_invalid_chunk_type_stops_the_walk() -> None:
    data = build_png(iend=False) + b"\x00\x00\x00\x00\x00\x01\x02\x03" + b"\x00" * 4 + IEND
    png = PngFile.parse(data)
    assert png.truncated
    assert any("invalid chunk type" in p for p in png.problems)


def test_random_corruption_only_raises_bunzai_errors() -> None:
    data = build_png(make_text_chunk("chara", "x" * 40), make_text_chunk("ccv3", "y" * 300, "zTXt"),
                     make_text_chunk("i", "z" * 20, "iTXt"))
    rng = random.Random(1234)
    for _ in range(2000):
        mutated = bytearray(data)
        for _ in range(rng.randint(1, 4)):
            mutated[rng.randrange(8, len(mutated))] = rng.randrange(256)
        try:
            png = PngFile.parse(bytes(mutated))
            for t in png.text_chunks():
                t.value_text()
            splice(png, remove=lambda c: is_text_chunk_with_keyword(c, {"chara"}))
        except BunzaiError:
            pass


# -- splice -----------------------------------------------------------------------------------


def test_splice_round_trip_and_insert() -> None:
    data = build_png(make_text_chunk("Chara", "old"), make_chunk(b"prVt", b"private"))
    png = PngFile.parse(data)
    assert splice(png) == data
    new = [make_text_chunk("chara", "new"), make_text_chunk("ccv3", "new3")]
    out = splice(png, remove=lambda c: is_text_chunk_with_keyword(c, {"chara", "ccv3"}),
                 insert_before_iend=new)
    rebuilt = PngFile.parse(out)
    assert rebuilt.chunk_types == ["IHDR", "IDAT", "prVt", "tEXt", "tEXt", "IEND"]
    assert [t.value_text() for t in rebuilt.text_chunks()] == ["new", "new3"]
    assert rebuilt.problems == []
    assert out.endswith(new[1] + IEND)


def test_splice_keeps_data_after_iend() -> None:
    late = make_text_chunk("late", "after")
    data = build_png(make_text_chunk("chara", "x"), after=late + b"garbage!")
    png = PngFile.parse(data)
    assert png.chunk_types[-2:] == ["IEND", "tEXt"]
    assert png.iend_index == len(png.chunks) - 2
    assert png.trailing == len(b"garbage!")
    assert any("after IEND" in p for p in png.problems)
    assert any("trailing" in p for p in png.problems)
    assert not png.truncated
    assert splice(png) == data
    out = splice(png, insert_before_iend=[make_text_chunk("ccv3", "v3")])
    assert out.endswith(make_text_chunk("ccv3", "v3") + IEND + late + b"garbage!")


def test_splice_without_iend_appends_one() -> None:
    data = build_png(make_text_chunk("chara", "x"), iend=False)
    png = PngFile.parse(data)
    assert png.truncated and png.iend_index is None
    out = splice(png, insert_before_iend=[make_text_chunk("ccv3", "y")])
    assert out == data + make_text_chunk("ccv3", "y") + IEND
    assert PngFile.parse(out).problems == []


def test_splice_never_removes_iend() -> None:
    data = build_png(make_text_chunk("chara", "x"))
    out = splice(PngFile.parse(data), remove=lambda c: True)
    assert out == PNG_SIGNATURE + IEND


def test_is_text_chunk_with_keyword() -> None:
    png = PngFile.parse(build_png(make_text_chunk("CHARA", "x", "iTXt"), make_chunk(b"tEXt", b"x")))
    itxt, bad = png.chunks_of("iTXt")[0], png.chunks_of("tEXt")[0]
    assert is_text_chunk_with_keyword(itxt, {"chara"})
    assert not is_text_chunk_with_keyword(itxt, {"ccv3"})
    assert not is_text_chunk_with_keyword(bad, {"x"})
    assert not is_text_chunk_with_keyword(png.chunks[0], {"chara"})


# -- writers -----------------------------------------------------------------------------------


def test_make_chunk_and_text_chunk_validation() -> None:
    chunk = make_chunk("tEXt", b"a\x00b")
    assert chunk[:8] == b"\x00\x00\x00\x03tEXt"
    assert struct.unpack(">I", chunk[-4:])[0] == zlib.crc32(b"tEXta\x00b")
    with pytest.raises(MalformedInput):
        make_chunk(b"tEX", b"")
    with pytest.raises(MalformedInput):
        make_chunk(b"t3Xt", b"")
    with pytest.raises(MalformedInput, match="Latin-1"):
        make_text_chunk("chara", "日本")
    with pytest.raises(MalformedInput):
        make_text_chunk("k" * 80, "x")
    with pytest.raises(MalformedInput):
        make_text_chunk("", "x")
    with pytest.raises(MalformedInput):
        make_text_chunk("chara", "x", "xTXt")
    assert make_text_chunk("chara", b"raw") == make_chunk(b"tEXt", b"chara\x00raw")


def test_card_round_trip_through_each_kind() -> None:
    card = {"name": "Ünï", "spec": "chara_card_v2"}
    for kind in ("tEXt", "zTXt", "iTXt"):
        png = PngFile.parse(card_png(card, "chara", kind))
        (text,) = png.find_text("chara")
        assert json.loads(base64.b64decode(text.value_bytes())) == card


def test_base64_text_chunk_streams_the_chunk_make_text_chunk_builds() -> None:
    rnd = random.Random(3)
    step = Base64TextChunk.PIECE
    for size in (0, 1, 2, 3, step - 1, step, step + 1, 2 * step + 2):
        data = rnd.randbytes(size)
        for kind in ("tEXt", "iTXt"):
            chunk = Base64TextChunk("chara-ext-asset_:1", data, kind)
            whole = make_text_chunk("chara-ext-asset_:1", base64.b64encode(data), kind)
            pieces = list(chunk)
            assert b"".join(pieces) == whole and len(chunk) == len(whole)
            assert list(chunk) == pieces  # iterating again starts over
            if size > step:  # encoded piece by piece, never as one string
                assert max(len(p) for p in pieces) < len(whole) - 12
    with pytest.raises(MalformedInput):
        Base64TextChunk("chara-ext-asset_:1", b"x", "zTXt")
    with pytest.raises(MalformedInput):
        Base64TextChunk("", b"x")


def test_splice_parts_is_what_splice_joins() -> None:
    data = build_png(make_text_chunk("chara", "x"), after=b"tail")
    png = PngFile.parse(data)
    asset = Base64TextChunk("chara-ext-asset_:1", b"bytes of an asset")
    parts = splice_parts(png, remove=lambda c: is_text_chunk_with_keyword(c, {"chara"}),
                         insert_before_iend=[asset])
    flat = b"".join(p if isinstance(p, bytes | memoryview) else b"".join(p) for p in parts)
    assert flat == splice(png, remove=lambda c: is_text_chunk_with_keyword(c, {"chara"}),
                          insert_before_iend=[b"".join(asset)])
    (text,) = PngFile.parse(flat).find_text("chara-ext-asset_:1")
    assert base64.b64decode(text.value_bytes()) == b"bytes of an asset"


def test_drop_by_offset_splices_as_remove_does() -> None:
    """``drop`` (offsets) is ``remove`` without a Chunk per chunk: the same bytes, also for a
    file cut before IEND (a new IEND) and for chunks and bytes after IEND."""
    base = minimal_png(3, 3)
    card = make_text_chunk("chara", "e30=")
    other = make_text_chunk("Comment", "hello")
    iend = base.index(b"IEND") - 4
    files = [
        base[:iend] + card + other + base[iend:],
        base[:iend] + card + other,  # no IEND
        base + card + b"trailing bytes",  # a chunk after IEND, then bytes that are none
    ]
    for data in files:
        png = PngFile.parse(data)
        texts = [c.offset for c in png.chunks if c.type == "tEXt"]
        for gone in ([], texts, texts[:1]):
            by_chunk = splice(png, remove=lambda c, g=gone: c.offset in g)
            assert splice(png, drop=set(gone)) == by_chunk
            assert splice_parts(png, drop=set(gone))[0] == PNG_SIGNATURE


def test_table_lists_every_chunk_as_the_chunks_do() -> None:
    data = minimal_png(2, 2)
    png = PngFile.parse(data)
    assert png.table() == tuple((c.type, c.offset, c.length, c.crc) for c in png.chunks)
    assert png.table() is png.table()  # built once

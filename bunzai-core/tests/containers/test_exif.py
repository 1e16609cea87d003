"""EXIF location in PNG/JPEG/WebP and UserComment extraction, built and real."""

from __future__ import annotations

import contextlib
import json
import os
import random
import struct

import pytest

from bunzai.errors import BunzaiError, MalformedInput
from bunzai.io.containers.exif import build_exif_user_comment, find_exif, read_user_comment
from bunzai.io.containers.png import PngFile, make_chunk, minimal_png, splice

AQUA = "/work/shared/corpus/other/other__aldozulhaq_TavernAI__Aqua__ce4ac1755d.webp"
BACKYARD = "/work/shared/corpus/other/other__ahoylabs_byaf__v2__b1152a4dc5.png"
CARD = json.dumps({"character": {"aiName": "Ünï"}, "version": 1}).encode()


def jpeg(*segments: bytes) -> bytes:
    app0 = b"\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"
    return b"\xff\xd8" + app0 + b"".join(segments) + b"\xff\xda\x00\x02scan\xff\xd9"


def app1(tiff: bytes) -> bytes:
    body = b"Exif\x00\x00" + tiff
    return b"\xff\xe1" + struct.pack(">H", len(body) + 2) + body


def riff_chunk(fourcc: bytes, payload: bytes) -> bytes:
    pad = b"\x00" if len(payload) & 1 else b""
    return fourcc + struct.pack("<I", len(payload)) + payload + pad


def webp(*chunks: bytes) -> bytes:
    body = b"WEBP" + b"".join(chunks)
    return b"RIFF" + struct.pack("<I", len(body)) + body


def test_build_and_read_both_byte_orders() -> None:
    for order in ("MM", "II"):
        for payload in (CARD, b"", b"x"):
            tiff = build_exif_user_comment(payload, byteorder=order)
            assert tiff[:4] in (b"MM\x00*", b"II*\x00")
            assert read_user_comment(tiff) == (b"ASCII\x00\x00\x00", payload)
    tiff = build_exif_user_comment(b"hi", charset=b"UNICODE\x00")
    assert read_user_comment(tiff) == (b"UNICODE\x00", b"hi")
    with pytest.raises(MalformedInput):
        build_exif_user_comment(b"", byteorder="XX")
    with pytest.raises(MalformedInput):
        build_exif_user_comment(b"", charset=b"ASCII")


def test_png_exif_chunk() -> None:
    tiff = build_exif_user_comment(CARD)
    png = PngFile.parse(minimal_png())
    data = splice(png, insert_before_iend=[make_chunk(b"eXIf", tiff)])
    assert find_exif(data) == tiff
    assert find_exif(data, "png") == tiff
    assert read_user_comment(tiff) == (b"ASCII\x00\x00\x00", CARD)
    prefixed = splice(png, insert_before_iend=[make_chunk(b"eXIf", b"Exif\x00\x00" + tiff)])
    assert find_exif(prefixed) == tiff
    assert find_exif(minimal_png()) is None


def test_jpeg_app1() -> None:
    tiff = build_exif_user_comment(CARD, byteorder="II")
    comment = b"\xff\xfe\x00\x05hi!"
    data = jpeg(comment, app1(tiff))
    assert find_exif(data) == tiff
    assert find_exif(data, "jpeg+zip") == tiff
    assert find_exif(jpeg(comment)) is None
    after_scan = b"\xff\xd8\xff\xda\x00\x02" + app1(tiff) + b"\xff\xd9"
    assert find_exif(after_scan) is None
    with pytest.raises(MalformedInput, match="JPEG"):
        find_exif(b"\xff\xd8\xff\xe1\x10\x00Exif\x00\x00")
    with pytest.raises(MalformedInput, match="JPEG"):
        find_exif(b"\xff\xd8\x00\x00", "jpeg")


def test_webp_riff_chunk() -> None:
    tiff = build_exif_user_comment(CARD)
    vp8l = riff_chunk(b"VP8L", b"\x2f\x00\x00\x00\x00")  # odd size: padded
    vp8x = riff_chunk(b"VP8X", b"\x08" + b"\x00" * 9)
    for exif in (tiff, b"Exif\x00\x00" + tiff):
        data = webp(vp8x, vp8l, riff_chunk(b"EXIF", exif))
        assert find_exif(data) == tiff
        assert find_exif(data, "webp") == tiff
    assert find_exif(webp(vp8l)) is None
    truncated = webp(vp8x, vp8l, riff_chunk(b"EXIF", tiff))[:-10]
    with pytest.raises(MalformedInput, match="WebP"):
        find_exif(truncated)


def test_other_containers() -> None:
    assert find_exif(b"GIF89a" + b"\x00" * 20) is None
    assert find_exif(b"{}") is None
    assert find_exif(minimal_png(), "gif") is None


def test_user_comment_in_ifd0_fallback_and_missing() -> None:
    value = b"ASCII\x00\x00\x00" + b"payload!"
    tiff = (b"II*\x00" + struct.pack("<I", 8) + struct.pack("<H", 1)
            + struct.pack("<HHII", 0x9286, 7, len(value), 26) + struct.pack("<I", 0) + value)
    assert read_user_comment(tiff) == (b"ASCII\x00\x00\x00", b"payload!")
    empty = b"MM\x00*" + struct.pack(">I", 8) + struct.pack(">H", 0) + struct.pack(">I", 0)
    assert read_user_comment(empty) is None


def test_unprefixed_value() -> None:
    value = b'{"name": "raw json"}'
    tiff = (b"MM\x00*" + struct.pack(">I", 8) + struct.pack(">H", 1)
            + struct.pack(">HHII", 0x9286, 7, len(value), 26) + struct.pack(">I", 0) + value)
    assert read_user_comment(tiff) == (b"", value)


@pytest.mark.parametrize("tiff, message", [
    (b"MM\x00*", "too short"),
    (b"XX\x00*\x00\x00\x00\x08", "byte-order"),
    (b"MM\x00+\x00\x00\x00\x08", "magic"),
    (b"MM\x00*\x00\x00\xff\xff", "outside"),
    (b"MM\x00*\x00\x00\x00\x08\xff\xff", "runs past"),
    (b"MM\x00*\x00\x00\x00\x08\x00\x01" + struct.pack(">HHII", 0x9286, 7, 100, 8) + b"\0" * 4,
     "runs past"),
    (b"MM\x00*\x00\x00\x00\x08\x00\x01" + struct.pack(">HHII", 0x9286, 99, 1, 0) + b"\0" * 4,
     "unknown type"),
    (b"MM\x00*\x00\x00\x00\x08\x00\x01" + struct.pack(">HHII", 0x8769, 4, 1, 8) + b"\0" * 4,
     "loops"),
    (b"MM\x00*\x00\x00\x00\x08\x00\x01" + struct.pack(">HHII", 0x8769, 2, 1, 8) + b"\0" * 4,
     "wrong type"),
])
def test_malformed_tiff(tiff: bytes, message: str) -> None:
    with pytest.raises(MalformedInput, match=message):
        read_user_comment(tiff)


def test_truncations_and_corruption_only_raise_bunzai_errors() -> None:
    tiff = build_exif_user_comment(CARD)
    for cut in range(len(tiff)):
        with contextlib.suppress(MalformedInput):
            read_user_comment(tiff[:cut])
    rng = random.Random(7)
    for _ in range(3000):
        mutated = bytearray(tiff)
        for _ in range(rng.randint(1, 3)):
            mutated[rng.randrange(len(mutated))] = rng.randrange(256)
        with contextlib.suppress(BunzaiError):
            read_user_comment(bytes(mutated))
    data = jpeg(app1(tiff))
    for cut in range(len(data)):
        try:
            found = find_exif(data[:cut])
            if found:
                read_user_comment(found)
        except BunzaiError:
            pass


def decode_tavern_comment(payload: bytes) -> dict[str, object]:
    """TavernAI stores JSON, or (since Apr 2023) comma-separated UTF-8 byte values."""
    text = payload.rstrip(b"\x00").decode("utf-8")
    if not text.lstrip().startswith("{"):
        text = bytes(int(v) for v in text.split(",")).decode("utf-8")
    result = json.loads(text)
    assert isinstance(result, dict)
    return result


@pytest.mark.skipif(not os.path.exists(AQUA), reason="shared corpus not available")
def test_real_tavernai_webp() -> None:
    with open(AQUA, "rb") as f:
        data = f.read()
    tiff = find_exif(data)
    assert tiff is not None and tiff[:2] in (b"II", b"MM")
    found = read_user_comment(tiff)
    assert found is not None
    card = decode_tavern_comment(found[1])
    assert card["name"]


@pytest.mark.skipif(not os.path.exists(BACKYARD), reason="shared corpus not available")
def test_real_backyard_png() -> None:
    with open(BACKYARD, "rb") as f:
        data = f.read()
    tiff = find_exif(data)
    assert tiff is not None and tiff.startswith(b"MM\x00*")
    found = read_user_comment(tiff)
    assert found is not None
    charset, payload = found
    assert charset == b"ASCII\x00\x00\x00"
    obj = json.loads(payload.rstrip(b"\x00"))
    assert "character" in obj

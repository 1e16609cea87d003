"""Container sniffing and EOCD location, on built fixtures and the shared corpus."""

from __future__ import annotations

import glob
import os
import struct

import pytest

from bunzai.errors import MalformedInput
from bunzai.io.containers.png import PNG_SIGNATURE, make_chunk, minimal_png
from bunzai.io.containers.sniff import (
    CONTAINER_KINDS,
    find_eocd,
    read_eocd,
    sniff_container,
    zip_start_offset,
)
from bunzai.io.containers.zipsafe import write_zip

CORPUS = "/work/shared/corpus"
JPEG = (b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00"
        + b"\xff\xda\x00\x02" + b"scan PK\x03\x04 data PK\x05\x06" + b"\xff\xd9")


def webp() -> bytes:
    body = b"WEBP" + b"VP8L" + struct.pack("<I", 5) + b"\x2f\x00\x00\x00\x00" + b"\x00"
    return b"RIFF" + struct.pack("<I", len(body)) + body


def apng() -> bytes:
    base = minimal_png()
    actl = make_chunk(b"acTL", struct.pack(">II", 1, 0))
    return base[:33] + actl + base[33:]


@pytest.mark.parametrize("data, kind", [
    (minimal_png(), "png"),
    (apng(), "apng"),
    (JPEG, "jpeg"),
    (webp(), "webp"),
    (b"GIF89a\x01\x00\x01\x00\x00\x00\x00;", "gif"),
    (b"GIF87a\x01\x00\x01\x00", "gif"),
    (write_zip([("card.json", b"{}")]), "zip"),
    (write_zip([]), "zip"),
    (write_zip([("card.json", b"{}")], prefix=JPEG), "jpeg+zip"),
    (JPEG + write_zip([("card.json", b"{}")]), "jpeg+zip"),
    (b'{"name": "x"}', "json"),
    (b"\xef\xbb\xbf \r\n\t[1, 2]", "json"),
    (b"\xef\xbb\xbf" + b" " * 5000 + b"{}", "json"),
    (b"hello, world\n", "text"),
    # a chat template opens as no JSON text does: it is text, not broken JSON
    (b"{% for message in messages %}{{ message['content'] }}{% endfor %}", "text"),
    (b"\n{{- bos_token }}{% for m in messages %}{% endfor %}", "text"),
    (b"{# a comment #}{{ messages }}", "text"),
    (b'{"chat_template": "{% for m in messages %}{% endfor %}"}', "json"),
    (b"[{}]", "json"),
    ("ünïcødé".encode(), "text"),
    (b"hello\x00world", "binary"),
    (b"\xff\xfe\x00\x01", "binary"),
    (b"", "binary"),
    (PNG_SIGNATURE, "png"),
])
def test_kinds(data: bytes, kind: str) -> None:
    assert kind in CONTAINER_KINDS
    assert sniff_container(data) == kind


def test_jpeg_with_stray_pk_bytes_is_not_a_zip() -> None:
    fake_eocd = b"PK\x05\x06" + b"\x00" * 4 + struct.pack("<HHII", 1, 1, 46, 0) + b"\x00\x00"
    data = JPEG + fake_eocd  # points at a central directory that is not there
    assert sniff_container(data) == "jpeg"
    assert find_eocd(data) is None


def test_eocd_with_comment_and_search_window() -> None:
    zip_bytes = write_zip([("a.txt", b"x")])
    eocd = find_eocd(zip_bytes)
    assert eocd == len(zip_bytes) - 22
    commented = bytearray(zip_bytes)
    struct.pack_into("<H", commented, eocd + 20, 1000)
    commented += b"c" * 1000
    assert find_eocd(bytes(commented)) == eocd
    assert find_eocd(memoryview(bytes(commented))) == eocd
    # an EOCD further than 65,557 bytes from the end is not searched for
    assert find_eocd(zip_bytes + b"\x00" * 70_000) is None
    assert find_eocd(b"") is None and find_eocd(b"PK\x05\x06") is None


def test_zip_start_offset() -> None:
    plain = write_zip([("card.json", b"{}")])
    assert zip_start_offset(plain) == 0
    assert zip_start_offset(JPEG + plain) == len(JPEG)
    # written with the prefix in place: offsets are file-absolute, no shift needed
    assert zip_start_offset(write_zip([("card.json", b"{}")], prefix=JPEG)) == 0
    info = read_eocd(JPEG + plain)
    assert info is not None and info.shift == len(JPEG) and info.entries == 1
    with pytest.raises(MalformedInput, match="not a zip"):
        zip_start_offset(JPEG)


CORPUS_EXPECT = [
    ("charx/*.charx", "zip"),
    ("byaf/*.byaf", "zip"),
    ("negative/*.webp", "webp"),
    ("negative/*.jpg", "jpeg"),
    ("negative/*.zip", "zip"),
    ("negative/*.png", "png"),
    ("png-*/*.png", "png"),
    ("ccv*-json/*.json", "json"),
    ("other/*.webp", "webp"),
    ("other/*.png", "png"),
]


@pytest.mark.skipif(not os.path.isdir(CORPUS), reason="shared corpus not available")
@pytest.mark.parametrize("pattern, kind", CORPUS_EXPECT)
def test_corpus(pattern: str, kind: str) -> None:
    paths = glob.glob(f"{CORPUS}/{pattern}")
    assert paths
    for path in paths:
        with open(path, "rb") as f:
            assert sniff_container(f.read()) == kind, path


@pytest.mark.skipif(not os.path.isdir("/work/shared/samples/risu"), reason="no risu samples")
def test_risu_samples() -> None:
    base = "/work/shared/samples/risu"
    expect = {"gen_risu_export.charx": "zip", "gen_risu_card_v3.png": "png",
              "gen_risu_lorebook_export.json": "json", "gen_risu_module.risum": "binary"}
    for name, kind in expect.items():
        with open(f"{base}/{name}", "rb") as f:
            assert sniff_container(f.read()) == kind, name


def test_utf16_and_utf32_json_with_bom_is_json() -> None:
    for codec in ("utf-16", "utf-16-le", "utf-32"):
        data = '{"name": "ü"}'.encode(codec)
        if codec == "utf-16-le":
            data = b"\xff\xfe" + data
        assert sniff_container(data) == "json"

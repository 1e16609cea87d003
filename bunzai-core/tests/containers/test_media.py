"""Media sniffing from magic bytes."""

from __future__ import annotations

import struct

import pytest

from bunzai.io.containers.media import ext_is_plausible, sniff_media
from bunzai.io.containers.png import minimal_png
from bunzai.io.containers.zipsafe import write_zip


def ftyp(major: bytes, *compatible: bytes) -> bytes:
    body = major + b"\x00\x00\x00\x00" + b"".join(compatible)
    return struct.pack(">I", 8 + len(body)) + b"ftyp" + body + b"\x00\x00\x00\x08mdat"


def riff(kind: bytes) -> bytes:
    return b"RIFF" + struct.pack("<I", 12) + kind + b"\x00" * 8


BMP = b"BM" + struct.pack("<IHHI", 70, 0, 0, 54) + struct.pack("<I", 40) + b"\x00" * 40


@pytest.mark.parametrize("data, expected", [
    (minimal_png(), ("image/png", "png")),
    (b"\xff\xd8\xff\xe0\x00\x10JFIF", ("image/jpeg", "jpg")),
    (riff(b"WEBP"), ("image/webp", "webp")),
    (b"GIF89a\x01\x00", ("image/gif", "gif")),
    (b"GIF87a\x01\x00", ("image/gif", "gif")),
    (BMP, ("image/bmp", "bmp")),
    (ftyp(b"avif", b"mif1", b"miaf"), ("image/avif", "avif")),
    (ftyp(b"mif1", b"avif"), ("image/avif", "avif")),
    (ftyp(b"heic", b"mif1"), ("image/heic", "heic")),
    (ftyp(b"mif1", b"heic"), ("image/heic", "heic")),
    (ftyp(b"isom", b"mp41"), ("video/mp4", "mp4")),
    (ftyp(b"M4A ", b"isom"), ("audio/mp4", "m4a")),
    (ftyp(b"qt  "), ("video/quicktime", "mov")),
    (b"\x1a\x45\xdf\xa3\x9f\x42\x86\x81\x01\x42\x82\x84webm", ("video/webm", "webm")),
    (b"\x1a\x45\xdf\xa3\x9f\x42\x86\x81\x01\x42\x82\x88matroska", ("video/x-matroska", "mkv")),
    (b"OggS\x00\x02" + b"\x00" * 20, ("audio/ogg", "ogg")),
    (b"ID3\x04\x00\x00\x00\x00\x00\x00", ("audio/mpeg", "mp3")),
    (b"\xff\xfb\x90\x64" + b"\x00" * 20, ("audio/mpeg", "mp3")),
    (b"\xff\xf1\x50\x80" + b"\x00" * 20, ("audio/aac", "aac")),
    (riff(b"WAVE"), ("audio/wav", "wav")),
    (b"fLaC\x00\x00\x00\x22", ("audio/flac", "flac")),
    (b"\x00\x01\x00\x00\x00\x0c\x00\x80", ("font/ttf", "ttf")),
    (b"OTTO\x00\x0c", ("font/otf", "otf")),
    (b"wOFF\x00\x01\x00\x00", ("font/woff", "woff")),
    (b"wOF2\x00\x01\x00\x00", ("font/woff2", "woff2")),
    (write_zip([("a", b"b")]), ("application/zip", "zip")),
    (b'\xef\xbb\xbf  {"a": 1}', ("application/json", "json")),
    (b"[1, 2]", ("application/json", "json")),
    (b'<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg"/>',
     ("image/svg+xml", "svg")),
    (b"<SVG viewBox='0 0 1 1'></SVG>", ("image/svg+xml", "svg")),
    (b"<html><body>hi</body></html>", ("text/plain", "txt")),
    ("plain ünïcødé text".encode(), ("text/plain", "txt")),
    (b"", ("application/octet-stream", "bin")),
    (b"\x00\x00\x00\x00garbage", ("application/octet-stream", "bin")),
    (b"\xff\xff\xff\xff", ("application/octet-stream", "bin")),
    (b"BM\xff\xfe\x00", ("application/octet-stream", "bin")),
    (b"\xc3\x28 invalid utf-8", ("application/octet-stream", "bin")),
])
def test_sniff_media(data: bytes, expected: tuple[str, str]) -> None:
    assert sniff_media(data) == expected


@pytest.mark.parametrize("ext, ok", [
    ("png", True), ("jpeg", True), ("mp3", True), ("woff2", True), ("abcdefghij", True),
    ("", False), ("PNG", False), ("abcdefghijk", False), ("p.ng", False), ("../x", False),
    ("png\n", False), ("pn g", False), ("ü", False),
])
def test_ext_is_plausible(ext: str, ok: bool) -> None:
    assert ext_is_plausible(ext) is ok

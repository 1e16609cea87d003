"""Media type of an asset from its magic bytes.

Card assets routinely lie about their type (RisuAI keeps ``.png``/``ext: "png"`` on WebP and JPEG
bytes), so writers and reports use what the bytes say, never the name.
"""

from __future__ import annotations

import re

__all__ = ["OCTET_STREAM", "ext_is_plausible", "sniff_media"]

OCTET_STREAM = ("application/octet-stream", "bin")

_EXT = re.compile(r"[a-z0-9]{1,10}")
_WHITESPACE = b" \t\r\n"
_UTF8_BOM = b"\xef\xbb\xbf"
_HEIC_BRANDS = frozenset({b"heic", b"heix", b"heim", b"heis", b"hevc", b"hevx", b"hevm", b"hevs"})
_HEIF_BRANDS = frozenset({b"mif1", b"msf1"})
_BMP_HEADER_SIZES = frozenset({12, 16, 40, 52, 56, 64, 108, 124})

_SIMPLE: tuple[tuple[bytes, tuple[str, str]], ...] = (
    (b"\x89PNG\r\n\x1a\n", ("image/png", "png")),
    (b"\xff\xd8\xff", ("image/jpeg", "jpg")),
    (b"GIF87a", ("image/gif", "gif")),
    (b"GIF89a", ("image/gif", "gif")),
    (b"fLaC", ("audio/flac", "flac")),
    (b"OggS", ("audio/ogg", "ogg")),
    (b"ID3", ("audio/mpeg", "mp3")),
    (b"wOFF", ("font/woff", "woff")),
    (b"wOF2", ("font/woff2", "woff2")),
    (b"OTTO", ("font/otf", "otf")),
    (b"\x00\x01\x00\x00", ("font/ttf", "ttf")),
    (b"true", ("font/ttf", "ttf")),
    (b"ttcf", ("font/collection", "ttc")),
    (b"PK\x03\x04", ("application/zip", "zip")),
    (b"PK\x05\x06", ("application/zip", "zip")),
    (b"%PDF-", ("application/pdf", "pdf")),
)


def _ftyp(data: bytes) -> tuple[str, str] | None:
    """ISO base media (MP4, M4A, MOV, AVIF, HEIC) from the ``ftyp`` box brands."""
    if data[4:8] != b"ftyp":
        return None
    size = int.from_bytes(data[:4], "big")
    major = data[8:12]
    box = data[8:min(len(data), size) if size >= 16 else len(data)]
    brands = {major} | {box[i:i + 4] for i in range(8, len(box) - 3, 4)}
    if major in (b"avif", b"avis") or (major in _HEIF_BRANDS and b"avif" in brands):
        return ("image/avif", "avif")
    if major in _HEIC_BRANDS or major in _HEIF_BRANDS:
        return ("image/heic", "heic")
    if major in (b"M4A ", b"M4B ", b"M4P "):
        return ("audio/mp4", "m4a")
    if major == b"qt  ":
        return ("video/quicktime", "mov")
    return ("video/mp4", "mp4")


def _riff(data: bytes) -> tuple[str, str] | None:
    kind = data[8:12]
    if kind == b"WEBP":
        return ("image/webp", "webp")
    if kind == b"WAVE":
        return ("audio/wav", "wav")
    if kind == b"AVI ":
        return ("video/x-msvideo", "avi")
    return None


def _mpeg_audio(data: bytes) -> tuple[str, str] | None:
    """MPEG audio frame sync (MP3 without ID3) or AAC ADTS."""
    if len(data) < 4 or data[0] != 0xFF or data[1] & 0xE0 != 0xE0:
        return None
    if data[1] & 0x06 == 0:  # layer bits 00: ADTS when the version bits say so
        return ("audio/aac", "aac") if data[1] & 0xF6 == 0xF0 else None
    if data[1] & 0x18 == 0x08 or data[2] & 0xF0 == 0xF0 or data[2] & 0x0C == 0x0C:
        return None  # reserved version, bad bitrate index or bad sample-rate index
    return ("audio/mpeg", "mp3")


def _text_kind(data: bytes) -> tuple[str, str] | None:
    """JSON, SVG or plain UTF-8 text; None when it is not text."""
    body = data[3:] if data.startswith(_UTF8_BOM) else data
    head = body[:4096].lstrip(_WHITESPACE)
    if head[:1] in (b"{", b"["):
        return ("application/json", "json")
    if b"\x00" in data:
        return None
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError:
        return None
    if head[:1] == b"<" and "<svg" in text[:4096].lower():
        return ("image/svg+xml", "svg")
    return ("text/plain", "txt")


def sniff_media(data: bytes) -> tuple[str, str]:
    """(media type, canonical extension) of ``data`` from its magic bytes.

    Unknown bytes give ``("application/octet-stream", "bin")``.
    """
    head = data[:64]
    for magic, result in _SIMPLE:
        if head.startswith(magic):
            return result
    if head[:4] == b"RIFF":
        riff = _riff(head)
        if riff:
            return riff
    ftyp = _ftyp(head)
    if ftyp:
        return ftyp
    if head[:4] == b"\x1a\x45\xdf\xa3":  # EBML: WebM or Matroska by DocType
        return ("video/webm", "webm") if b"webm" in data[:64] else ("video/x-matroska", "mkv")
    if head[:2] == b"BM" and len(head) >= 18 and int.from_bytes(head[14:18], "little") in (
        _BMP_HEADER_SIZES
    ):
        return ("image/bmp", "bmp")
    mpeg = _mpeg_audio(head)
    if mpeg:
        return mpeg
    if not data:
        return OCTET_STREAM
    return _text_kind(data) or OCTET_STREAM


def ext_is_plausible(ext: str) -> bool:
    """Whether ``ext`` is a safe file extension: 1-10 lowercase ASCII letters or digits."""
    return _EXT.fullmatch(ext) is not None

"""What tells "the image is unchanged" when a PNG card is written again: a fingerprint of the
chunks the image keeps, recorded on read and compared on write."""

from __future__ import annotations

import hashlib
import zlib
from collections.abc import Sequence
from typing import Any

from bunzai.sdk import BunzaiError
from bunzai.sdk.png import PngFile

_FINGERPRINT = "png-chunks:"


def image_fingerprint(image: bytes) -> str:
    """What tells "the image is unchanged" on re-write, without hashing megabytes of pixels.

    Every chunk's type, length and stored CRC (the file already carries a checksum of each
    chunk), plus a hash of any bytes that do not form chunks: the chunk table already parsed,
    never a hash over megabytes of pixels.  It only decides whether
    the recorded chunk layout is reused; the image itself is always written from the avatar.
    """
    try:
        png = PngFile.parse(image)
    except BunzaiError:
        return hashlib.sha256(image).hexdigest()
    return _parsed_fingerprint(png)


def _parsed_fingerprint(png: PngFile) -> str:
    """:func:`image_fingerprint` of the image ``png`` was parsed from."""
    return _fingerprint([f"{t}:{length}:{crc}" for t, _offset, length, crc in png.table()],
                        memoryview(png.data)[png.trailing_offset:])


def fingerprint_kept(png: PngFile, kept: Sequence[tuple[str, int, int, int]]) -> str:
    """:func:`image_fingerprint` of ``splice(png, drop=removed)``, from the rows of ``png``'s
    own chunk table that it ``kept``: the splice keeps every other chunk byte for byte (IEND
    always, a new one when the file had none) and the bytes after IEND, so parsing its output
    finds the same chunks."""
    rows = [f"{t}:{length}:{crc}" for t, _offset, length, crc in kept]
    if png.iend_index is None:
        rows.append(f"IEND:0:{zlib.crc32(b'IEND')}")
        return _fingerprint(rows, b"")
    return _fingerprint(rows, memoryview(png.data)[png.trailing_offset:])


def _fingerprint(rows: list[str], tail: bytes | memoryview) -> str:
    h = hashlib.sha256(";".join(rows).encode("latin-1"))
    h.update(b"\x00")
    h.update(tail)
    return _FINGERPRINT + h.hexdigest()


def image_unchanged(recorded: Any, image: bytes, png: PngFile | None = None) -> bool:
    """Whether ``image`` is the one a reader recorded (a fingerprint, or the SHA-256 of the
    whole image that earlier versions stored in passthrough); ``png``: ``image`` already
    parsed."""
    if not isinstance(recorded, str):
        return False
    if recorded.startswith(_FINGERPRINT):
        return recorded == (image_fingerprint(image) if png is None
                            else _parsed_fingerprint(png))
    return recorded == hashlib.sha256(image).hexdigest()

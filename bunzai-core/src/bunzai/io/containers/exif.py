"""EXIF UserComment: where TavernAI WebP cards and legacy Backyard/Faraday PNGs keep their JSON.

Only the few TIFF structures on the path to tag 0x9286 are decoded.  EXIF is a web of offsets
written by many tools, so every offset and count is checked against the buffer before use and
IFD loops are refused.
"""

from __future__ import annotations

import struct

from bunzai.errors import MalformedInput
from bunzai.io.containers.png import PNG_SIGNATURE, PngFile

__all__ = [
    "TAG_EXIF_IFD",
    "TAG_USER_COMMENT",
    "USER_COMMENT_CHARSETS",
    "build_exif_user_comment",
    "find_exif",
    "read_user_comment",
]

TAG_EXIF_IFD = 0x8769
TAG_USER_COMMENT = 0x9286
USER_COMMENT_CHARSETS = (
    b"ASCII\x00\x00\x00", b"UNICODE\x00", b"JIS\x00\x00\x00\x00\x00", b"\x00" * 8,
)
"""The 8-byte character-code prefixes the EXIF spec defines for UserComment."""

_EXIF_HEADER = b"Exif\x00"
_TYPE_SIZES = {1: 1, 2: 1, 3: 2, 4: 4, 5: 8, 6: 1, 7: 1, 8: 2, 9: 4, 10: 8, 11: 4, 12: 8, 13: 4}
_MAX_IFD_ENTRIES = 4096
_JPEG_STANDALONE = frozenset({0x01, *range(0xD0, 0xD9)})


def _strip_exif_header(payload: bytes) -> bytes:
    """Drop an ``Exif\\0\\0`` prefix some writers put before the TIFF header."""
    if payload.startswith(_EXIF_HEADER):
        return payload[6:]
    return payload


def _png_exif(data: bytes) -> bytes | None:
    return png_exif(PngFile.parse(data))


def png_exif(png: PngFile) -> bytes | None:
    """The TIFF bytes of an already parsed PNG's first ``eXIf`` chunk, if any."""
    chunks = png.chunks_of("eXIf")
    return _strip_exif_header(chunks[0].data.tobytes()) if chunks else None


def _jpeg_exif(data: bytes) -> bytes | None:
    """Walk JPEG marker segments up to the scan; return the first APP1 ``Exif`` payload."""
    n = len(data)
    pos = 2
    while pos < n:
        if data[pos] != 0xFF:
            raise MalformedInput(f"corrupt JPEG: expected a marker at offset {pos}")
        while pos < n and data[pos] == 0xFF:  # fill bytes
            pos += 1
        if pos >= n:
            return None
        marker = data[pos]
        pos += 1
        if marker in _JPEG_STANDALONE:
            continue
        if marker in (0xD9, 0xDA):  # EOI, or start of scan: metadata comes before it
            return None
        if pos + 2 > n:
            raise MalformedInput("corrupt JPEG: truncated segment header")
        length = (data[pos] << 8) | data[pos + 1]
        if length < 2 or pos + length > n:
            raise MalformedInput(f"corrupt JPEG: segment at offset {pos - 2} runs past the end")
        if marker == 0xE1 and data[pos + 2:pos + 7] == _EXIF_HEADER:
            return data[pos + 8:pos + length]
        pos += length
    return None


def _webp_exif(data: bytes) -> bytes | None:
    """Walk the RIFF chunks of a WebP; return the ``EXIF`` chunk's TIFF bytes."""
    n = len(data)
    riff_end = min(n, 8 + struct.unpack_from("<I", data, 4)[0]) if n >= 12 else n
    pos = 12
    while pos + 8 <= riff_end:
        fourcc = data[pos:pos + 4]
        size = struct.unpack_from("<I", data, pos + 4)[0]
        start = pos + 8
        if start + size > n:
            if fourcc == b"EXIF":
                raise MalformedInput("WebP EXIF chunk runs past the end of the file")
            return None
        if fourcc == b"EXIF":
            return _strip_exif_header(data[start:start + size])
        pos = start + size + (size & 1)
    return None


def find_exif(data: bytes, container: str | None = None) -> bytes | None:
    """The TIFF bytes of the file's EXIF block (PNG ``eXIf``, JPEG APP1, WebP ``EXIF``), if any.

    ``container`` is a :func:`~bunzai.io.containers.sniff.sniff_container` result when the caller
    has one; otherwise the magic bytes decide.  GIF and other containers give None.
    """
    if container is None:
        if data.startswith(PNG_SIGNATURE):
            container = "png"
        elif data.startswith(b"\xff\xd8\xff"):
            container = "jpeg"
        elif data[:4] == b"RIFF" and data[8:12] == b"WEBP":
            container = "webp"
        else:
            return None
    if container in ("png", "apng"):
        return _png_exif(data)
    if container in ("jpeg", "jpeg+zip"):
        return _jpeg_exif(data)
    if container == "webp":
        return _webp_exif(data)
    return None


class _Tiff:
    """Bounds-checked reads from a TIFF buffer in its declared byte order."""

    def __init__(self, tiff: bytes) -> None:
        if len(tiff) < 8:
            raise MalformedInput("EXIF block is too short for a TIFF header")
        order = tiff[:2]
        if order == b"II":
            self.e = "<"
        elif order == b"MM":
            self.e = ">"
        else:
            raise MalformedInput(f"EXIF block has no TIFF byte-order mark ({order!r})")
        self.buf = tiff
        self.n = len(tiff)
        if self.u16(2) != 42:
            raise MalformedInput("EXIF block is not a classic TIFF (magic is not 42)")

    def u16(self, at: int) -> int:
        value: int = struct.unpack_from(self.e + "H", self.buf, at)[0]
        return value

    def u32(self, at: int) -> int:
        value: int = struct.unpack_from(self.e + "I", self.buf, at)[0]
        return value

    def entries(self, ifd: int) -> list[tuple[int, int, int, int]]:
        """(tag, type, count, entry offset) of each IFD entry, bounds-checked."""
        if ifd < 8 or ifd + 2 > self.n:
            raise MalformedInput(f"EXIF IFD offset {ifd} is outside the EXIF block")
        count = self.u16(ifd)
        if count > _MAX_IFD_ENTRIES or ifd + 2 + 12 * count > self.n:
            raise MalformedInput(f"EXIF IFD at offset {ifd} runs past the end of the EXIF block")
        out = []
        for i in range(count):
            at = ifd + 2 + 12 * i
            tag, typ, cnt = struct.unpack_from(self.e + "HHI", self.buf, at)
            out.append((tag, typ, cnt, at))
        return out

    def value(self, typ: int, cnt: int, at: int) -> bytes:
        """The raw value bytes of the entry at ``at`` (inline or at its offset)."""
        size = _TYPE_SIZES.get(typ)
        if size is None:
            raise MalformedInput(f"EXIF entry at offset {at} has unknown type {typ}")
        total = size * cnt
        if total <= 4:
            return self.buf[at + 8:at + 8 + total]
        off = self.u32(at + 8)
        if off + total > self.n:
            raise MalformedInput(
                f"EXIF value of {total:,} bytes at offset {off} runs past the end of the block"
            )
        return self.buf[off:off + total]


def _split_comment(value: bytes) -> tuple[bytes, bytes]:
    """(charset prefix, payload); a value without a known prefix is all payload."""
    if len(value) >= 8 and value[:8] in USER_COMMENT_CHARSETS:
        return value[:8], value[8:]
    return b"", value


def read_user_comment(tiff: bytes) -> tuple[bytes, bytes] | None:
    """(8-byte charset prefix, payload) of the UserComment tag, or None when there is none.

    Looks in the Exif IFD (where the spec puts it), then in IFD0 (some writers put it there).
    A value that does not start with one of :data:`USER_COMMENT_CHARSETS` is returned with an
    empty prefix and the whole value as payload.
    """
    try:
        t = _Tiff(tiff)
        ifd0 = t.u32(4)
        ifd0_entries = t.entries(ifd0)
        fallback: tuple[int, int, int] | None = None
        for tag, typ, cnt, at in ifd0_entries:
            if tag == TAG_USER_COMMENT and fallback is None:
                fallback = (typ, cnt, at)
        for tag, typ, cnt, at in ifd0_entries:
            if tag != TAG_EXIF_IFD:
                continue
            if typ not in (4, 13) or cnt < 1:
                raise MalformedInput("EXIF has an ExifIFD pointer of the wrong type")
            exif_ifd = t.u32(at + 8)
            if exif_ifd == ifd0:
                raise MalformedInput("EXIF ExifIFD pointer loops back to IFD0")
            for tag2, typ2, cnt2, at2 in t.entries(exif_ifd):
                if tag2 == TAG_USER_COMMENT:
                    return _split_comment(t.value(typ2, cnt2, at2))
            break
        if fallback is not None:
            return _split_comment(t.value(*fallback))
        return None
    except struct.error:
        raise MalformedInput("EXIF block is truncated") from None


def build_exif_user_comment(
    payload: bytes, charset: bytes = b"ASCII\x00\x00\x00", byteorder: str = "MM"
) -> bytes:
    """A minimal TIFF: IFD0 → ExifIFD pointer → UserComment (charset prefix + payload)."""
    if byteorder == "MM":
        e = ">"
    elif byteorder == "II":
        e = "<"
    else:
        raise MalformedInput(f"TIFF byte order must be 'MM' or 'II', not {byteorder!r}")
    if len(charset) != 8:
        raise MalformedInput("UserComment charset prefix must be 8 bytes")
    value = charset + payload
    if len(value) > 0xFFFFFFFF - 64:
        raise MalformedInput("UserComment payload is too large for EXIF")
    ifd0 = 8
    exif_ifd = ifd0 + 2 + 12 + 4  # 26
    value_at = exif_ifd + 2 + 12 + 4  # 44
    return b"".join((
        byteorder.encode("ascii"), struct.pack(e + "HI", 42, ifd0),
        struct.pack(e + "H", 1), struct.pack(e + "HHII", TAG_EXIF_IFD, 4, 1, exif_ifd),
        struct.pack(e + "I", 0),
        struct.pack(e + "H", 1),
        struct.pack(e + "HHII", TAG_USER_COMMENT, 7, len(value), value_at),
        struct.pack(e + "I", 0),
        value,
    ))

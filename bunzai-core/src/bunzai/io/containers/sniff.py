"""Name the container a file is in from its first and last bytes.

Detection must be cheap (it runs on every input before any plugin looks at it) and must not be
fooled by content: a JPEG-wrapped zip is recognised from the zip's End-Of-Central-Directory
record found at the end of the file, never by searching for ``PK\\x03\\x04`` (JPEG scan data
contains that sequence by chance).
"""

from __future__ import annotations

import struct
from typing import NamedTuple

from bunzai.errors import MalformedInput

__all__ = [
    "CONTAINER_KINDS",
    "EocdInfo",
    "find_eocd",
    "json_start",
    "read_eocd",
    "sniff_container",
    "zip_start_offset",
]

CONTAINER_KINDS = (
    "png", "apng", "jpeg", "webp", "gif", "zip", "jpeg+zip", "json", "text", "binary",
)
"""Every value :func:`sniff_container` can return.  ``AdapterInput.container`` adds ``jsonl``
(JSON Lines: several lines, each one JSON object), which needs more than the bytes' edges."""

_PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_EOCD_SIG = b"PK\x05\x06"
_EOCD_SIZE = 22
_EOCD_MAX_COMMENT = 0xFFFF
_EOCD_SEARCH = _EOCD_SIZE + _EOCD_MAX_COMMENT  # 65557: the EOCD must start in this tail
_ZIP64_LOCATOR_SIG = b"PK\x06\x07"
_ZIP64_LOCATOR_SIZE = 20
_ZIP64_EOCD_SIG = b"PK\x06\x06"
_ZIP64_EOCD_SIZE = 56
_CD_SIG = b"PK\x01\x02"

_EOCD = struct.Struct("<4s4H2LH")
_ZIP64_EOCD = struct.Struct("<4sQ2H2L4Q")
_CHUNK_HEAD = struct.Struct(">I4s")

_WHITESPACE = b" \t\r\n"
_UTF8_BOM = b"\xef\xbb\xbf"


class EocdInfo(NamedTuple):
    """Where a zip's central directory is, as declared by its end records."""

    offset: int
    """Offset of the classic End-Of-Central-Directory record in the file."""
    cd_offset: int
    """Central-directory offset as stored (relative to the start of the zip)."""
    cd_size: int
    """Central-directory size in bytes."""
    entries: int
    """Declared number of entries."""
    cd_end: int
    """File offset where the central directory ends (the EOCD, or the Zip64 EOCD record)."""

    @property
    def shift(self) -> int:
        """What to add to offsets stored in the archive to get file offsets."""
        return self.cd_end - self.cd_size - self.cd_offset

    @property
    def cd_start(self) -> int:
        """File offset of the first central-directory header."""
        return self.cd_end - self.cd_size


def _check_eocd(data: bytes | memoryview, pos: int) -> EocdInfo | None:
    """Decode the EOCD candidate at ``pos``; None unless it describes a plausible directory."""
    n = len(data)
    (_sig, disk, cd_disk, disk_entries, entries, cd_size, cd_offset,
     comment_len) = _EOCD.unpack_from(data, pos)
    if pos + _EOCD_SIZE + comment_len > n:
        return None
    cd_end = pos
    if (pos >= _ZIP64_LOCATOR_SIZE
            and data[pos - _ZIP64_LOCATOR_SIZE:pos - _ZIP64_LOCATOR_SIZE + 4]
            == _ZIP64_LOCATOR_SIG):
        # Zip64: the real figures are in the Zip64 EOCD record right before the locator
        # (the same assumption CPython's zipfile makes).
        rec = pos - _ZIP64_LOCATOR_SIZE - _ZIP64_EOCD_SIZE
        if rec < 0 or data[rec:rec + 4] != _ZIP64_EOCD_SIG:
            return None
        (_s, _size, _made, _need, disk, cd_disk, disk_entries, entries, cd_size,
         cd_offset) = _ZIP64_EOCD.unpack_from(data, rec)
        cd_end = rec
    if disk != 0 or cd_disk != 0 or disk_entries != entries:
        return None  # multi-volume archives are not supported (and are not zips we write)
    cd_start = cd_end - cd_size
    if cd_start < 0 or cd_start - cd_offset < 0:
        return None
    if entries and data[cd_start:cd_start + 4] != _CD_SIG:
        return None
    if not entries and cd_size:
        return None
    return EocdInfo(pos, cd_offset, cd_size, entries, cd_end)


def read_eocd(data: bytes | memoryview) -> EocdInfo | None:
    """Find and decode the last valid EOCD record, scanning backwards from the end of the file."""
    n = len(data)
    if n < _EOCD_SIZE:
        return None
    view = data if isinstance(data, bytes) else bytes(data[max(0, n - _EOCD_SEARCH):])
    base = 0 if isinstance(data, bytes) else max(0, n - _EOCD_SEARCH)
    lo = max(0, n - _EOCD_SEARCH) - base
    end = n - base
    while True:
        pos = view.rfind(_EOCD_SIG, lo, end - _EOCD_SIZE + 4)
        if pos < 0:
            return None
        info = _check_eocd(data, pos + base)
        if info is not None:
            return info
        end = pos + _EOCD_SIZE - 1  # keep looking further back


def find_eocd(data: bytes | memoryview) -> int | None:
    """Offset of the zip End-Of-Central-Directory record, or None when there is no valid one."""
    info = read_eocd(data)
    return None if info is None else info.offset


def zip_start_offset(data: bytes | memoryview) -> int:
    """Offset shift of a zip inside ``data``: EOCD offset - central dir size - central dir offset.

    It is the length of the prefix for a zip appended verbatim to other data (RisuAI's JPEG-wrapped
    CharX) and 0 for a plain zip or one written with file-absolute offsets.
    """
    info = read_eocd(data)
    if info is None:
        raise MalformedInput("not a zip archive (no end-of-central-directory record)")
    return info.shift


def _png_is_apng(data: bytes) -> bool:
    """True when an ``acTL`` chunk comes before the first ``IDAT`` (only headers are read)."""
    n = len(data)
    pos = 8
    unpack = _CHUNK_HEAD.unpack_from
    while pos + 8 <= n:
        length, ctype = unpack(data, pos)
        if ctype == b"acTL":
            return True
        if ctype in (b"IDAT", b"IEND"):
            return False
        pos += 12 + length
    return False


_WIDE_BOMS = ((b"\x00\x00\xfe\xff", "utf-32-be"), (b"\xff\xfe\x00\x00", "utf-32-le"),
              (b"\xfe\xff", "utf-16-be"), (b"\xff\xfe", "utf-16-le"))


def _wide_json_start(data: bytes) -> bool:
    """UTF-16/32 text with a BOM whose first non-space character is ``{`` or ``[``."""
    for bom, codec in _WIDE_BOMS:
        if data.startswith(bom):
            width = 4 if "32" in codec else 2
            head = data[len(bom): len(bom) + 64 * width]
            head = head[: len(head) - len(head) % width]
            try:
                text = head.decode(codec).lstrip()
            except UnicodeDecodeError:
                return False
            return text[:1] in ("{", "[")
    return False


def json_start(data: bytes) -> bool:
    """True when ``data`` (a whole file, or its head) starts like JSON (after a BOM and
    whitespace)."""
    return _json_start(data)


_TEMPLATE_OPENERS = (b"{%", b"{{", b"{#")
"""How a Jinja or Handlebars template may open, which no JSON text does."""


def _json_start(data: bytes) -> bool:
    """First byte after an optional BOM and whitespace is ``{`` or ``[`` (UTF-16/32 too), not
    the opening of a template (``{%``, ``{{``, ``{#``)."""
    if data[:1] in (b"\xff", b"\xfe", b"\x00") and _wide_json_start(data):
        return True
    head = data[:4096]
    if head.startswith(_UTF8_BOM):
        head = head[3:]
    head = head.lstrip(_WHITESPACE)
    if head:
        return head[0] in b"{[" and not head.startswith(_TEMPLATE_OPENERS)
    if len(data) <= 4096:
        return False
    rest = data[3:] if data.startswith(_UTF8_BOM) else data
    rest = rest.lstrip(_WHITESPACE)
    return bool(rest) and rest[0] in b"{[" and not rest.startswith(_TEMPLATE_OPENERS)


def _is_text(data: bytes) -> bool:
    """Valid UTF-8 without NUL bytes."""
    if b"\x00" in data:
        return False
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def sniff_container(data: bytes) -> str:
    """The container kind of ``data``; one of :data:`CONTAINER_KINDS`.

    Magic bytes decide first; only then JSON/text checks (which may read the whole file).
    An empty input is ``"binary"``.
    """
    head = data[:16]
    if head.startswith(_PNG_SIGNATURE):
        return "apng" if _png_is_apng(data) else "png"
    if head.startswith(b"\xff\xd8\xff"):
        return "jpeg+zip" if read_eocd(data) is not None else "jpeg"
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        return "webp"
    if head[:6] in (b"GIF87a", b"GIF89a"):
        return "gif"
    if head[:4] == b"PK\x03\x04" or head[:4] == b"PK\x05\x06":
        return "zip"
    if not data:
        return "binary"
    if _json_start(data):
        return "json"
    if _is_text(data):
        return "text"
    return "binary"

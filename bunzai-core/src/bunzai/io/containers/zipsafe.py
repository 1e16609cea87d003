"""Zip archives (CharX, BYAF, JPEG-wrapped CharX) read in memory under safety limits.

Entry names, sizes and counts are attacker-controlled, so everything the central directory
declares is checked before any entry data is touched, and inflating stops as soon as the real
output passes the declared size (declared sizes can lie).  Nothing is ever extracted to disk.
"""

from __future__ import annotations

import io
import re
import stat
import struct
import zipfile
import zlib
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from types import TracebackType
from typing import Literal

from bunzai.errors import LimitExceeded, MalformedInput, UnsupportedInput
from bunzai.io.containers.sniff import EocdInfo, read_eocd
from bunzai.io.limits import Limits, get_limits, setting_hint

__all__ = [
    "DEFAULT_DATE_TIME",
    "SafeZip",
    "ZipEntry",
    "ZipSource",
    "entry_name_problem",
    "normalize_entry_name",
    "write_zip",
]

DEFAULT_DATE_TIME = (1980, 1, 1, 0, 0, 0)
"""Timestamp written on every entry so output is byte-for-byte reproducible."""

_MIB = 1024 * 1024
_RATIO_MIN_SIZE = _MIB  # below this, any ratio is fine (tiny JSON compresses very well)
_READ_CHUNK = _MIB
_CD_SIG = b"PK\x01\x02"
_LOCAL_SIG = b"PK\x03\x04"
_CD_HEAD = 46
_LOCAL_HEAD = 30
_CD_NAME_LENS = struct.Struct("<HHH")  # name, extra, comment lengths at offset 28
_LOCAL_NAME_LENS = struct.Struct("<HH")  # name, extra lengths at offset 26
_FLAG_ENCRYPTED = 0x1
_FLAG_UTF8 = 0x800
_DRIVE = re.compile(r"[A-Za-z]:")
_CONTROL = re.compile(r"[\x00-\x1f\x7f]")


@dataclass(frozen=True, slots=True)
class ZipEntry:
    """What the central directory declares about one entry."""

    name: str
    size: int
    """Declared uncompressed size."""
    compressed_size: int
    method: int
    is_dir: bool
    crc: int


def entry_name_problem(name: str) -> str | None:
    """Why ``name`` is unsafe as a zip entry name, or None when it is fine."""
    if not name:
        return "empty name"
    if _CONTROL.search(name):
        return "contains a NUL or control character"
    if "\\" in name:
        return "contains a backslash"
    if name.startswith("/"):
        return "is an absolute path"
    if _DRIVE.match(name):
        return "starts with a drive letter"
    if ".." in name.split("/"):
        return "has a '..' path segment"
    return None


def normalize_entry_name(name: str) -> str:
    """Name with empty and ``.`` segments dropped; a directory keeps its trailing slash."""
    parts = [p for p in name.split("/") if p not in ("", ".")]
    joined = "/".join(parts)
    return joined + "/" if name.endswith("/") and joined else joined


def _limit(message: str, what: str, value: int, limit: int, setting: str) -> LimitExceeded:
    """A LimitExceeded whose message is not about bytes (entry counts, ratios, lying sizes)."""
    return LimitExceeded(what, value, limit, setting, message=message)


def _display_name(info: zipfile.ZipInfo) -> tuple[str, bytes]:
    """(name to show and look up, raw name bytes as stored).

    Without the UTF-8 flag zipfile decodes names as CP437; many writers (RisuAI's fflate
    among them, for some names) store UTF-8 without setting the flag, so valid UTF-8 wins.
    """
    name = info.orig_filename
    if info.flag_bits & _FLAG_UTF8:
        return name, name.encode("utf-8")
    raw = name.encode("cp437")
    try:
        return raw.decode("utf-8"), raw
    except UnicodeDecodeError:
        return name, raw


def _count_entries(view: memoryview, eocd: EocdInfo, max_entries: int) -> int:
    """Walk the central-directory headers, stopping once there are more than ``max_entries``."""
    pos = eocd.cd_start
    end = eocd.cd_start + eocd.cd_size
    count = 0
    while pos < end:
        if pos + _CD_HEAD > end:
            raise MalformedInput("corrupt zip: truncated central directory")
        if view[pos:pos + 4] != _CD_SIG:
            raise MalformedInput(f"corrupt zip: bad central directory header at offset {pos}")
        n, m, k = _CD_NAME_LENS.unpack_from(view, pos + 28)
        pos += _CD_HEAD + n + m + k
        count += 1
        if count > max_entries:
            raise _limit(
                f"zip archive has more than {max_entries:,} entries "
                f"(raise it with {setting_hint('max_entries')})",
                "zip entry count", count, max_entries, setting_hint("max_entries"),
            )
    if pos != end:
        raise MalformedInput("corrupt zip: truncated central directory")
    return count


class SafeZip:
    """A zip archive opened from memory after its central directory passed every check."""

    entries: list[ZipEntry]
    """Entries in central-directory order."""
    prefix_offset: int
    """Where the zip data starts in the file: 0 for a plain zip, the JPEG's length for a
    JPEG-wrapped one (whether its offsets are file-absolute or zip-relative)."""
    comment: bytes
    """The archive comment (Voxta writes ``Voxta Package``); empty when there is none."""
    limits: Limits
    _view: memoryview
    _zf: zipfile.ZipFile
    _infos: dict[str, zipfile.ZipInfo]
    _raw_names: dict[str, bytes]
    _by_name: dict[str, ZipEntry]
    _folded: dict[str, str]

    def __init__(self) -> None:
        raise TypeError("use SafeZip.open(data)")

    @classmethod
    def open(cls, data: bytes | memoryview, *, limits: Limits | None = None) -> SafeZip:
        """Open and validate ``data``; raises MalformedInput/LimitExceeded/UnsupportedInput."""
        lim = limits or get_limits()
        if len(data) > lim.max_size:
            raise LimitExceeded("zip archive", len(data), lim.max_size, setting_hint("max_size"))
        view = memoryview(data)
        if view.format != "B" or view.ndim != 1:
            view = view.cast("B")
        view = view.toreadonly()
        eocd = read_eocd(view)
        if eocd is None:
            raise MalformedInput("not a zip archive (no end-of-central-directory record)")
        if eocd.entries > lim.max_entries:
            raise _limit(
                f"zip archive declares {eocd.entries:,} entries, over the limit of "
                f"{lim.max_entries:,} (raise it with {setting_hint('max_entries')})",
                "zip entry count", eocd.entries, lim.max_entries, setting_hint("max_entries"),
            )
        _count_entries(view, eocd, lim.max_entries)
        source = data if isinstance(data, bytes) else view.tobytes()
        try:
            zf = zipfile.ZipFile(io.BytesIO(source))
            infos = zf.infolist()
        except NotImplementedError as exc:
            raise UnsupportedInput(f"unsupported zip feature: {exc}") from None
        except (zipfile.BadZipFile, ValueError, OSError, EOFError, struct.error,
                UnicodeDecodeError, IndexError, KeyError) as exc:
            raise MalformedInput(f"corrupt zip central directory: {exc}") from None

        self = object.__new__(cls)
        self.limits = lim
        self.comment = zf.comment
        self._view = view
        self._zf = zf
        self._infos = {}
        self._raw_names = {}
        self._by_name = {}
        self._folded = {}
        self.entries = []
        normalized: set[str] = set()
        total = 0
        for info in infos:
            name, raw = _display_name(info)
            problem = entry_name_problem(name)
            if problem:
                raise MalformedInput(f"unsafe zip entry name {name!r}: {problem}")
            if stat.S_ISLNK(info.external_attr >> 16):
                raise MalformedInput(f"zip entry {name!r} is a symbolic link")
            key = normalize_entry_name(name)
            if key in normalized:
                raise MalformedInput(f"duplicate zip entry name {name!r}")
            normalized.add(key)
            if info.flag_bits & _FLAG_ENCRYPTED:
                raise UnsupportedInput(f"zip entry {name!r} is encrypted")
            size = info.file_size
            if size > lim.max_entry_size:
                raise LimitExceeded(
                    f"zip entry {name!r}", size, lim.max_entry_size,
                    setting_hint("max_entry_size"),
                )
            total += size
            if total > lim.max_archive_size:
                raise LimitExceeded(
                    "zip archive (total uncompressed)", total, lim.max_archive_size,
                    setting_hint("max_archive_size"),
                )
            if size > _RATIO_MIN_SIZE and size > info.compress_size * lim.max_ratio:
                ratio = size // max(1, info.compress_size)
                raise _limit(
                    f"zip entry {name!r} inflates {size:,} bytes from {info.compress_size:,} "
                    f"(ratio {ratio:,}:1, over the limit of {lim.max_ratio}:1; raise it with "
                    f"{setting_hint('max_ratio')})",
                    f"zip entry {name!r}", size, info.compress_size * lim.max_ratio,
                    setting_hint("max_ratio"),
                )
            entry = ZipEntry(
                name=name, size=size, compressed_size=info.compress_size,
                method=info.compress_type, is_dir=name.endswith("/"), crc=info.CRC,
            )
            self.entries.append(entry)
            self._infos[name] = info
            self._raw_names[name] = raw
            self._by_name[name] = entry
            self._folded.setdefault(name.casefold(), name)
        starts = [info.header_offset for info in infos]
        self.prefix_offset = min(starts) if starts else eocd.cd_start
        return self

    # -- lookup ---------------------------------------------------------------------------

    def names(self) -> list[str]:
        """Entry names in central-directory order."""
        return [e.name for e in self.entries]

    def has(self, name: str) -> bool:
        """Whether an entry is named exactly ``name``."""
        return name in self._by_name

    def get(self, name: str) -> ZipEntry | None:
        """The entry named exactly ``name``."""
        return self._by_name.get(name)

    def find(self, name: str, case_insensitive: bool = True) -> ZipEntry | None:
        """Exact match first, then (by default) a case-insensitive one."""
        entry = self._by_name.get(name)
        if entry is None and case_insensitive:
            exact = self._folded.get(name.casefold())
            if exact is not None:
                entry = self._by_name[exact]
        return entry

    def __iter__(self) -> Iterator[ZipEntry]:
        return iter(self.entries)

    def __len__(self) -> int:
        return len(self.entries)

    def __contains__(self, name: object) -> bool:
        return name in self._by_name

    # -- reading --------------------------------------------------------------------------

    def read(self, name: str) -> bytes:
        """The entry's bytes, inflated in memory; refuses output beyond the declared size."""
        entry = self._by_name.get(name)
        if entry is None:
            raise MalformedInput(f"zip archive has no entry {name!r}")
        if entry.is_dir:
            return b""
        info = self._infos[name]
        if entry.method in (zipfile.ZIP_STORED, zipfile.ZIP_DEFLATED):
            data = self._read_direct(entry, info)
        else:
            data = self._read_via_zipfile(entry, info)
        if zlib.crc32(data) != entry.crc:
            raise MalformedInput(f"zip entry {name!r} fails its CRC check")
        return data

    def read_text(self, name: str) -> str:
        """The entry decoded as UTF-8 (a leading BOM is dropped)."""
        data = self.read(name)
        try:
            return data.decode("utf-8-sig")
        except UnicodeDecodeError as exc:
            raise MalformedInput(f"zip entry {name!r} is not UTF-8 (byte {exc.start})") from None

    def _too_big(self, entry: ZipEntry, got: int) -> LimitExceeded:
        return _limit(
            f"zip entry {entry.name!r} inflates past its declared size of {entry.size:,} bytes "
            "(corrupt or hostile archive)",
            f"zip entry {entry.name!r}", got, entry.size, setting_hint("max_entry_size"),
        )

    def _read_direct(self, entry: ZipEntry, info: zipfile.ZipInfo) -> bytes:
        """Stored/deflated data read straight from the buffer, bounded by the declared size."""
        view = self._view
        off = info.header_offset
        if off < 0 or off + _LOCAL_HEAD > len(view) or view[off:off + 4] != _LOCAL_SIG:
            raise MalformedInput(f"zip entry {entry.name!r} has no local header at offset {off}")
        n, m = _LOCAL_NAME_LENS.unpack_from(view, off + 26)
        start = off + _LOCAL_HEAD + n + m
        if view[off + _LOCAL_HEAD:off + _LOCAL_HEAD + n] != self._raw_names[entry.name]:
            raise MalformedInput(
                f"zip entry {entry.name!r}: local header name disagrees with the central directory"
            )
        end = start + entry.compressed_size
        if end > len(view):
            raise MalformedInput(f"zip entry {entry.name!r} runs past the end of the archive")
        payload = view[start:end]
        if entry.method == zipfile.ZIP_STORED:
            if entry.compressed_size > entry.size:
                raise self._too_big(entry, entry.compressed_size)
            if entry.compressed_size < entry.size:
                raise MalformedInput(
                    f"zip entry {entry.name!r} is stored with {entry.compressed_size:,} bytes "
                    f"but declares {entry.size:,}"
                )
            return payload.tobytes()
        inflater = zlib.decompressobj(-15)
        try:
            out = inflater.decompress(payload, entry.size + 1)
        except zlib.error as exc:
            raise MalformedInput(
                f"zip entry {entry.name!r} holds corrupt deflate data ({exc})"
            ) from None
        if len(out) > entry.size:
            raise self._too_big(entry, len(out))
        if not inflater.eof:
            raise MalformedInput(f"zip entry {entry.name!r} holds a truncated deflate stream")
        if len(out) < entry.size:
            raise MalformedInput(
                f"zip entry {entry.name!r} inflates to {len(out):,} bytes, "
                f"not the declared {entry.size:,}"
            )
        return out

    def _read_via_zipfile(self, entry: ZipEntry, info: zipfile.ZipInfo) -> bytes:
        """Other methods (bzip2, LZMA) streamed through zipfile in bounded chunks."""
        parts: list[bytes] = []
        total = 0
        try:
            with self._zf.open(info) as stream:
                while True:
                    piece = stream.read(_READ_CHUNK)
                    if not piece:
                        break
                    total += len(piece)
                    if total > entry.size:
                        raise self._too_big(entry, total)
                    parts.append(piece)
        except NotImplementedError:
            raise UnsupportedInput(
                f"zip entry {entry.name!r} uses unsupported compression method {entry.method}"
            ) from None
        except RuntimeError as exc:
            raise UnsupportedInput(f"zip entry {entry.name!r}: {exc}") from None
        except (zipfile.BadZipFile, OSError, EOFError, ValueError, zlib.error,
                struct.error) as exc:
            raise MalformedInput(f"zip entry {entry.name!r} is corrupt ({exc})") from None
        return b"".join(parts)

    # -- the archive as it was -------------------------------------------------------------

    def source(self) -> ZipSource:
        """What :func:`write_zip` needs to give this archive back byte for byte when it is
        asked to write the same members again (see :class:`ZipSource`)."""
        return ZipSource.of(self)

    # -- lifetime -------------------------------------------------------------------------

    def close(self) -> None:
        """Release the underlying zipfile object."""
        self._zf.close()

    def __enter__(self) -> SafeZip:
        return self

    def __exit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"<SafeZip {len(self.entries)} entries prefix_offset={self.prefix_offset}>"


_KEEP_PAYLOAD = 1024 * 1024
"""A member compressed by another tool is kept (compressed) up to this size: deflate output
differs between tools, so it cannot be made again.  Members stored, or deflated into stored
blocks (what most tools do with images), are made again from their bytes."""
_KEEP_TOTAL = 8 * _MIB
"""Past this much kept besides JSON (headers, the central directory, members compressed by
another tool), an archive is not made again: it is written anew."""


@dataclass(frozen=True, slots=True)
class Payload:
    """How a member's data in the archive is made from its bytes."""

    kind: Literal["stored", "raw", "blocks"]
    """``stored``: the bytes themselves; ``raw``: ``data``, the compressed bytes as they were;
    ``blocks``: deflate stored blocks (what many tools write for data that does not compress),
    ``runs`` of (header byte, length, count), then ``data``, the stream's last few bytes."""
    data: bytes = b""
    runs: tuple[tuple[int, int, int], ...] = ()


@dataclass(frozen=True, slots=True)
class _Member:
    name: str
    size: int
    crc: int
    payload: Payload | None
    """None: this member cannot be made again (compressed by another tool, and large)."""
    json: bytes | None
    """The member's text, when it is a JSON member stored uncompressed."""

    def text(self) -> bytes | None:
        """The JSON text of a ``.json`` member, as it was."""
        if self.json is not None:
            return self.json
        if self.payload is not None and self.payload.kind == "raw":
            try:
                return zlib.decompress(self.payload.data, -15)
            except zlib.error:
                return None
        return None


def _stored_blocks(payload: memoryview, size: int) -> Payload | None:
    """``payload`` as deflate stored blocks, when that is all it is (bytes no tool could
    compress, written as they are with a 5-byte header per block)."""
    runs: list[list[int]] = []
    i, total, n = 0, 0, len(payload)
    while i < n:
        head = payload[i]
        if (head >> 1) & 3 or i + 5 > n:
            return None
        length = payload[i + 1] | payload[i + 2] << 8
        if length ^ 0xFFFF != (payload[i + 3] | payload[i + 4] << 8):
            return None
        if runs and runs[-1][0] == head and runs[-1][1] == length:
            runs[-1][2] += 1
        else:
            runs.append([head, length, 1])
        i += 5 + length
        total += length
        if head & 1:
            break
    tail = payload[i:].tobytes()
    if not runs or total != size or i > n or len(tail) > 16:
        return None
    return Payload("blocks", tail, tuple((h, ln, c) for h, ln, c in runs))


def _blocks(data: bytes, runs: tuple[tuple[int, int, int], ...], tail: bytes) -> Iterator[bytes]:
    view = memoryview(data)
    at = 0
    for head, length, count in runs:
        header = bytes((head, length & 0xFF, length >> 8, ~length & 0xFF, (~length >> 8) & 0xFF))
        for _ in range(count):
            yield header
            yield view[at:at + length].tobytes()
            at += length
    yield tail


@dataclass(frozen=True, slots=True)
class ZipSource:
    """An archive as it was read, minus the member bytes an entity holds anyway.

    Everything but the members' data is kept as it was (local headers, data descriptors,
    central directory, end records, comment: a few hundred bytes a member), with each member's
    size and CRC.  :func:`write_zip` asked to write the same members, in the same order, gives
    the archive back byte for byte from them; a member's compressed data is made from its
    bytes when it was stored (or deflated into stored blocks), and kept only when another tool
    compressed it (JSON members always, others up to a megabyte).  JSON members' text is kept,
    so that an unchanged ``card.json`` keeps its bytes even when other members change.
    """

    members: tuple[_Member, ...]
    """In central-directory order."""
    segments: tuple[bytes | int, ...] | None
    """The archive in file order: bytes as they were, or the index of a member whose data goes
    there; None when the archive cannot be made again."""
    prefix: tuple[int, bytes]
    """Length and SHA-256 of what came before the zip (a JPEG cover), if anything."""
    comment: bytes

    @classmethod
    def of(cls, zf: SafeZip) -> ZipSource:
        import hashlib

        view = zf._view
        members: list[_Member] = []
        where: list[tuple[int, int, int, int]] = []  # (header offset, data start, end, index)
        kept = 0
        whole = True
        for index, entry in enumerate(zf.entries):
            info = zf._infos[entry.name]
            off = info.header_offset
            payload: Payload | None = None
            text: bytes | None = None
            if off >= 0 and off + _LOCAL_HEAD <= len(view) and view[off:off + 4] == _LOCAL_SIG:
                n, m = _LOCAL_NAME_LENS.unpack_from(view, off + 26)
                start = off + _LOCAL_HEAD + n + m
                end = start + entry.compressed_size
                data = view[start:end] if end <= len(view) else None
                is_json = entry.name.lower().endswith(".json")
                if data is None:
                    pass
                elif entry.method == zipfile.ZIP_STORED:
                    payload = Payload("stored")
                    text = data.tobytes() if is_json else None
                elif entry.method == zipfile.ZIP_DEFLATED and is_json:
                    payload = Payload("raw", data.tobytes())  # the text, kept in any case
                elif entry.method == zipfile.ZIP_DEFLATED:
                    payload = _stored_blocks(data, entry.size)
                    if payload is None and len(data) <= min(_KEEP_PAYLOAD, _KEEP_TOTAL - kept):
                        payload = Payload("raw", data.tobytes())
                        kept += len(data)
                where.append((off, start, end, index))
            else:
                whole = False
            members.append(_Member(entry.name, entry.size, entry.crc, payload, text))
            whole = whole and payload is not None
        segments: list[bytes | int] | None = [] if whole else None
        pos = zf.prefix_offset
        for off, start, end, index in sorted(where):
            if segments is None:
                break
            kept += off - pos + start - off
            if off < pos or kept > _KEEP_TOTAL:  # overlapping entries, or much besides members
                segments = None
                break
            if off > pos:
                segments.append(view[pos:off].tobytes())
            segments.append(view[off:start].tobytes())
            segments.append(index)
            pos = end
        if segments is not None and kept + len(view) - pos <= _KEEP_TOTAL:
            segments.append(view[pos:].tobytes())
        else:
            segments = None
        prefix = view[:zf.prefix_offset]
        return cls(tuple(members), None if segments is None else tuple(segments),
                   (len(prefix), hashlib.sha256(prefix).digest()), zf.comment)

    def as_read(self, entries: Sequence[tuple[str, bytes]]) -> list[tuple[str, bytes]]:
        """``entries`` with each JSON member that holds the same value as the member of that
        name did given back as its text (:func:`bunzai.io.asread.same_json`)."""
        from bunzai.io.asread import same_json

        texts = {m.name: m for m in self.members if m.name.lower().endswith(".json")}
        out = []
        for name, data in entries:
            member = texts.get(name)
            if member is not None and (len(data) != member.size
                                       or zlib.crc32(data) != member.crc):
                data = same_json(data, member.text())
            out.append((name, data))
        return out

    def rebuild(self, entries: Sequence[tuple[str, bytes]], prefix: bytes,
                comment: bytes) -> bytes | None:
        """The archive as it was read, when ``entries`` are its files in its order with the
        same bytes (folder entries aside) and nothing around them changed; else None."""
        import hashlib

        # folder entries hold nothing: whether there are any is the archive's layout
        files = [(n, d) for n, d in entries if not n.endswith("/")]
        wanted = [m for m in self.members if not m.name.endswith("/")]
        if (self.segments is None or len(files) != len(wanted)
                or comment != self.comment or len(prefix) != self.prefix[0]
                or hashlib.sha256(prefix).digest() != self.prefix[1]):
            return None
        given = dict(zip((m.name for m in wanted), (d for _, d in files), strict=True))
        made: list[list[bytes]] = []
        for (name, _), member in zip(files, wanted, strict=True):
            if name != member.name:
                return None
        for member in self.members:
            data = given.get(member.name, b"")
            if (len(data) != member.size or zlib.crc32(data) != member.crc
                    or member.payload is None):
                return None
            payload = member.payload
            if payload.kind == "stored":
                made.append([data])
            elif payload.kind == "raw":
                try:
                    if zlib.decompress(payload.data, -15) != data:
                        return None
                except zlib.error:
                    return None
                made.append([payload.data])
            else:
                made.append(list(_blocks(data, payload.runs, payload.data)))
        out = [prefix]
        for seg in self.segments:
            if isinstance(seg, int):
                out.extend(made[seg])
            else:
                out.append(seg)
        return b"".join(out)


def _parents(name: str) -> list[str]:
    """Folder entries above ``name``: ``a/b/c.txt`` → ``a/``, ``a/b/``."""
    parts = name.rstrip("/").split("/")[:-1]
    return ["/".join(parts[:i]) + "/" for i in range(1, len(parts) + 1)]


def write_zip(
    entries: Sequence[tuple[str, bytes]],
    *,
    compress: bool | Callable[[str], bool] = True,
    prefix: bytes = b"",
    dirs: bool = False,
    date_time: tuple[int, int, int, int, int, int] = DEFAULT_DATE_TIME,
    comment: bytes = b"",
    like: object | Iterable[object] = None,
) -> bytes:
    """A deterministic zip of ``entries`` (in order), optionally after ``prefix`` (e.g. a JPEG).

    Offsets are file-absolute, so strict readers and zipfile both open a prefixed archive.
    ``dirs`` adds an entry for every parent folder before its first file (as BYAF's reference
    writer does).  ``comment`` is the archive comment (at most 65,535 bytes; longer is
    refused).  Unsafe or duplicate names raise MalformedInput.

    ``like``: the entity (or entities) being written.  When they were read from one zip
    archive, a JSON member holding the same value as the member of that name is written as the
    text it had, and an archive whose every member (and comment, and prefix) is as read is that
    archive again, byte for byte (:class:`ZipSource`); otherwise the archive is written anew.
    """
    if len(comment) > 0xFFFF:
        raise MalformedInput(f"cannot write a zip comment of {len(comment):,} bytes (the "
                             "format holds 65,535)")
    members = _members(entries, dirs)
    source = _source_of(like)
    if source is not None:
        members = source.as_read(members)
        again = source.rebuild(members, prefix, comment)
        if again is not None:
            return again
    buf = io.BytesIO()
    buf.write(prefix)
    with zipfile.ZipFile(buf, "w") as zf:
        for name, payload in members:
            is_dir = name.endswith("/")
            info = zipfile.ZipInfo(name, date_time)
            info.create_system = 3  # Unix, whatever the host: keeps output reproducible
            if is_dir:
                info.external_attr = (stat.S_IFDIR | 0o755) << 16 | 0x10
                info.compress_type = zipfile.ZIP_STORED
            else:
                info.external_attr = (stat.S_IFREG | 0o644) << 16
                wanted = compress(name) if callable(compress) else compress
                info.compress_type = zipfile.ZIP_DEFLATED if wanted else zipfile.ZIP_STORED
            zf.writestr(info, payload)
        zf.comment = comment
    return buf.getvalue()


def _source_of(like: object | Iterable[object]) -> ZipSource | None:
    """The archive the entities ``like`` were read from, all of them from the same one."""
    if like is None:
        return None
    from bunzai.io.asread import ZIP, shared

    group = list(like) if isinstance(like, list | tuple) else [like]
    found = shared(group, ZIP)
    return found if isinstance(found, ZipSource) else None


def _members(entries: Sequence[tuple[str, bytes]], dirs: bool) -> list[tuple[str, bytes]]:
    """The entries in the order written: names checked, parent folders added for ``dirs``."""
    out: list[tuple[str, bytes]] = []
    seen: set[str] = set()
    auto_dirs: set[str] = set()
    for name, payload in entries:
        problem = entry_name_problem(name)
        if problem:
            raise MalformedInput(f"cannot write zip entry {name!r}: {problem}")
        if name.endswith("/") and payload:
            raise MalformedInput(f"cannot write zip entry {name!r}: a folder with data")
        key = normalize_entry_name(name)
        if key in auto_dirs:
            auto_dirs.discard(key)  # an explicit folder entry we already wrote for dirs=True
            continue
        if key in seen:
            raise MalformedInput(f"cannot write zip entry {name!r}: duplicate name")
        if dirs:
            for parent in _parents(key):
                if parent not in seen:
                    seen.add(parent)
                    auto_dirs.add(parent)
                    out.append((parent, b""))
        seen.add(key)
        out.append((name, payload))
    return out

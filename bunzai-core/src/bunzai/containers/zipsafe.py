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
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from types import TracebackType

from bunzai.containers.sniff import EocdInfo, read_eocd
from bunzai.errors import LimitExceeded, MalformedInput, UnsupportedInput
from bunzai.limits import Limits, get_limits, setting_hint

__all__ = [
    "DEFAULT_DATE_TIME",
    "SafeZip",
    "ZipEntry",
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
) -> bytes:
    """A deterministic zip of ``entries`` (in order), optionally after ``prefix`` (e.g. a JPEG).

    Offsets are file-absolute, so strict readers and zipfile both open a prefixed archive.
    ``dirs`` adds an entry for every parent folder before its first file (as BYAF's reference
    writer does).  ``comment`` is the archive comment (at most 65,535 bytes; longer is
    refused).  Unsafe or duplicate names raise MalformedInput.
    """
    if len(comment) > 0xFFFF:
        raise MalformedInput(f"cannot write a zip comment of {len(comment):,} bytes (the "
                             "format holds 65,535)")
    buf = io.BytesIO()
    buf.write(prefix)
    seen: set[str] = set()
    auto_dirs: set[str] = set()
    with zipfile.ZipFile(buf, "w") as zf:

        def add(name: str, payload: bytes) -> None:
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
                        add(parent, b"")
            seen.add(key)
            add(name, payload)
        zf.comment = comment
    return buf.getvalue()

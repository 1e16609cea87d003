"""PNG chunk walking, text chunks and byte-exact rewriting.

Cards live in PNG text chunks next to megabytes of image data, so the walk reads only the 8-byte
chunk headers (``struct.unpack_from`` over the original buffer), never copies or inflates IDAT,
and builds :class:`Chunk` objects only when asked.  Rewriting (:func:`splice`) copies every kept
chunk byte for byte so images, APNG frames and unknown chunks survive untouched.
"""

from __future__ import annotations

import struct
import zlib
from bisect import bisect_left
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TypeVar

from bunzai.errors import LimitExceeded, MalformedInput
from bunzai.io.limits import Limits, get_limits, setting_hint
from bunzai.io.outputs import Part

from .base64util import encode_base64

__all__ = [
    "PNG_SIGNATURE",
    "TEXT_CHUNK_TYPES",
    "Base64TextChunk",
    "Chunk",
    "PngFile",
    "TextChunk",
    "is_text_chunk_with_keyword",
    "make_chunk",
    "make_text_chunk",
    "minimal_png",
    "splice",
    "splice_parts",
]

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
TEXT_CHUNK_TYPES = frozenset({"tEXt", "zTXt", "iTXt"})
_TEXT_TYPES_B = frozenset({b"tEXt", b"zTXt", b"iTXt"})
MAX_CHUNK_LENGTH = 2**31 - 1
"""Largest chunk length the PNG spec allows."""
_MIB = 1024 * 1024
_MAX_KEYWORD = 79

_HEAD = struct.Struct(">I4s")
_U32 = struct.Struct(">I")
_IEND_CHUNK = b"\x00\x00\x00\x00IEND\xaeB`\x82"

_TYPE_NAMES: dict[bytes, str] = {}


def _type_name(ctype: bytes) -> str:
    """Chunk type as ``str``, interned so repeated types cost one dict lookup."""
    name = _TYPE_NAMES.get(ctype)
    if name is None:
        name = ctype.decode("latin-1")
        if len(_TYPE_NAMES) < 256:
            _TYPE_NAMES[ctype] = name
    return name


@dataclass(frozen=True, slots=True)
class Chunk:
    """One PNG chunk; ``data`` is a read-only view into the original file (no copy)."""

    type: str
    offset: int
    """Offset of the chunk's length field in the file."""
    length: int
    data: memoryview
    crc: int
    """CRC stored in the file (not verified; see :meth:`crc_ok`)."""
    _buf: memoryview = field(repr=False, compare=False)

    @property
    def end(self) -> int:
        """Offset just past the chunk's CRC."""
        return self.offset + 12 + self.length

    @property
    def raw(self) -> memoryview:
        """The whole chunk as stored: length, type, payload and CRC."""
        return self._buf[self.offset:self.end]

    def crc_ok(self) -> bool:
        """Whether the stored CRC matches type + payload (computed now, not during the walk)."""
        return zlib.crc32(self._buf[self.offset + 4:self.offset + 8 + self.length]) == self.crc


@dataclass(frozen=True, slots=True)
class TextChunk:
    """A tEXt, zTXt or iTXt chunk with its header decoded and its text left in place."""

    kind: str
    keyword: str
    """Keyword as stored (Latin-1 decoded); compare case-insensitively."""
    chunk: Chunk
    text_offset: int
    """Offset of the (possibly compressed) text within ``chunk.data``."""
    language: str = ""
    translated_keyword: str = ""
    compressed: bool = False

    def value_buffer(self, limits: Limits | None = None) -> bytes | memoryview:
        """The text payload: a zero-copy view when stored uncompressed, else inflated bytes."""
        payload = self.chunk.data[self.text_offset:]
        if not self.compressed:
            return payload
        return _inflate_limited(payload, limits or get_limits(), self.kind, self.keyword)

    def value_bytes(self, limits: Limits | None = None) -> bytes:
        """The text payload as bytes; compressed text is inflated under the size/ratio limits."""
        value = self.value_buffer(limits)
        return value if isinstance(value, bytes) else value.tobytes()

    def value_text(self, limits: Limits | None = None) -> str:
        """The text decoded as the PNG spec says: Latin-1 for tEXt/zTXt, UTF-8 for iTXt."""
        value = self.value_buffer(limits)
        if self.kind != "iTXt":
            return str(value, "latin-1")
        try:
            return str(value, "utf-8")
        except UnicodeDecodeError as exc:
            raise MalformedInput(
                f"iTXt chunk {self.keyword!r} is not valid UTF-8 (byte {exc.start})"
            ) from None


def _inflate_limited(payload: memoryview, limits: Limits, kind: str, keyword: str) -> bytes:
    """Inflate a text chunk, refusing bombs before allocating more than the limit."""
    cap = limits.max_text_chunk
    setting = setting_hint("max_text_chunk")
    ratio_cap = max(_MIB, limits.max_ratio * len(payload))
    if ratio_cap < cap:
        cap = ratio_cap
        setting = setting_hint("max_ratio")
    inflater = zlib.decompressobj()
    try:
        out = inflater.decompress(payload, cap + 1)
    except zlib.error as exc:
        raise MalformedInput(f"{kind} chunk {keyword!r} holds corrupt zlib data ({exc})") from None
    if len(out) > cap:
        raise LimitExceeded("zTXt/iTXt payload", len(out), cap, setting)
    if not inflater.eof:
        raise MalformedInput(f"{kind} chunk {keyword!r} holds a truncated zlib stream")
    return out


def _parse_text_header(chunk: Chunk) -> TextChunk:
    """Decode a text chunk's header; MalformedInput names what is wrong."""
    data = chunk.data
    head = data[:_MAX_KEYWORD + 1].tobytes()
    nul = head.find(b"\x00")
    if nul < 0:
        raise MalformedInput(
            f"{chunk.type} chunk at offset {chunk.offset} has no keyword terminator"
        )
    keyword = head[:nul].decode("latin-1")
    pos = nul + 1
    if chunk.type == "tEXt":
        return TextChunk("tEXt", keyword, chunk, pos)
    if chunk.type == "zTXt":
        if pos >= len(data):
            raise MalformedInput(f"zTXt chunk {keyword!r} has no compression method")
        if data[pos] != 0:
            raise MalformedInput(
                f"zTXt chunk {keyword!r} uses unknown compression method {data[pos]}"
            )
        return TextChunk("zTXt", keyword, chunk, pos + 1, compressed=True)
    # iTXt: flag, method, language NUL, translated keyword NUL, text
    if pos + 2 > len(data):
        raise MalformedInput(f"iTXt chunk {keyword!r} is truncated in its header")
    flag, method = data[pos], data[pos + 1]
    if flag not in (0, 1):
        raise MalformedInput(f"iTXt chunk {keyword!r} has invalid compression flag {flag}")
    if flag and method != 0:
        raise MalformedInput(f"iTXt chunk {keyword!r} uses unknown compression method {method}")
    rest = data[pos + 2:]
    rest_bytes = rest.tobytes() if len(rest) <= 4096 else rest[:4096].tobytes()
    lang_end = rest_bytes.find(b"\x00")
    tkw_end = rest_bytes.find(b"\x00", lang_end + 1) if lang_end >= 0 else -1
    if tkw_end < 0:
        if len(rest) > 4096:  # absurdly long language/translated keyword: search the lot
            rest_bytes = rest.tobytes()
            lang_end = rest_bytes.find(b"\x00")
            tkw_end = rest_bytes.find(b"\x00", lang_end + 1) if lang_end >= 0 else -1
        if tkw_end < 0:
            raise MalformedInput(f"iTXt chunk {keyword!r} is missing its language terminators")
    language = rest_bytes[:lang_end].decode("latin-1")
    try:
        translated = rest_bytes[lang_end + 1:tkw_end].decode("utf-8")
    except UnicodeDecodeError:
        raise MalformedInput(
            f"iTXt chunk {keyword!r} has a translated keyword that is not UTF-8"
        ) from None
    return TextChunk(
        "iTXt", keyword, chunk, pos + 2 + tkw_end + 1,
        language=language, translated_keyword=translated, compressed=bool(flag),
    )


def _stop_reason(ctype: bytes, length: int, pos: int, n: int) -> str:
    """Why the chunk walk stopped at ``pos``."""
    if length > MAX_CHUNK_LENGTH:
        return f"chunk length {length:,} at offset {pos} exceeds 2**31-1"
    if not ctype.isalpha():
        return f"invalid chunk type {ctype!r} at offset {pos}"
    return (
        f"{ctype.decode('latin-1')} chunk at offset {pos} runs past the end of the file "
        f"({length:,} bytes declared, {max(0, n - pos - 12):,} present)"
    )


def _cut(buf: bytes | memoryview, ctype: bytes, pos: int, length: int
         ) -> tuple[str, int, int, str | None]:
    """:attr:`PngFile.cut` for the chunk at ``pos`` that runs past the end of ``buf``."""
    keyword = None
    if ctype in _TEXT_TYPES_B:
        head = bytes(buf[pos + 8:pos + 8 + 80])
        if b"\x00" in head:
            keyword = head.split(b"\x00", 1)[0].decode("latin-1")
    return ctype.decode("latin-1"), pos, length, keyword


class PngFile:
    """A walked PNG: chunk index, APNG flag, IEND position and what looked odd.

    The walk is tolerant: a truncated or corrupt tail stops it and is reported in ``problems``
    (with ``truncated`` set) while everything before stays usable.
    """

    __slots__ = (
        "_by_keyword", "_chunks", "_lengths", "_offsets", "_table", "_text", "_types", "_view",
        "cut", "data", "iend_index",
        "is_apng", "limits", "problems", "trailing", "trailing_offset", "truncated",
    )

    data: bytes | memoryview
    is_apng: bool
    iend_index: int | None
    trailing_offset: int
    """Where the bytes that do not form chunks start (``len(data)`` when there are none)."""
    trailing: int
    """How many bytes at the end do not form chunks (after IEND, or a truncated chunk)."""
    truncated: bool
    cut: tuple[str, int, int, str | None] | None
    """The chunk the file ends inside: (type, offset, declared data length, the keyword of a
    text chunk when what is left holds it); its data has ``len(data) - offset - 8`` bytes of
    them.  Names what a truncation cut, which the chunk list no longer shows."""
    """The walk stopped before IEND (cut file or corrupt chunk); what was read is usable."""
    problems: list[str]
    limits: Limits
    _view: memoryview
    _types: list[bytes]
    _offsets: list[int]
    _lengths: list[int]
    _chunks: list[Chunk] | None
    _table: tuple[tuple[str, int, int, int], ...] | None
    _text: list[TextChunk] | None
    _by_keyword: dict[str, list[TextChunk]] | None

    def __init__(self) -> None:
        raise TypeError("use PngFile.parse(data)")

    @classmethod
    def parse(cls, data: bytes | memoryview, *, limits: Limits | None = None) -> PngFile:
        """Walk the chunk headers of ``data``; MalformedInput if it is not a PNG at all."""
        lim = limits or get_limits()
        n = len(data)
        if n > lim.max_size:
            raise LimitExceeded("PNG file", n, lim.max_size, setting_hint("max_size"))
        view = memoryview(data)
        if view.format != "B" or view.ndim != 1:
            view = view.cast("B")
        view = view.toreadonly()
        if view[:8] != PNG_SIGNATURE:
            raise MalformedInput("not a PNG file (bad signature)")

        types: list[bytes] = []
        offsets: list[int] = []
        lengths: list[int] = []
        problems: list[str] = []
        # Hot loop: unpack_from straight on a bytes object is faster than on a memoryview.
        buf: bytes | memoryview = data if isinstance(data, bytes) else view
        unpack = _HEAD.unpack_from
        add_type, add_offset, add_length = types.append, offsets.append, lengths.append
        last = n - 12
        pos = 8
        stop_reason = ""
        cut: tuple[str, int, int, str | None] | None = None
        while pos <= last:
            length, ctype = unpack(buf, pos)
            end = pos + 12 + length
            if end > n or length > MAX_CHUNK_LENGTH or not ctype.isalpha():
                stop_reason = _stop_reason(ctype, length, pos, n)
                if end > n and length <= MAX_CHUNK_LENGTH and ctype.isalpha():
                    cut = _cut(buf, ctype, pos, length)
                break
            add_type(ctype)
            add_offset(pos)
            add_length(length)
            pos = end
        else:
            if pos < n:
                stop_reason = f"{n - pos} stray bytes at offset {pos}"

        if not types or types[0] != b"IHDR":
            raise MalformedInput("PNG has no IHDR chunk first" + (
                f" ({stop_reason})" if stop_reason and not types else ""
            ))

        self = object.__new__(cls)
        self.data = data
        self.limits = lim
        self._view = view
        self._types = types
        self._offsets = offsets
        self._lengths = lengths
        self._chunks = None
        self._table = None
        self._text = None
        self._by_keyword = None
        self.problems = problems
        self.trailing_offset = pos
        self.trailing = n - pos
        self.truncated = False
        self.cut = cut

        try:
            iend: int | None = types.index(b"IEND")
        except ValueError:
            iend = None
        self.iend_index = iend
        try:
            first_idat = types.index(b"IDAT")
        except ValueError:
            first_idat = len(types)
        self.is_apng = b"acTL" in types[:first_idat]

        if iend is None:
            self.truncated = True
            if stop_reason:
                problems.append(f"truncated PNG: {stop_reason}")
            problems.append("missing IEND chunk")
        else:
            after = len(types) - iend - 1
            if after:
                problems.append(f"{after} chunk(s) after IEND")
            if self.trailing:
                problems.append(f"{self.trailing:,} bytes of trailing data after IEND")
        if first_idat == len(types):
            problems.append("no IDAT chunk")
        return self

    # -- chunk access ------------------------------------------------------------------------

    def _chunk(self, i: int) -> Chunk:
        off = self._offsets[i]
        length = self._lengths[i]
        view = self._view
        return Chunk(
            _type_name(self._types[i]), off, length, view[off + 8:off + 8 + length],
            _U32.unpack_from(view, off + 8 + length)[0], view,
        )

    @property
    def chunks(self) -> list[Chunk]:
        """Every chunk in file order, including any after IEND (built on first access)."""
        if self._chunks is None:
            self._chunks = [self._chunk(i) for i in range(len(self._types))]
        return self._chunks

    def table(self) -> tuple[tuple[str, int, int, int], ...]:
        """(type, offset, length, stored CRC) of every chunk in file order, read from the walk
        without building :class:`Chunk` objects (an image has dozens of IDAT chunks); built
        once."""
        if self._table is None:
            buf: bytes | memoryview = self.data if isinstance(self.data, bytes) else self._view
            crc = _U32.unpack_from
            self._table = tuple([
                (_type_name(t), off, length, crc(buf, off + 8 + length)[0])
                for t, off, length in zip(self._types, self._offsets, self._lengths,
                                          strict=True)])
        return self._table

    @property
    def chunk_types(self) -> list[str]:
        """Chunk types in file order, without building :class:`Chunk` objects."""
        return [_type_name(t) for t in self._types]

    def has_chunk(self, type: str | bytes) -> bool:
        """Whether a chunk of this type is present (no :class:`Chunk` is built)."""
        return (type.encode("latin-1") if isinstance(type, str) else type) in self._types

    def lengths_of(self, type: str | bytes) -> list[int]:
        """Payload lengths of the chunks of one type, in file order (no :class:`Chunk` is
        built: a picture has hundreds of image-data chunks)."""
        want = type.encode("latin-1") if isinstance(type, str) else type
        return [n for t, n in zip(self._types, self._lengths, strict=True) if t == want]

    def chunks_of(self, type: str | bytes) -> list[Chunk]:
        """Chunks of one type, in file order."""
        want = type.encode("latin-1") if isinstance(type, str) else type
        if self._chunks is not None:
            return [c for c, t in zip(self._chunks, self._types, strict=True) if t == want]
        return [self._chunk(i) for i, t in enumerate(self._types) if t == want]

    def text_chunks(self) -> list[TextChunk]:
        """All tEXt/zTXt/iTXt chunks; malformed headers go to ``problems`` and are skipped."""
        return list(self._text_list())

    def _text_list(self) -> list[TextChunk]:
        """:meth:`text_chunks` itself, parsed once (callers here only read it)."""
        if self._text is None:
            found: list[TextChunk] = []
            wanted = [i for i, t in enumerate(self._types) if t in _TEXT_TYPES_B]
            for i in wanted:
                chunk = self._chunks[i] if self._chunks is not None else self._chunk(i)
                try:
                    found.append(_parse_text_header(chunk))
                except MalformedInput as exc:
                    self.problems.append(f"skipped malformed text chunk: {exc.message}")
            self._text = found
        return self._text

    def find_text(self, *keywords: str) -> list[TextChunk]:
        """Text chunks whose keyword matches one of ``keywords``, case-insensitively, in file
        order."""
        index = self._by_keyword
        if index is None:  # every detector asks for a keyword or two: grouped once
            index = {}
            for t in self._text_list():
                index.setdefault(t.keyword.lower(), []).append(t)
            self._by_keyword = index
        wanted = {k.lower() for k in keywords}
        hits = [index[k] for k in wanted if k in index]
        if not hits:
            return []
        if len(hits) == 1:
            return list(hits[0])
        return [t for t in self._text_list() if t.keyword.lower() in wanted]

    @property
    def width(self) -> int:
        """Image width from IHDR (0 if IHDR is too short)."""
        return self._ihdr_u32(0)

    @property
    def height(self) -> int:
        """Image height from IHDR (0 if IHDR is too short)."""
        return self._ihdr_u32(4)

    def _ihdr_u32(self, at: int) -> int:
        if self._lengths[0] < at + 4:
            return 0
        value: int = _U32.unpack_from(self._view, self._offsets[0] + 8 + at)[0]
        return value

    def __repr__(self) -> str:
        return (
            f"<PngFile {len(self._types)} chunks apng={self.is_apng} "
            f"iend={self.iend_index} problems={len(self.problems)}>"
        )


# -- writing ---------------------------------------------------------------------------------


def make_chunk(type: bytes | str, payload: bytes) -> bytes:
    """A complete chunk: length, type, payload and CRC."""
    ctype = type.encode("latin-1") if isinstance(type, str) else bytes(type)
    if len(ctype) != 4 or not ctype.isalpha():
        raise MalformedInput(f"invalid PNG chunk type {ctype!r}")
    if len(payload) > MAX_CHUNK_LENGTH:
        raise MalformedInput(f"PNG chunk payload of {len(payload):,} bytes exceeds 2**31-1")
    crc = zlib.crc32(payload, zlib.crc32(ctype))
    return b"".join((_U32.pack(len(payload)), ctype, payload, _U32.pack(crc)))


def _keyword_bytes(keyword: str) -> bytes:
    try:
        kw = keyword.encode("latin-1")
    except UnicodeEncodeError:
        raise MalformedInput(f"PNG text keyword {keyword!r} is not Latin-1") from None
    if not 1 <= len(kw) <= _MAX_KEYWORD or b"\x00" in kw:
        raise MalformedInput(f"PNG text keyword {keyword!r} must be 1-79 bytes without NUL")
    return kw


def make_text_chunk(keyword: str, text: str | bytes, kind: str = "tEXt") -> bytes:
    """A text chunk: tEXt (Latin-1), zTXt (Latin-1, compressed) or iTXt (UTF-8, uncompressed)."""
    kw = _keyword_bytes(keyword)
    if kind == "iTXt":
        body = text.encode("utf-8") if isinstance(text, str) else text
        return make_chunk(b"iTXt", kw + b"\x00\x00\x00\x00\x00" + body)
    if kind not in ("tEXt", "zTXt"):
        raise MalformedInput(f"unknown PNG text chunk kind {kind!r}")
    if isinstance(text, str):
        try:
            body = text.encode("latin-1")
        except UnicodeEncodeError:
            raise MalformedInput(
                f"text for {kind} chunk {keyword!r} is not Latin-1 (use iTXt or base64)"
            ) from None
    else:
        body = text
    if kind == "tEXt":
        return make_chunk(b"tEXt", kw + b"\x00" + body)
    return make_chunk(b"zTXt", kw + b"\x00\x00" + zlib.compress(body))


class Base64TextChunk:
    """A tEXt or iTXt chunk whose text is the base64 of ``data``, produced piece by piece.

    Iterating yields the chunk's bytes (header, base64 of 768 KiB of ``data`` at a time, CRC),
    equal to ``make_text_chunk(keyword, encode_base64(data), kind)`` joined; a writer puts it in
    an :class:`~bunzai.host.types.OutputFile`'s parts so a 7 MB asset's 9.3 MB of base64 exists one
    megabyte at a time while the file is written, never whole.  Iterating again starts over.
    """

    __slots__ = ("_head", "data", "kind", "text_length")

    PIECE = 3 * 256 * 1024
    """Bytes of ``data`` encoded at a time: a multiple of 3, so the pieces need no padding."""

    def __init__(self, keyword: str, data: bytes | memoryview, kind: str = "tEXt") -> None:
        if kind not in ("tEXt", "iTXt"):
            raise MalformedInput(f"a base64 text chunk is tEXt or iTXt, not {kind!r}")
        kw = _keyword_bytes(keyword)
        self._head = kw + (b"\x00\x00\x00\x00\x00" if kind == "iTXt" else b"\x00")
        self.data = data
        self.kind = kind
        self.text_length = 4 * ((len(data) + 2) // 3)
        """Length of the base64 text, known without encoding it."""
        if len(self._head) + self.text_length > MAX_CHUNK_LENGTH:
            raise MalformedInput(f"PNG chunk payload of {len(self._head) + self.text_length:,} "
                                 "bytes exceeds 2**31-1")

    def __len__(self) -> int:
        """Length of the whole chunk (length field, type, payload and CRC)."""
        return 12 + len(self._head) + self.text_length

    def __iter__(self) -> Iterator[bytes]:
        ctype = self.kind.encode("latin-1")
        crc = zlib.crc32(self._head, zlib.crc32(ctype))
        yield _U32.pack(len(self._head) + self.text_length) + ctype + self._head
        view = memoryview(self.data)
        step = self.PIECE
        for start in range(0, len(view), step):
            piece = encode_base64(view[start:start + step])
            crc = zlib.crc32(piece, crc)
            yield piece
        yield _U32.pack(crc)

    def with_text(self, text: bytes) -> bytes:
        """The same chunk (type, keyword) holding ``text`` instead of the base64."""
        return make_chunk(self.kind, self._head + text)


def is_text_chunk_with_keyword(chunk: Chunk, keywords: set[str] | frozenset[str]) -> bool:
    """Whether ``chunk`` is a text chunk whose keyword is in ``keywords`` (case-insensitive).

    Reads only the keyword, so it is cheap enough for :func:`splice`'s ``remove`` callback.
    """
    if chunk.type not in TEXT_CHUNK_TYPES:
        return False
    head = chunk.data[:_MAX_KEYWORD + 1].tobytes()
    nul = head.find(b"\x00")
    if nul < 0:
        return False
    keyword = head[:nul].decode("latin-1").lower()
    return any(keyword == k.lower() for k in keywords)


def splice(
    png: PngFile,
    *,
    remove: Callable[[Chunk], bool] = lambda c: False,
    insert_before_iend: Sequence[bytes] = (),
    drop: Collection[int] | None = None,
) -> bytes:
    """Rebuild ``png`` keeping every chunk ``remove`` rejects, byte for byte.

    ``insert_before_iend`` (complete chunks, see :func:`make_chunk`) go right before IEND, or
    at the end followed by a new IEND when the source had none.  IEND itself is never removed;
    bytes after IEND (chunks or not) are kept after it.  The output is allocated once.
    ``drop`` (chunk offsets) removes the chunks that start there instead of asking ``remove``,
    without building a :class:`Chunk` for each chunk of the file.
    """
    if drop is not None and not insert_before_iend and png.iend_index is not None:
        return _without_chunks(png, drop)
    return b"".join(splice_parts(png, remove=remove, insert_before_iend=insert_before_iend,
                                 drop=drop))


def _without_chunks(png: PngFile, drop: Collection[int]) -> bytes:
    """:func:`splice` that only drops chunks, from a file that has IEND: the runs between the
    dropped chunks (IEND kept, and whatever follows it), found without visiting every chunk."""
    view, offsets, lengths = png._view, png._offsets, png._lengths
    parts: list[bytes | memoryview] = []
    start = 0  # the signature is the file's own (parse checked it)
    for offset in sorted(drop):
        i = bisect_left(offsets, offset)
        if i == len(offsets) or offsets[i] != offset or i == png.iend_index:
            continue  # not a chunk start, or IEND (never removed)
        if start < offset:
            parts.append(view[start:offset])
        start = offset + 12 + lengths[i]
    parts.append(view[start:])
    return b"".join(parts)


_P = TypeVar("_P", bound=Part)


def splice_parts(
    png: PngFile,
    *,
    remove: Callable[[Chunk], bool] = lambda c: False,
    insert_before_iend: Sequence[_P] = (),
    drop: Collection[int] | None = None,
) -> list[bytes | memoryview | _P]:
    """What :func:`splice` joins: views of the kept runs of ``png`` and the inserted parts
    (chunks, or producers such as :class:`Base64TextChunk`), for an output written in parts."""
    view = png._view
    parts: list[bytes | memoryview | _P] = [PNG_SIGNATURE]
    run_start: int | None = None  # coalesce consecutive kept chunks into one slice
    run_end = 0
    chunks = png.chunks if drop is None else None
    gone = drop if drop is not None else ()
    for i, (offset, length) in enumerate(zip(png._offsets, png._lengths, strict=True)):
        is_iend = i == png.iend_index
        if is_iend:
            if run_start is not None:
                parts.append(view[run_start:run_end])
                run_start = None
            parts.extend(insert_before_iend)
        if is_iend or (not remove(chunks[i]) if chunks is not None else offset not in gone):
            if run_start is None:
                run_start = offset
            elif run_end != offset:
                parts.append(view[run_start:run_end])
                run_start = offset
            run_end = offset + 12 + length
        elif run_start is not None:
            parts.append(view[run_start:run_end])
            run_start = None
    if run_start is not None:
        parts.append(view[run_start:run_end])
    if png.iend_index is None:
        parts.extend(insert_before_iend)
        parts.append(_IEND_CHUNK)
    elif png.trailing:
        parts.append(view[png.trailing_offset:])
    return parts


def minimal_png(
    width: int = 1, height: int = 1, rgba: tuple[int, int, int, int] = (0, 0, 0, 0)
) -> bytes:
    """A valid 8-bit RGBA PNG of one flat colour (the default avatar when a card has none)."""
    if not (1 <= width <= 65535 and 1 <= height <= 65535):
        raise MalformedInput(f"minimal_png size {width}x{height} out of range")
    if len(rgba) != 4 or any(not 0 <= v <= 255 for v in rgba):
        raise MalformedInput(f"minimal_png colour {rgba!r} is not four bytes")
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 6, 0, 0, 0)
    row = b"\x00" + bytes(rgba) * width
    idat = zlib.compress(row * height, 9)
    return b"".join((
        PNG_SIGNATURE, make_chunk(b"IHDR", ihdr), make_chunk(b"IDAT", idat), _IEND_CHUNK,
    ))

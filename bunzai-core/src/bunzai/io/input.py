"""What an adapter is handed: the bytes, the file name, and shared lazy views of the content.

Every expensive view (parsed JSON, the PNG chunk table, a safe zip listing, EXIF, decoded card
chunks) is computed at most once per input and shared by every adapter's ``detect``.  Views of
JSON are read-only (:mod:`bunzai.io.frozen`), so no adapter can change what the next one sees; a
reader that wants mutable data asks for a fresh copy.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, BinaryIO, TypeVar

from ..errors import BunzaiError, LimitExceeded, MalformedInput, MissingFile
from .frozen import freeze, thaw
from .limits import Limits, get_limits, setting_hint

if TYPE_CHECKING:
    from .containers.png import PngFile, TextChunk
    from .containers.zipsafe import SafeZip

T = TypeVar("T")
_UNSET: Any = object()
_TEXT_SUFFIXES = (".json", ".txt")


@dataclass(frozen=True, slots=True)
class ChunkPayload:
    """A PNG text chunk whose value was decoded as base64-or-raw JSON."""

    chunk: TextChunk
    value: Any
    """Frozen parsed JSON, or ``None`` when ``error`` is set."""
    error: str | None
    encoding: str
    """``base64`` or ``raw`` (JSON stored directly in the chunk)."""
    text: bytes | None = None
    """The JSON text the value was parsed from (the whole chunk text, base64 decoded), for a
    reader that keeps the layout; ``None`` when it is not at hand (ask the chunk)."""

    @property
    def keyword(self) -> str:
        return self.chunk.keyword

    def mutable(self) -> Any:
        """A deep mutable copy of the value, for a reader."""
        return thaw(self.value)


class AdapterInput:
    """One file's content as every adapter sees it.

    An input made from a large file (over ``Limits.stream_above``) is *file-backed*: detection
    sees the head of the file, readers can stream its lines with :meth:`lines`, and the whole
    content is read into memory only when something asks for :attr:`data` (a chat log of tens
    of megabytes is never held whole).
    """

    __slots__ = ("_container", "_data", "_filename", "_memo", "_path", "_stamp", "_suffix",
                 "limits")

    def __init__(self, data: bytes, filename: str | None = None, *,
                 limits: Limits | None = None) -> None:
        self._data: bytes | None = bytes(data)
        self._path: Path | None = None
        self._stamp: tuple[int, int] | None = None
        self.filename = filename
        self.limits = limits or get_limits()
        self._memo: dict[str, Any] = {}
        self._container: str | None = None
        if len(self._data) > self.limits.max_size:
            raise LimitExceeded("input", len(self._data), self.limits.max_size,
                                setting_hint("max_size"), path=filename)

    @classmethod
    def from_path(cls, path: str | os.PathLike[str], *,
                  limits: Limits | None = None) -> AdapterInput:
        """Read a file, checking the size limit before reading a byte.

        Files over ``limits.stream_above`` are not read here: the input keeps the path and
        reads what is asked for, when it is asked for.
        """
        p = Path(path)
        lim = limits or get_limits()
        name = str(path)
        try:
            if p.is_dir():
                raise MalformedInput("is a directory, not a file", path=name)
            st = p.stat()
            size = st.st_size
            if size > lim.max_size:
                raise LimitExceeded("input", size, lim.max_size, setting_hint("max_size"),
                                    path=name)
            if size > lim.stream_above:
                with p.open("rb") as fh:  # fail now, not in the middle of a conversion
                    fh.read(1)
                inp = cls(b"", filename=p.name, limits=lim)
                inp._data, inp._path, inp._stamp = None, p, (size, st.st_mtime_ns)
                return inp
            data = p.read_bytes()
        except FileNotFoundError:
            raise MissingFile("no such file", path=name) from None
        except PermissionError:
            raise MalformedInput("permission denied", path=name) from None
        except IsADirectoryError:
            raise MalformedInput("is a directory, not a file", path=name) from None
        except OSError as exc:
            raise MalformedInput(f"cannot read: {exc.strerror or exc}", path=name) from None
        return cls(data, filename=p.name, limits=lim)

    # -- the content ----------------------------------------------------------------------------

    @property
    def data(self) -> bytes:
        """The whole content (read from disk on first use for a file-backed input)."""
        if self._data is None:
            with self._open() as fh:
                self._data = fh.read()
        return self._data

    @property
    def size(self) -> int:
        """Length of the content in bytes, without reading it."""
        if self._data is not None:
            return len(self._data)
        assert self._stamp is not None
        return self._stamp[0]

    @property
    def streamed(self) -> bool:
        """True while the content lives on disk only (a large file nobody read whole yet)."""
        return self._data is None

    def head(self, n: int = 65536) -> bytes:
        """The first ``n`` bytes."""
        if self._data is not None:
            return self._data[:n]
        with self._open() as fh:
            return fh.read(n)

    def lines(self) -> Iterator[bytes]:
        """The content's lines, each with its ``\\n`` (or ``\\r\\n``) terminator, in order.

        Only ``\\n`` ends a line (as JSONL and SillyTavern say).  Each call starts again from
        the first line; a file-backed input reads one line at a time.
        """
        if self._data is not None:
            return _memory_lines(self._data)
        return self._file_lines()

    def _file_lines(self) -> Iterator[bytes]:
        with self._open() as fh:
            yield from fh

    def _open(self) -> BinaryIO:
        """The backing file, checked to be the one this input was made from."""
        assert self._path is not None and self._stamp is not None
        name = str(self._path)
        try:
            st = self._path.stat()
            if (st.st_size, st.st_mtime_ns) != self._stamp:
                raise MalformedInput("the file changed while bunzai was reading it", path=name)
            return self._path.open("rb")
        except FileNotFoundError:
            raise MalformedInput("the file disappeared while bunzai was reading it",
                                 path=name) from None
        except OSError as exc:
            raise MalformedInput(f"cannot read: {exc.strerror or exc}", path=name) from None

    # -- generic memo ---------------------------------------------------------------------------

    def memo(self, key: str, factory: Callable[[], T]) -> T:
        """Compute ``factory()`` once per input and share it (key it by your format id)."""
        try:
            return self._memo[key]  # type: ignore[no-any-return]
        except KeyError:
            value = self._memo[key] = factory()
            return value

    def _view(self, key: str, factory: Callable[[], Any]) -> Any:
        """Like memo, but a BunzaiError raised by the factory is remembered as the view's error."""
        hit = self._memo.get(key, _UNSET)
        if hit is _UNSET:
            try:
                hit = (factory(), None)
            except BunzaiError as exc:
                hit = (None, exc.message)
            self._memo[key] = hit
        return hit

    def container_error(self) -> str | None:
        """Why a container view that some detector consulted (JSON, PNG, zip) failed, if one did.

        Only consulted views count, so a detector that never looked at the zip cannot fail it.
        """
        for key in ("json", "png", "zip"):
            hit = self._memo.get(key)
            if isinstance(hit, tuple) and hit[1]:
                return str(hit[1])
        return None

    # -- basic views ---------------------------------------------------------------------------

    @property
    def filename(self) -> str | None:
        """The file's name as the user gave it (messages name the file by it), or None."""
        return self._filename

    @filename.setter
    def filename(self, value: str | None) -> None:
        self._filename = value
        self._suffix = None if value else ""

    @property
    def suffix(self) -> str:
        """The name's extension in lower case (``""`` without a name); detectors that weigh
        it ask several times per file, so it is worked out once per name."""
        found = self._suffix
        if found is None:
            found = self._suffix = os.path.splitext(self._filename or "")[1].lower()
        return found

    @property
    def text(self) -> str | None:
        """Decoded text, only for ``.json``/``.txt`` files that are valid UTF-8 (BOM accepted).

        Detection never depends on this: JSON detectors use :attr:`json`, which sniffs content.
        """
        def decode() -> str | None:
            if self.suffix not in _TEXT_SUFFIXES:
                return None
            try:
                return self.data.decode("utf-8-sig")
            except UnicodeDecodeError:
                return None
        return self.memo("text", decode)

    @property
    def container(self) -> str:
        """The physical wrapper: png, apng, jpeg, webp, gif, zip, jpeg+zip, json, text, binary."""
        # Every detector asks, several times: an attribute, not a memo lookup with a closure.
        found = self._container
        if found is None:
            found = self._container = self._sniff()
        return found

    def _sniff(self) -> str:
        json_start, sniff_container = _sniffers()
        if self._data is None and json_start(self.head()):
            found = "json"  # decided from the head: a large JSON file is not read to sniff it
        else:
            found = sniff_container(self.data)
        if found == "json" and self._is_jsonl():
            return "jsonl"
        return found

    # -- signs ----------------------------------------------------------------------------------

    @property
    def signs(self) -> frozenset[str]:
        """Cheap marks of what the file holds, which declared adapter signatures are matched
        against (computed once, from views detection builds anyway): the top-level keys of a
        JSON object (``{}`` for one without keys, ``[]`` for an array), the first line's keys
        of JSON Lines, a PNG's text-chunk keywords in lower case (``chara-ext-asset_`` for any
        asset chunk) and ``exif`` when it has EXIF, a zip's member names and their first
        folder (``Characters/``).
        """
        found: frozenset[str] | None = self._memo.get("signs")
        if found is None:
            found = self._memo["signs"] = frozenset(self._signs())
        return found

    def _signs(self) -> set[str]:
        container = self.container
        if container == "json":
            doc = self.json
            if isinstance(doc, Mapping):
                return set(doc) or {"{}"}  # JSON object keys are strings
            return {"[]"} if isinstance(doc, Sequence) and not isinstance(doc, str) else set()
        if container == "jsonl":
            head = self.jsonl_head
            first = head[0] if head else None
            return {str(k) for k in first} if isinstance(first, Mapping) else set()
        if container in ("png", "apng"):
            png = self.png
            if png is None:
                return set()
            prefix = _asset_prefix()  # only PNG signs need it
            out = set()
            for tc in png.text_chunks():
                kw = tc.keyword.lower()
                out.add(prefix if kw.startswith(prefix) else kw)
            if png.has_chunk("eXIf"):
                out.add("exif")
            if png.cut is not None and png.cut[3]:  # a cut text chunk: its reader names it
                out.add(png.cut[3].lower())
            return out
        if container in ("zip", "jpeg+zip"):
            z = self.zip
            if z is None:
                return set()
            out = set()
            for name in z.names():
                out.add(name)
                folder, sep, _ = name.partition("/")
                if sep:
                    out.add(folder + "/")
            return out
        return set()

    def matches(self, signature: Mapping[str, Sequence[str]]) -> bool:
        """Whether an adapter declaring ``signature`` could claim this file: its container is
        declared, and (when the declaration lists marks) one of them is among :attr:`signs`."""
        marks = signature.get(self.container)
        if marks is None:
            return False
        if not marks:
            return True
        signs = self.signs
        return any(m in signs for m in marks)

    # -- JSON Lines -----------------------------------------------------------------------------

    def _is_jsonl(self) -> bool:
        """One JSON object per line, more than one line: the first line parses on its own and
        something follows it (which no JSON document allows)."""
        first: bytes | None = None
        for line in self.lines():
            if first is None:
                first = line
                if not line.endswith(b"\n"):
                    return False  # a single line: an ordinary JSON document
                continue
            if line.strip():
                break
        else:
            return False
        assert first is not None
        text = first.rstrip(b"\r\n").lstrip(b"\xef\xbb\xbf").strip()
        if not text.startswith(b"{") or not text.endswith(b"}"):
            return False  # an object ends with its brace (a pretty-printed file's "{" line)
        from .jsonio import loads
        try:
            loads(text, limits=self.limits)
        except BunzaiError:
            return False
        return True

    @property
    def jsonl_head(self) -> tuple[Any, ...]:
        """The first (up to three) non-blank lines of a JSON Lines file, parsed and read-only.

        A line that is not JSON shows as ``None``; empty for any other container.  Chat
        detectors look here instead of parsing the file.
        """
        def build() -> tuple[Any, ...]:
            if self.container != "jsonl":
                return ()
            from .jsonio import loads
            out: list[Any] = []
            for line in self.lines():
                if not line.strip():
                    continue
                try:
                    out.append(loads(line.rstrip(b"\r\n"), limits=self.limits))
                except BunzaiError:
                    out.append(None)
                if len(out) == 3:
                    break
            return tuple(out)
        return tuple(freeze(v) for v in self.memo("jsonl_head", build))

    # -- JSON -----------------------------------------------------------------------------------

    def _parse_json(self) -> Any:
        from .jsonio import loads
        return loads(self.data, limits=self.limits)

    @property
    def json(self) -> Any:
        """The parsed top-level JSON value (read-only view), or ``None``."""
        if self.container != "json":
            return None
        frozen = self._memo.get("json_view", _UNSET)
        if frozen is _UNSET:  # one read-only view for every detector that asks
            value, _ = self._view("json", self._parse_json)
            frozen = self._memo["json_view"] = freeze(value)
        return frozen

    @property
    def json_error(self) -> str | None:
        """Why the content is not usable JSON, when it looked like JSON."""
        _, err = self._view("json", self._parse_json)
        return err if self.container == "json" else None

    def json_mutable(self) -> Any:
        """A mutable parse of the JSON for a reader; raises :class:`MalformedInput` if invalid.

        The shared parse is handed over (not copied) and the shared view re-parses on its next
        use, so a reader may change what it gets without anyone else seeing it.
        """
        if self.container != "json":
            raise MalformedInput("not JSON", path=self.filename)
        value, err = self._view("json", self._parse_json)
        if err is not None:
            raise MalformedInput(err, path=self.filename)
        self._memo.pop("json", None)
        self._memo.pop("json_view", None)
        return value

    # -- PNG ------------------------------------------------------------------------------------

    @property
    def png(self) -> PngFile | None:
        """The PNG chunk table (no pixels decoded), or ``None`` for non-PNG input."""
        hit = self._memo.get("png")
        if hit is not None:  # every PNG detector asks: the walk's answer, as remembered
            return hit[0]  # type: ignore[no-any-return]
        if self.container not in ("png", "apng"):
            return None
        parse = _png_parse()
        value, _ = self._view("png", lambda: parse(self.data, limits=self.limits))
        return value  # type: ignore[no-any-return]

    @property
    def png_error(self) -> str | None:
        if self.container not in ("png", "apng"):
            return None
        self.png  # noqa: B018 - populate the view
        return self._memo["png"][1]  # type: ignore[no-any-return]

    def png_json(self, keyword: str) -> list[ChunkPayload]:
        """Every text chunk named ``keyword`` (case-insensitive), decoded as JSON, in file order.

        Values may be base64 of UTF-8 JSON (the Tavern convention) or raw JSON text; a chunk
        that is neither is returned with ``error`` set, never hidden.
        """
        key = "png_json:" + keyword.lower()
        found: list[ChunkPayload] | None = self._memo.get(key)
        if found is None:  # decoded once per input, whoever asks first
            png = self.png
            if png is None:
                found = []
            else:
                seen: list[tuple[bytes, ChunkPayload]] = self._memo.setdefault(
                    "png_json_texts", [])
                found = [_decode_chunk(tc, self.limits, seen) for tc in png.find_text(keyword)]
            self._memo[key] = found
        return found

    # -- zip ------------------------------------------------------------------------------------

    @property
    def zip(self) -> SafeZip | None:
        """A safe listing of a zip (or a zip appended to a JPEG), or ``None``."""
        if self.container not in ("zip", "jpeg+zip"):
            return None
        from .containers.zipsafe import SafeZip
        value, _ = self._view("zip", lambda: SafeZip.open(self.data, limits=self.limits))
        return value  # type: ignore[no-any-return]

    @property
    def zip_error(self) -> str | None:
        """Why a zip-looking input was refused (hostile names, bomb, corrupt directory)."""
        if self.container not in ("zip", "jpeg+zip"):
            return None
        self.zip  # noqa: B018
        return self._memo["zip"][1]  # type: ignore[no-any-return]

    def zip_json(self, name: str) -> Any:
        """Entry ``name`` of the zip parsed as JSON (read-only view), or ``None``."""
        def build() -> Any:
            z = self.zip
            if z is None or not z.has(name):
                return None
            from .jsonio import loads
            return loads(z.read(name), limits=self.limits)
        value, _ = self._view("zip_json:" + name, build)
        return freeze(value)

    def zip_json_error(self, name: str) -> str | None:
        self.zip_json(name)
        return self._memo["zip_json:" + name][1]  # type: ignore[no-any-return]

    def zip_archive(self, what: str) -> SafeZip:
        """The zip, for a reader of a ``what`` (``"BYAF archive"``); raises
        :class:`MalformedInput` saying why there is none (refused as unsafe, or not a zip)."""
        z = self.zip
        if z is None:
            if self.zip_error:
                raise MalformedInput(f"refusing this {what}: {self.zip_error}")
            raise MalformedInput(f"not a {what}: not a zip file")
        return z

    def zip_object(self, name: str) -> dict[str, Any]:
        """Entry ``name`` of the zip as a JSON object, a mutable copy for a reader; raises
        :class:`MalformedInput` naming the entry and what is wrong with it."""
        value = self.zip_json(name)
        error = self.zip_json_error(name)
        if error is not None:
            raise MalformedInput(f"{name}: {error}")
        if not isinstance(value, Mapping):
            z = self.zip
            if z is None or not z.has(name):
                raise MalformedInput(f"{name} is missing from the archive")
            from .jsonio import type_name
            raise MalformedInput(f"{name} must hold a JSON object, not {type_name(value)}")
        out: dict[str, Any] = thaw(value)
        return out

    # -- EXIF -----------------------------------------------------------------------------------

    @property
    def exif_user_comment(self) -> tuple[bytes, bytes] | None:
        """(charset prefix, payload) of the EXIF UserComment in a PNG, JPEG or WebP, or None."""
        def build() -> tuple[bytes, bytes] | None:
            if self.container not in ("png", "apng", "jpeg", "webp", "jpeg+zip"):
                return None
            from .containers.exif import find_exif, png_exif, read_user_comment
            if self.container in ("png", "apng"):
                png = self.png  # the chunk table every PNG detector already shares
                tiff = png_exif(png) if png is not None else None
            else:
                tiff = find_exif(self.data, self.container)
            if tiff is None:
                return None
            return read_user_comment(tiff)
        value, _ = self._view("exif", build)
        return value  # type: ignore[no-any-return]


# What every input needs from modules this one does not import up front (it stays
# import-light): imported on first use, then asked for without the import machinery.

Source = str | os.PathLike[str] | bytes | bytearray | memoryview | AdapterInput
"""What every function that reads takes: a path, a file's bytes, or an input already made."""


def as_input(source: Source, filename: str | None = None) -> AdapterInput:
    """The one way a source becomes an :class:`AdapterInput`: a path is read (its name, as
    given, names the file in every message), bytes are wrapped with ``filename``, an input is
    itself."""
    if isinstance(source, AdapterInput):
        return source
    if isinstance(source, bytes | bytearray | memoryview):
        return AdapterInput(bytes(source), filename)
    inp = AdapterInput.from_path(source)
    inp.filename = os.fspath(source)
    return inp


@cache
def _sniffers() -> tuple[Callable[[bytes], bool], Callable[[bytes], str]]:
    from .containers.sniff import json_start, sniff_container
    return json_start, sniff_container


@cache
def _png_parse() -> Callable[..., PngFile]:
    from .containers.png import PngFile
    return PngFile.parse


@cache
def _asset_prefix() -> str:
    from .containers.pngcard import ASSET_PREFIX
    return ASSET_PREFIX


_Codecs = tuple[Callable[..., "bytes | None"], Callable[[bytes], bool], Callable[..., bytes],
                Callable[..., Any]]


@cache
def _codecs() -> _Codecs:
    """What decoding a PNG text chunk needs."""
    from .containers.base64util import decode_base64, looks_like_base64, strict_base64
    from .jsonio import loads
    return strict_base64, looks_like_base64, decode_base64, loads


def _memory_lines(data: bytes) -> Iterator[bytes]:
    start, n = 0, len(data)
    while start < n:
        end = data.find(b"\n", start)
        if end < 0:
            yield data[start:]
            return
        yield data[start:end + 1]
        start = end + 1


def _decode_chunk(tc: TextChunk, limits: Limits,
                  seen: list[tuple[bytes, ChunkPayload]]) -> ChunkPayload:
    """``tc`` decoded; ``seen``: the chunks of the same input decoded so far, with their text.

    A chunk whose text repeats one already decoded (a card written as both ``chara`` and
    ``ccv3``) shares its decoding: the value is read-only, and the same text gives the same
    value, error and encoding.
    """
    try:
        raw = tc.value_bytes(limits)
    except BunzaiError as exc:
        return ChunkPayload(tc, None, exc.message, "unknown")
    for text, done in seen:
        if text == raw:
            return ChunkPayload(tc, done.value, done.error, done.encoding, done.text)
    payload = _decode_text(tc, raw, limits)
    seen.append((raw, payload))
    return payload


def _decode_text(tc: TextChunk, raw: bytes, limits: Limits) -> ChunkPayload:
    strict_base64, looks_like_base64, decode_base64, loads = _codecs()
    stripped = raw.strip()
    if stripped[:1] in (b"{", b"["):
        try:
            return ChunkPayload(tc, freeze(loads(stripped, limits=limits)), None, "raw", raw)
        except BunzaiError as exc:
            return ChunkPayload(tc, None, exc.message, "raw")
    decoded = strict_base64(stripped, limits=limits)  # what writers produce: no guessing
    try:
        if decoded is None:
            if not looks_like_base64(stripped):
                return ChunkPayload(tc, None, "neither base64 nor JSON", "unknown")
            decoded = decode_base64(stripped, limits=limits)
        # The text is the decoding of the whole chunk text only when nothing was stripped
        # (the length limit applies to the chunk text as stored).
        return ChunkPayload(tc, freeze(loads(decoded, limits=limits)), None, "base64",
                            decoded if stripped is raw else None)
    except BunzaiError as exc:
        return ChunkPayload(tc, None, exc.message, "base64")

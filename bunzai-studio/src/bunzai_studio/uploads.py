"""Uploads: the size cap, enforced before and while reading, and multipart parsed in memory.

The body is read into memory (bounded by the cap) and the multipart form is parsed from there,
so an upload never touches the disk and there is no temporary file to clean up.  The cap is
checked against ``Content-Length`` before a byte is read, against the bytes actually received
while reading (a client may lie or stream without a length), and against the file part itself.
"""

from __future__ import annotations

import os
import re
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from pathlib import PurePosixPath, PureWindowsPath

from bunzai import LimitExceeded, UsageError

from . import DEFAULT_MAX_UPLOAD as DEFAULT_MAX_UPLOAD
from . import ENV_MAX_UPLOAD

MIB = 1024 * 1024
LIMIT_HINT = f"--max-upload or {ENV_MAX_UPLOAD}"
FORM_OVERHEAD = 64 * 1024
"""Room for boundaries, part headers and the small text fields that travel with the file."""
MAX_PARTS = 32
MAX_FIELD = 16 * 1024
"""Largest text field (``to``, ``from``, an option); anything bigger is not a real request."""

_UNITS = {"": 1, "b": 1, "k": 1000, "kb": 1000, "m": 1000**2, "mb": 1000**2, "g": 1000**3,
          "gb": 1000**3, "kib": 1024, "mib": MIB, "gib": 1024**3}
_SIZE = re.compile(r"\s*(\d+)\s*([a-z]*)\s*", re.IGNORECASE)


def parse_size(text: str) -> int:
    """``67108864``, ``64MiB``, ``64M`` (decimal) -> bytes; a usage error names the bad value."""
    m = _SIZE.fullmatch(text)
    unit = m.group(2).lower() if m else ""
    if m is None or unit not in _UNITS:
        raise UsageError(f"upload limit {text!r} is not a size (bytes, or with K, M, G, KiB, "
                         "MiB, GiB)")
    value = int(m.group(1)) * _UNITS[unit]
    if value < 1:
        raise UsageError("upload limit must be at least 1 byte")
    return value


def max_upload_from_env(environ: dict[str, str] | None = None) -> int:
    """The cap from ``BUNZAI_STUDIO_MAX_UPLOAD``, else the 64 MiB default."""
    raw = (os.environ if environ is None else environ).get(ENV_MAX_UPLOAD, "").strip()
    return parse_size(raw) if raw else DEFAULT_MAX_UPLOAD


def too_large(limit: int, size: int | None = None) -> LimitExceeded:
    """The one-line refusal, worded like core's other limits (it names the knob to turn)."""
    if size is None:
        return LimitExceeded("upload", limit + 1, limit, LIMIT_HINT,
                             message=f"upload is larger than the limit of {limit:,} bytes "
                                     f"(raise it with {LIMIT_HINT})")
    return LimitExceeded("upload", size, limit, LIMIT_HINT)


async def read_body(stream: AsyncIterator[bytes], content_length: str | None,
                    limit: int) -> bytes:
    """The request body, refused as soon as it can exceed ``limit`` plus form overhead."""
    ceiling = limit + FORM_OVERHEAD
    if content_length is not None:
        try:
            declared = int(content_length)
        except ValueError:
            raise UsageError("Content-Length is not a number") from None
        if declared > ceiling:
            raise too_large(limit, declared)
    buf = bytearray()
    async for chunk in stream:
        buf += chunk
        if len(buf) > ceiling:
            raise too_large(limit)
    return bytes(buf)


@dataclass(frozen=True, slots=True)
class FilePart:
    """An uploaded file: its base name as the browser sent it, and its bytes."""

    filename: str
    data: bytes


@dataclass
class Form:
    """A parsed multipart form: text fields and file parts by field name."""

    fields: dict[str, list[str]] = field(default_factory=dict)
    files: dict[str, list[FilePart]] = field(default_factory=dict)

    def value(self, name: str) -> str | None:
        """The field's value (blank counts as absent); a repeated field is a usage error."""
        values = self.fields.get(name, [])
        if len(values) > 1:
            raise UsageError(f"field {name!r} was sent {len(values)} times")
        return (values[0].strip() or None) if values else None

    def values(self, name: str) -> list[str]:
        return list(self.fields.get(name, []))

    def flag(self, name: str) -> bool:
        return (self.value(name) or "").lower() in ("1", "true", "yes", "on")

    def file(self, name: str = "file") -> FilePart:
        """The one file in field ``name``."""
        parts = self.files.get(name, [])
        if not parts:
            raise UsageError(f"no file uploaded: send it as multipart/form-data in the field "
                             f"{name!r}")
        if len(parts) > 1:
            raise UsageError(f"{len(parts)} files in the field {name!r}; send one per request")
        return parts[0]


def clean_filename(raw: str) -> str:
    """The base name only (browsers may send a path), without control characters, bounded."""
    name = PureWindowsPath(PurePosixPath(raw).name).name
    name = re.sub(r"[\x00-\x1f\x7f]", "", name).strip()
    return name[:200] or "upload"


class _FormBuilder:
    """python-multipart callbacks that collect parts into a :class:`Form`, enforcing limits."""

    def __init__(self, limit: int) -> None:
        self.limit = limit
        self.form = Form()
        self.ended = False
        self.count = 0
        self.headers: dict[str, str] = {}
        self.header_field = bytearray()
        self.header_value = bytearray()
        self.data = bytearray()
        self.name = ""
        self.filename: str | None = None

    def on_part_begin(self) -> None:
        self.count += 1
        if self.count > MAX_PARTS:
            raise UsageError(f"more than {MAX_PARTS} form fields")
        self.headers.clear()
        self.data.clear()
        self.name, self.filename = "", None

    def on_header_field(self, chunk: bytes, start: int, end: int) -> None:
        self.header_field.extend(chunk[start:end])

    def on_header_value(self, chunk: bytes, start: int, end: int) -> None:
        self.header_value.extend(chunk[start:end])

    def on_header_end(self) -> None:
        key = self.header_field.decode("latin-1").strip().lower()
        self.headers[key] = self.header_value.decode("latin-1")
        self.header_field.clear()
        self.header_value.clear()

    def on_headers_finished(self) -> None:
        from python_multipart.multipart import parse_options_header

        disp, opts = parse_options_header(self.headers.get("content-disposition", ""))
        if disp != b"form-data" or b"name" not in opts:
            raise UsageError("a form part has no field name")
        # Header bytes arrive as latin-1; browsers send names as raw UTF-8.
        self.name = opts[b"name"].decode("utf-8", "replace")
        raw = opts.get(b"filename")
        self.filename = None if raw is None else raw.decode("utf-8", "replace")

    def on_part_data(self, chunk: bytes, start: int, end: int) -> None:
        self.data.extend(chunk[start:end])
        if self.filename is None and len(self.data) > MAX_FIELD:
            raise UsageError(f"form field {self.name!r} is over {MAX_FIELD:,} bytes")

    def on_part_end(self) -> None:
        if self.filename is None:
            self.form.fields.setdefault(self.name, []).append(
                self.data.decode("utf-8", "replace"))
            return
        # The whole body is already bounded, so the part's exact size can be reported.
        name = clean_filename(self.filename)
        if len(self.data) > self.limit:
            raise too_large(self.limit, len(self.data)).with_path(name)
        self.form.files.setdefault(self.name, []).append(FilePart(name, bytes(self.data)))

    def on_end(self) -> None:
        self.ended = True


def parse_form(body: bytes, content_type: str | None, *, limit: int) -> Form:
    """Parse a ``multipart/form-data`` body held in memory; no part goes to disk."""
    from python_multipart.exceptions import MultipartParseError
    from python_multipart.multipart import MultipartParser, parse_options_header

    ctype, params = parse_options_header(content_type or "")
    if ctype != b"multipart/form-data":
        raise UsageError("send the file as multipart/form-data in the field 'file'")
    boundary = params.get(b"boundary")
    if not boundary:
        raise UsageError("multipart/form-data without a boundary")
    b = _FormBuilder(limit)
    callbacks = {name: getattr(b, name) for name in (
        "on_part_begin", "on_header_field", "on_header_value", "on_header_end",
        "on_headers_finished", "on_part_data", "on_part_end", "on_end")}
    parser = MultipartParser(boundary, callbacks)  # type: ignore[arg-type]
    try:
        parser.write(body)
        parser.finalize()
    except MultipartParseError as exc:
        raise UsageError(f"malformed multipart body: {exc}") from None
    if not b.ended:
        raise UsageError("multipart body ended before its closing boundary")
    return b.form

"""Writing results safely: atomic, never clobbering, with names that are safe everywhere."""

from __future__ import annotations

import contextlib
import os
import re
import tempfile
import unicodedata
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from .errors import ConversionRefused, MalformedInput, OutputError

if TYPE_CHECKING:
    from .types import OutputFile

_WINDOWS_RESERVED = {"con", "prn", "aux", "nul", "conin$", "conout$",
                     *(f"{dev}{i}" for dev in ("com", "lpt") for i in (*"123456789", *"¹²³"))}
# Forbidden on Windows (<>:"/\\|?* and controls), plus C1 controls and bidirectional overrides,
# which are legal but let a name display as something else ("evil\u202egnp.exe").
_UNSAFE = re.compile('[\x00-\x1f\x7f-\x9f<>:"/\\\\|?*\u202a-\u202e\u2066-\u2069]')


def safe_name(name: str, *, default: str = "untitled", max_bytes: int = 120) -> str:
    """A file-name stem that is valid on Windows, macOS and Linux (NFC, no reserved names).

    At most ``max_bytes`` of UTF-8 (cut on a character boundary), so stem, a dedup counter and
    a suffix stay under every file system's 255-byte limit; never empty, never ending in a dot
    or space (Windows drops those), never a device name such as ``CON`` or ``com1.txt``.
    """
    s = unicodedata.normalize("NFC", name)
    s = re.sub(r"\s+", " ", _UNSAFE.sub("_", s))
    encoded = s.encode("utf-8")
    if len(encoded) > max_bytes:
        s = encoded[:max_bytes].decode("utf-8", "ignore")
    s = s.strip().rstrip(". ")
    if not s or s.strip("._ ") == "":
        s = default
    if s.split(".")[0].rstrip(" ").casefold() in _WINDOWS_RESERVED:
        s = "_" + s
    return s


def output_names(stem: str, files: Sequence[OutputFile]) -> list[str]:
    """File names for the files of one conversion, shared by the CLI and the studio.

    One file is ``stem + suffix``.  Several (a persona backup fanned out into one-persona files)
    are ``stem-<name> + suffix`` with each entity's name made safe and deduplicated
    case-insensitively, so no two outputs collide on a case-insensitive file system.
    """
    if len(files) == 1:
        return [stem + files[0].suffix]
    used: set[str] = set()
    names: list[str] = []
    for i, f in enumerate(files, 1):
        label = safe_name(f.name or str(i))
        cand, n = label, 2
        while cand.casefold() in used:
            cand, n = f"{label}-{n}", n + 1
        used.add(cand.casefold())
        names.append(f"{stem}-{cand}{f.suffix}")
    return names


def write_atomic(path: Path, data: bytes, *, force: bool = False, durable: bool = True) -> None:
    """Write via a temporary file in the target folder, flushed to disk, then rename.

    Without ``force`` an existing file is never replaced, even if it appears meanwhile (the final
    step is a hard link, which fails if the name exists).  An interrupted write leaves at most a
    stray hidden temporary file, never a partial output; a failed write (disk full, permission
    denied) removes the temporary file, leaves any existing output as it was, and raises
    :class:`~bunzai.errors.OutputError`.

    ``durable=False`` skips the per-file ``fsync`` (still atomic: a crashed process leaves no
    partial output, but a power loss may).  Batches use it and flush once at the end, as one
    fsync per file cost 3-10 ms and serialized parallel workers on the file system journal.
    """
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise MalformedInput(f"output folder {folder} does not exist", path=str(path))
    if path.exists() and not force:
        raise ConversionRefused("output exists; pass --force to overwrite", path=str(path))
    existed = path.exists()
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    except OSError as exc:
        raise _write_failed(path, exc, existed) from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
            if durable:
                os.fsync(fh.fileno())
        if force:
            os.replace(tmp, path)
        else:
            try:
                os.link(tmp, path)
            except FileExistsError:
                raise ConversionRefused("output exists; pass --force to overwrite",
                                        path=str(path)) from None
            except OSError:
                if path.exists():
                    raise ConversionRefused("output exists; pass --force to overwrite",
                                            path=str(path)) from None
                os.replace(tmp, path)  # a file system without hard links
    except OSError as exc:
        raise _write_failed(path, exc, existed) from None
    finally:
        with contextlib.suppress(OSError):
            if os.path.exists(tmp):
                os.unlink(tmp)


def _write_failed(path: Path, exc: OSError, existed: bool) -> OutputError:
    reason = exc.strerror or str(exc) or type(exc).__name__
    kept = "the existing file is unchanged" if existed else "nothing was written"
    return OutputError(f"cannot write the output: {reason} ({kept})", path=str(path))

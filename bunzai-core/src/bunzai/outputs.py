"""Writing results safely: atomic, never clobbering, with names that are safe everywhere."""

from __future__ import annotations

import os
import re
import tempfile
import unicodedata
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from .errors import ConversionRefused, MalformedInput

if TYPE_CHECKING:
    from .types import OutputFile

_WINDOWS_RESERVED = {"con", "prn", "aux", "nul", *(f"com{i}" for i in range(1, 10)),
                     *(f"lpt{i}" for i in range(1, 10))}
_UNSAFE = re.compile(r'[\x00-\x1f\x7f<>:"/\\|?*]')


def safe_name(name: str, *, default: str = "untitled", max_bytes: int = 120) -> str:
    """A file-name stem that is valid on Windows, macOS and Linux (NFC, no reserved names)."""
    s = unicodedata.normalize("NFC", name)
    s = _UNSAFE.sub("_", s).strip().rstrip(". ")
    s = re.sub(r"\s+", " ", s)
    if not s or s.strip("._ ") == "":
        s = default
    if s.split(".")[0].lower() in _WINDOWS_RESERVED:
        s = "_" + s
    encoded = s.encode("utf-8")
    if len(encoded) > max_bytes:
        s = encoded[:max_bytes].decode("utf-8", "ignore").rstrip(". ")
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
        while cand.lower() in used:
            cand, n = f"{label}-{n}", n + 1
        used.add(cand.lower())
        names.append(f"{stem}-{cand}{f.suffix}")
    return names


def write_atomic(path: Path, data: bytes, *, force: bool = False) -> None:
    """Write via a temporary file in the target folder, then rename.

    Without ``force`` an existing file is never replaced, even if it appears meanwhile (the final
    step is a hard link, which fails if the name exists).  An interrupted write leaves at most a
    stray temporary file, never a partial output.
    """
    folder = path.parent if str(path.parent) else Path(".")
    if not folder.is_dir():
        raise MalformedInput(f"output folder {folder} does not exist", path=str(path))
    if path.exists() and not force:
        raise ConversionRefused("output exists; pass --force to overwrite", path=str(path))
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(data)
            fh.flush()
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
                os.replace(tmp, path)
    finally:
        if os.path.exists(tmp):
            os.unlink(tmp)

"""The files behind a command's arguments: folders walked, globs matched, each file once.

Every command that takes files reads them through :func:`expand_sources`; batches also use
:class:`RealPaths` to tell when two names are one file.  Kept apart from
:mod:`bunzai.engine.batch` so that reading commands import no process pool.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path

from ..errors import UsageError


def expand_sources(items: Iterable[str]) -> list[Path]:
    """Files named directly, every file under a directory (recursively), and glob matches."""
    out: list[Path] = []
    seen: set[str] = set()
    real = RealPaths()
    for item in items:
        p = Path(item)
        if p.is_dir():
            found = sorted(q for q in p.rglob("*") if q.is_file() and not q.name.startswith("."))
        elif any(ch in item for ch in "*?["):
            import glob
            found = sorted(Path(m) for m in glob.glob(item, recursive=True) if Path(m).is_file())
            if not found:
                raise UsageError(f"no file matches {item!r}")
        else:
            found = [p]
        for q in found:
            key = real(q)
            if key not in seen:
                seen.add(key)
                out.append(q)
    return out


class RealPaths:
    """``os.path.realpath`` for many files in a few folders, as a batch plans them.

    Each folder is resolved once; a file adds one ``lstat`` to see whether its own name is a
    link (only then is it resolved whole), so a folder of thousands of files is not walked from
    the root once per file before a worker starts.
    """

    def __init__(self) -> None:
        self._folders: dict[str, str] = {}

    def __call__(self, path: Path) -> str:
        name = path.name
        if name in ("", ".", ".."):
            return os.path.realpath(path)
        parent = os.fspath(path.parent)
        folder = self._folders.get(parent)
        if folder is None:
            folder = self._folders[parent] = os.path.realpath(parent)
        full = os.path.join(folder, name)
        return os.path.realpath(full) if os.path.islink(full) else full

    def key(self, path: Path) -> str:
        """A path as a case-insensitive file system may see it (so ``A.png`` is ``a.png``)."""
        return self(path).casefold()

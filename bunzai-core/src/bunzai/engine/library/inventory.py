"""``bunzai library inspect``: a library scanned, then every card and every preset or template
read (in the worker pool) for what :mod:`.scan` cannot see from file names: a card's name and
world, a file that does not read as what its folder says it is."""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from .model import Library, Problem
from .presets import BY_KEY, type_of

if TYPE_CHECKING:
    from ...host.registry import Registry


@dataclass(eq=False)
class LibraryInspection:
    """``bunzai library inspect``: the library as scanned, every card and preset read."""

    library: Library
    summary: dict[str, Any] = field(default_factory=dict)

    @property
    def problems(self) -> list[Problem]:
        return self.library.problems

    @property
    def exit_code(self) -> int:
        """1 when the library has problems (as ``validate`` exits for an invalid file)."""
        return 1 if self.library.problems else 0

    def to_dict(self) -> dict[str, Any]:
        lib = self.library
        out: dict[str, Any] = {"library": str(lib.root), "layout": lib.layout,
                               "counts": lib.counts()}
        if lib.layout == "exports":
            out["files"] = [e.to_dict() for e in lib.exports]
        else:
            unreadable = {p.path for p in lib.problems if p.kind == "unreadable"}
            out.update({
                "characters": [c.to_dict() for c in lib.characters],
                "worlds": [w.to_dict() for w in lib.worlds],
                "groups": [g.to_dict() for g in lib.groups],
                "personas": [p.to_dict() for p in lib.personas],
                "regex": lib.regex, "quick_replies": lib.quick_replies,
                "presets": {k: {"folder": BY_KEY[k].folder, "label": BY_KEY[k].label,
                                "count": len(files),
                                "unreadable": [f for f in files if f in unreadable]}
                            for k, files in lib.presets.items()},
                "themes": lib.themes, "other": {k: len(v) for k, v in lib.other.items()},
                "orphan_chats": lib.orphan_chats, "unknown": lib.unknown,
                "secrets": lib.secrets})
        out["problems"] = [p.to_dict() for p in lib.problems]
        return out


def inspect_library(root: str | os.PathLike[str], *, jobs: int = 1,
                    registry: Registry | None = None) -> LibraryInspection:
    """What the library at ``root`` holds and its problems; every card and preset (or, in a
    folder of exports, every file) is read, ``jobs`` processes at a time."""
    from ...host.registry import get_registry
    from .scan import check_root, is_sillytavern

    reg = registry or get_registry()
    path = Path(root)
    check_root(path)
    if is_sillytavern(path):
        lib = _read_files(path, jobs, reg)
    else:
        from .exports import scan_exports
        lib = scan_exports(path, jobs=jobs, registry=reg)
    return LibraryInspection(lib)


def _read_files(root: Path, jobs: int, reg: Registry) -> Library:
    """The SillyTavern library at ``root``, each card and preset read once."""
    from .pool import run_pool
    from .scan import attach_sprites, link_card_world, scan_sillytavern

    lib = scan_sillytavern(root)
    by_file = {c.file: c for c in lib.characters}
    presets = [f for files in lib.presets.values() for f in files]
    sizes = {f: c.size for f, c in by_file.items()}

    def size(rel: str) -> int:
        return sizes[rel] if rel in sizes else (root / rel).stat().st_size

    for file, name, world, error, secrets in run_pool(_facts, [*by_file, *presets], str(root),
                                                      jobs, reg, size=size):
        entry = by_file.get(file)
        if entry is not None:
            entry.name, entry.world, entry.error = name, world, error
        elif error:
            lib.problems.append(Problem("unreadable", file, error))
        lib.secrets.extend(f"{file}: {path}" for path in secrets)
    names: dict[str, list[str]] = {}
    for c in lib.characters:
        if c.error:
            lib.problems.append(Problem("unreadable", c.file, c.error))
            continue
        link_card_world(lib, c)
        if not c.same_as and c.name:
            names.setdefault(c.name.casefold(), []).append(c.file)
    for files in names.values():
        if len(files) > 1:
            lib.problems.append(Problem("duplicate", files[0], "the same character name as "
                                        + ", ".join(files[1:]) + " (different cards: each is "
                                        "written, under its own file name)"))
    attach_sprites(lib)
    return lib


Facts = tuple[str, str | None, str | None, str | None, list[str]]
"""(file, name, linked world, error, secrets) of a file read."""


def _facts(file: str, root: str, reg: Registry) -> Facts:
    """What ``inspect`` shows of a card, or of a preset read as its folder's format
    (SillyTavern knows a preset's type by its folder alone), with the secrets it holds (a
    chat-completion preset keeps the connection's proxy password)."""
    from ..reading import read_file
    from .secrets import secret_keys

    kind = type_of(file)
    found = read_file(Path(root) / file, from_format=kind.format if kind else None,
                      registry=reg)
    if found.error is not None:
        return file, None, None, found.error.message, []
    if kind is not None:
        secrets = [path for e in found.entities for data in e.app_data.values()
                   for path in secret_keys(data)]
        named = [getattr(e, "name", None) for e in found.entities]
        return file, named[0] if named else None, None, None, secrets
    if found.kind != "character":
        return file, None, None, f"not a character card (read as {found.format})", []
    ch = found.entities[0]
    world = ch.extensions.get("world") if isinstance(ch.extensions, dict) else None
    return file, ch.name, world if isinstance(world, str) and world else None, None, []

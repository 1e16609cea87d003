"""Whole libraries: a user's SillyTavern data folder, or a folder of any apps' exports, moved
to another app in one go, with the links between its files kept.

* :func:`inspect_library`: what a library holds and what is wrong with it;
* :func:`convert_library`: the move, planned (every output named, nothing written), then done
  by iterating :meth:`LibraryConversion.run`, which writes the manifest and the report.

Modules by role: :mod:`.scan` (SillyTavern's layout) and :mod:`.exports` (a folder of exports)
make the library model (:mod:`.model`); :mod:`.plan` and :mod:`.targets` decide where each item
goes; :mod:`.work` moves one item; :mod:`.run` runs them with the manifest and resume;
:mod:`.report` is the report.
"""

from __future__ import annotations

import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...errors import UsageError
from .items import Item, Task
from .model import Library, Problem
from .run import Move as LibraryConversion
from .targets import TARGETS, target

if TYPE_CHECKING:
    from ...host.registry import Registry


@dataclass(eq=False)
class LibraryInspection:
    """``bunzai library inspect``: the library as scanned, every card read."""

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
            out.update({
                "characters": [c.to_dict() for c in lib.characters],
                "worlds": [w.to_dict() for w in lib.worlds],
                "groups": [g.to_dict() for g in lib.groups],
                "personas": [p.to_dict() for p in lib.personas],
                "regex": lib.regex, "quick_replies": lib.quick_replies,
                "presets": {k: len(v) for k, v in lib.presets.items()},
                "themes": lib.themes, "other": {k: len(v) for k, v in lib.other.items()},
                "orphan_chats": lib.orphan_chats, "unknown": lib.unknown,
                "secrets": lib.secrets})
        out["problems"] = [p.to_dict() for p in lib.problems]
        return out


def inspect_library(root: str | os.PathLike[str], *, jobs: int = 1,
                    registry: Registry | None = None) -> LibraryInspection:
    """What the library at ``root`` holds and its problems; every card (or, in a folder of
    exports, every file) is read, ``jobs`` processes at a time."""
    from ...host.registry import get_registry
    from .scan import check_root, is_sillytavern

    reg = registry or get_registry()
    path = Path(root)
    check_root(path)
    if is_sillytavern(path):
        lib = _read_cards(path, jobs, reg)
    else:
        from .exports import scan_exports
        lib = scan_exports(path, jobs=jobs, registry=reg)
    return LibraryInspection(lib)


def _read_cards(root: Path, jobs: int, reg: Registry) -> Library:
    from .pool import run_pool
    from .scan import attach_sprites, link_card_world, scan_sillytavern

    lib = scan_sillytavern(root)
    by_file = {c.file: c for c in lib.characters}
    for file, name, world, error in run_pool(_card_facts, list(by_file), str(root), jobs, reg,
                                             size=lambda f: by_file[f].size):
        entry = by_file[file]
        entry.name, entry.world, entry.error = name, world, error
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


def _card_facts(file: str, root: str, reg: Registry) -> tuple[str, str | None, str | None,
                                                               str | None]:
    from ..reading import read_file

    found = read_file(Path(root) / file, registry=reg)
    if found.error is not None:
        return file, None, None, found.error.message
    if found.kind != "character":
        return file, None, None, f"not a character card (read as {found.format})"
    ch = found.entities[0]
    world = ch.extensions.get("world") if isinstance(ch.extensions, dict) else None
    return file, ch.name, world if isinstance(world, str) and world else None, None


def convert_library(root: str | os.PathLike[str], to: str, *,
                    out_dir: str | os.PathLike[str], jobs: int = 1, force: bool = False,
                    options: dict[str, Any] | None = None,
                    registry: Registry | None = None) -> LibraryConversion:
    """Plan the move of the library at ``root`` into ``out_dir`` as the files app ``to``
    imports (``risu``, ``backyard``, ``agnai``, ``voxta``, or ``sillytavern`` from a folder of
    exports).  Nothing is written until :meth:`LibraryConversion.run` is iterated.

    Raises :class:`~bunzai.errors.UsageError` for an unknown target, ``jobs`` below 1, an
    output folder inside the library (or holding it), or a library folder that is none."""
    from ...host.registry import get_registry
    from ...io.outputs import make_folder
    from .run import check_out_dir
    from .scan import check_root, is_sillytavern

    reg = registry or get_registry()
    spec = target(to)
    if jobs < 1:
        raise UsageError("--jobs must be at least 1")
    path, out = Path(root), Path(out_dir)
    check_root(path)
    check_out_dir(path, out)
    if is_sillytavern(path):
        if spec.id == "sillytavern":
            raise UsageError("is a SillyTavern data folder already: --to sillytavern builds "
                             "one from a folder of other apps' exports", path=str(path))
        make_folder(out)
        return _plan_sillytavern(path, spec, out, jobs, force, options or {}, reg)
    if spec.id != "sillytavern":
        raise UsageError("is not a SillyTavern data folder (no characters/ beside "
                         "settings.json, chats/ or worlds/); a folder of exports moves "
                         "--to sillytavern", path=str(path))
    from .plan import plan_exports

    make_folder(out)
    return plan_exports(path, out, jobs, force, options or {}, reg)


def _plan_sillytavern(root: Path, spec: Any, out: Path, jobs: int, force: bool,
                      options: dict[str, Any], reg: Registry) -> LibraryConversion:
    from .plan import Names, plan, world_tasks
    from .scan import scan_sillytavern
    from .steps import Context

    lib = scan_sillytavern(root)
    names = Names()
    tasks, dropped = plan(lib, spec, names)
    ctx = Context(str(root), str(out), spec.id, tuple(sorted(options.items())),
                  tuple((w.name, w.file) for w in lib.worlds),
                  tuple((c.stem, tuple(c.extra_books)) for c in lib.characters if c.extra_books),
                  frozenset(w.name for w in lib.worlds if w.active),
                  tuple((k, tuple(v)) for k, v in lib.sprite_folders.items() if v),
                  force=force)
    return LibraryConversion(lib, spec, out, ctx, tasks, dropped, jobs, reg,
                             later=lambda carried: world_tasks(lib, spec, carried, names))


__all__ = ["TARGETS", "Item", "Library", "LibraryConversion", "LibraryInspection", "Problem",
           "Task", "convert_library", "inspect_library"]

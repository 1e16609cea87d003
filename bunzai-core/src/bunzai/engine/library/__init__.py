"""Whole libraries: a user's SillyTavern data folder, or a folder of any apps' exports, moved
to another app in one go, with the links between its files kept.

* :func:`inspect_library`: what a library holds and what is wrong with it;
* :func:`convert_library`: the move, planned (every output named, nothing written), then done
  by iterating :meth:`LibraryConversion.run`, which writes the manifest and the report.

Modules by role: :mod:`.scan` (SillyTavern's layout) and :mod:`.exports` (a folder of exports)
make the library model (:mod:`.model`), :mod:`.presets` knows SillyTavern's preset folders, and
:mod:`.inventory` reads what ``inspect`` shows; :mod:`.plan` and :mod:`.targets` decide where
each item goes; :mod:`.work` (or :mod:`.to_sillytavern`) moves one item with the steps every
item takes (:mod:`.steps`); :mod:`.run` runs them with the manifest and resume; :mod:`.report`
is the report.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...errors import UsageError
from .inventory import LibraryInspection, inspect_library
from .items import Item, Task
from .model import Library, Problem
from .run import LibraryConversion
from .targets import TARGETS, target

if TYPE_CHECKING:
    from ...host.registry import Registry


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

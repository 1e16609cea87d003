"""Planning a move of a SillyTavern library: one task per item, where its files go, and every
thing the target has no place for, named with the reason.

Output layout (every target but ``sillytavern``)::

    characters/<avatar>/<avatar>.<card>         the card, its linked world inside
    characters/<avatar>/chats/<chat>.<chat>     its chats (or inside the card: Backyard)
    characters/<avatar>/lorebooks/<book>.<ext>  its extra books (where the app links several)
    lorebooks/<world>.<ext>                     worlds no card carries
    personas/<name>.<ext>, regex/regex.<ext>    personas, global regex scripts
    groups/<group>...                           a group (one package, or its chats)

Folders are named after the card's file (unique in SillyTavern's ``characters/``), so they are
known before any card is read.  A world goes with each card that links it; the worlds left
over are planned once the cards have been read (:func:`world_tasks`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...io.outputs import safe_name
from .items import Item, ItemKind, Task
from .model import ExportEntry, Library
from .presets import BY_KEY
from .scan import OTHER_FOLDERS
from .steps import unique
from .targets import NOT_CARRIED, Target

if TYPE_CHECKING:
    from ...host.registry import Registry
    from .run import LibraryConversion


class Names:
    """Output names unique case-insensitively within a folder of the output."""

    def __init__(self) -> None:
        self.used: dict[str, set[str]] = {}

    def __call__(self, folder: str, name: str) -> str:
        return f"{folder}/{unique(safe_name(name), self.used.setdefault(folder, set()))}"


class Planned:
    """The tasks of a move, and the items the target has no place for (dropped, with the
    reason)."""

    def __init__(self) -> None:
        self.tasks: list[Task] = []
        self.dropped: list[Item] = []

    def add(self, task: Task, carried: bool = True, why: str = "") -> None:
        """``task`` when the target has a place for it, else its item dropped with ``why``."""
        if carried:
            self.tasks.append(task)
        else:
            self.dropped.append(_drop(task.id, task.kind, task.name, why, task.sources))


def plan(lib: Library, spec: Target, names: Names) -> tuple[list[Task], list[Item]]:
    """The tasks of a move (characters, groups, chats without a card, personas, regex,
    presets) and the items the target has no place for (dropped, with the reason)."""
    out = Planned()
    sizes = _sizes(lib)

    def size(files: Iterable[str]) -> int:
        return sum(sizes.get(f, 0) for f in files)

    _characters(lib, names, out, size)
    for g in lib.groups:
        sources = (g.file, *g.chats)
        if spec.groups:
            members = tuple(f"characters/{m}" for m in g.members if m not in g.missing_members)
            out.add(Task(f"group:{g.file}", "group", g.name, sources, names("groups", g.name),
                         size((*members, *g.chats)), (("members", members),)))
        else:
            out.add(Task(f"group:{g.file}", "chats" if spec.chat else "group", g.name, sources,
                         names("groups", g.name) + "/chats", size(g.chats),
                         (("why", spec.why_no_group),)), spec.chat is not None,
                    spec.why_no_group)
    for folder, chats in lib.orphan_chats.items():
        why = (f"their character (characters/{folder}.png) is missing from the library: "
               "import them into it by hand")
        out.add(Task(f"chats:chats/{folder}", "chats", folder, tuple(chats),
                     names("chats-without-character", folder), size(chats), (("why", why),)),
                spec.chat is not None, f"{spec.why_no_chat}, and {why}")
    if lib.orphan_group_chats:
        why = "group chats no group lists"
        out.add(Task("chats:group chats", "chats", "group chats", tuple(lib.orphan_group_chats),
                     names("groups", "without a group"), size(lib.orphan_group_chats),
                     (("why", why),)), spec.chat is not None, spec.why_no_group or why)
    if lib.personas and lib.settings:
        out.add(Task("personas", "personas", f"{len(lib.personas)} persona(s)",
                     (lib.settings,), "personas"), spec.persona is not None, spec.why_no_persona)
    if lib.regex and lib.settings:
        out.add(Task("regex", "regex", f"{lib.regex} global regex script(s)", (lib.settings,),
                     "regex/regex"), spec.regex is not None, spec.why_no_regex)
    _presets(lib, spec, names, out)
    out.dropped.extend(not_carried(lib, spec))
    return out.tasks, out.dropped


def _characters(lib: Library, names: Names, out: Planned,
                size: Callable[[Iterable[str]], int]) -> None:
    """One task per card; a card with the very same bytes as an earlier one brings it its
    chats instead."""
    twins: set[str] = set()
    for c in lib.characters:
        if c.file not in twins:
            twins.update(c.same_as)  # the later cards of the same bytes
    for c in lib.characters:
        if c.file in twins:
            continue  # the same bytes as an earlier card: its chats go with that one
        chats = [*c.chats, *(f for other in lib.characters if other.file in c.same_as
                             for f in other.chats)]
        out.add(Task(f"character:{c.file}", "character", c.stem, (c.file, *chats),
                     names("characters", c.stem), size((c.file, *chats)),
                     (("stem", c.stem), ("same_as", tuple(c.same_as)),
                      ("sprites", tuple(c.sprites)))))


def _presets(lib: Library, spec: Target, names: Names, out: Planned) -> None:
    """Each preset or template of a type the app imports, as one task (``presets/<file
    name>``: SillyTavern names a preset by its file); the types it has no place for, one
    dropped item each, with the reason."""
    for key, files in lib.presets.items():
        t = BY_KEY[key]
        if spec.preset_format(key) is None:
            out.dropped.append(_drop(f"presets:{t.folder}", "presets",
                                     f"{len(files)} {t.label} ({t.folder}/)",
                                     spec.why_no_preset(t.group), files))
            continue
        for rel in files:
            stem = Path(rel).stem
            out.add(Task(f"preset:{rel}", "presets", stem, (rel,), names("presets", stem),
                         _size(lib.root / rel), (("type", key),)))


def world_tasks(lib: Library, spec: Target, carried: Iterable[str], names: Names
                ) -> tuple[list[Task], list[Item]]:
    """The worlds no card carried, each as a standalone book (or dropped, with the reason)."""
    done = set(carried)
    out = Planned()
    for w in lib.worlds:
        if w.name not in done:
            out.add(Task(f"world:{w.file}", "world", w.name, (w.file,),
                         names("lorebooks", w.name), w.size), spec.book is not None,
                    spec.why_no_book)
    return out.tasks, out.dropped


def not_carried(lib: Library, spec: Target) -> list[Item]:
    """Quick replies, themes, SillyTavern's own folders, secrets and unknown files: named,
    grouped, with the reason."""
    app = spec.label
    out: list[Item] = []
    if lib.quick_replies:
        out.append(_drop("quick_replies", "quick_replies",
                         f"{len(lib.quick_replies)} quick-reply set(s)",
                         NOT_CARRIED["quick_replies"].format(app=app), lib.quick_replies))
    if lib.themes:
        out.append(_drop("themes", "themes", f"{len(lib.themes)} theme(s)",
                         NOT_CARRIED["themes"].format(app=app), lib.themes))
    for folder, files in lib.other.items():
        out.append(_drop(f"other:{folder}", "other", f"{folder}/ ({len(files)} file(s))",
                         OTHER_FOLDERS[folder], files))
    for secret in lib.secrets:
        out.append(_drop(f"secret:{secret}", "secret", secret, NOT_CARRIED["secret"], []))
    if lib.unknown:
        out.append(_drop("unknown", "file", f"{len(lib.unknown)} file(s) bunzai does not know",
                         "not part of SillyTavern's layout as bunzai reads it", lib.unknown))
    return out


def _drop(id: str, kind: ItemKind, name: str, reason: str, files: Iterable[str]) -> Item:
    return Item(id, kind, name, status="dropped", reason=reason,
                sources={f: "" for f in files})


def _sizes(lib: Library) -> dict[str, int]:
    """Bytes of every card and chat, to hand the largest work out first."""
    out: dict[str, int] = {}
    for c in lib.characters:
        out[c.file] = c.size
        out.update((f, _size(lib.root / f)) for f in c.chats)
    for g in lib.groups:
        out.update((f, _size(lib.root / f)) for f in g.chats)
    return out


def _size(path: Path) -> int:
    try:
        return path.stat().st_size
    except OSError:
        return 0


def plan_exports(root: Path, out: Path, jobs: int, force: bool, options: dict[str, Any],
                 reg: Registry) -> LibraryConversion:
    """The move of a folder of exports into a SillyTavern data folder at ``out``."""
    from .exports import place, scan_exports
    from .run import LibraryConversion
    from .steps import Context
    from .targets import TARGETS

    lib = scan_exports(root, jobs=jobs, registry=reg)
    placed = place(lib)
    planned = Planned()
    size = {e.file: e.size for e in lib.exports}
    folders: dict[str, set[str]] = {}
    for c in placed.cards:
        planned.add(Task(f"character:{c.file}#{c.index}", "character", c.name,
                         (c.file, *c.chats), f"characters/{c.stem}",
                         size[c.file] + sum(size[f] for f in c.chats),
                         (("index", c.index), ("stem", c.stem), ("world", c.world),
                          ("twins", tuple(c.twins)))))
    for folder, chats in placed.orphans.items():
        planned.add(Task(f"chats:{folder}", "chats", folder, tuple(chats), f"chats/{folder}",
                         sum(size[f] for f in chats)))
    for e in lib.exports:
        if e.kind == "lorebook":
            name = placed.worlds[e.file]
            planned.add(Task(f"world:{e.file}", "world", name, (e.file,), f"worlds/{name}",
                             e.size))
        elif e.kind == "preset":
            planned.add(_preset_export(e, folders), bool(e.parts),
                        "it states nothing SillyTavern keeps in a preset")
        elif e.kind == "module":
            planned.add(Task(f"file:{e.file}", "file", e.file, (e.file,), ""), False,
                        "SillyTavern has no modules: take its lorebook out with 'bunzai "
                        "lorebook extract' and its scripts with 'bunzai convert --to regex'")
        elif e.error:
            planned.dropped.append(Item(f"file:{e.file}", "file", e.file, status="failed",
                                        error=e.error, exit_code=e.exit_code,
                                        sources={e.file: ""}))
    kinds: tuple[tuple[ItemKind, str], ...] = (("personas", "persona"), ("regex", "regex"))
    for kind, what in kinds:
        files = tuple(e.file for e in lib.exports if e.kind == what)
        if files:
            planned.add(Task(kind, kind, f"{len(files)} {what} file(s)", files, kind))
    ctx = Context(str(root), str(out), "sillytavern", tuple(sorted(options.items())),
                  force=force)
    return LibraryConversion(lib, TARGETS["sillytavern"], out, ctx, planned.tasks,
                             planned.dropped, jobs, reg)


def _preset_export(e: ExportEntry, used: dict[str, set[str]]) -> Task:
    """A preset of a folder of exports: each of its parts in its SillyTavern folder, named
    after the part, numbered ``<name> (2)`` when taken (SillyTavern names a preset by its file)."""
    from .exports import sanitize

    outs = tuple((key, f"{BY_KEY[key].folder}/" + unique(sanitize(name) or "preset",
                                                        used.setdefault(key, set()),
                                                        "{name} ({n})"))
                 for key, name in e.parts)
    return Task(f"preset:{e.file}", "presets", e.names[0] if e.names else e.file, (e.file,),
                "", e.size, (("parts", outs), ("format", e.format)))

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

from collections.abc import Iterable
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
    from .run import Move


class Names:
    """Output names unique case-insensitively within a folder of the output."""

    def __init__(self) -> None:
        self.used: dict[str, set[str]] = {}

    def __call__(self, folder: str, name: str) -> str:
        return f"{folder}/{unique(safe_name(name), self.used.setdefault(folder, set()))}"


def plan(lib: Library, spec: Target, names: Names) -> tuple[list[Task], list[Item]]:
    """The tasks of a move (characters, groups, personas, regex, chats without a card) and the
    items the target has no place for (dropped, with the reason)."""
    tasks: list[Task] = []
    dropped: list[Item] = []
    twins: set[str] = set()
    for c in lib.characters:
        if c.file not in twins:
            twins.update(c.same_as)  # the later cards of the same bytes
    sizes = _sizes(lib)
    for c in lib.characters:
        if c.file in twins:
            continue  # the same bytes as an earlier card: its chats go with that one
        chats = list(c.chats)
        for other in lib.characters:
            if other.file in c.same_as:
                chats.extend(other.chats)
        folder = names("characters", c.stem)
        tasks.append(Task(f"character:{c.file}", "character", c.stem, (c.file, *chats), folder,
                          sum(sizes.get(f, 0) for f in (c.file, *chats)),
                          (("stem", c.stem), ("same_as", tuple(c.same_as)),
                           ("sprites", tuple(c.sprites)))))
    for g in lib.groups:
        sources = (g.file, *g.chats)
        if spec.groups:
            members = tuple(f"characters/{m}" for m in g.members if m not in g.missing_members)
            tasks.append(Task(f"group:{g.file}", "group", g.name, sources,
                              names("groups", g.name),
                              sum(sizes.get(f, 0) for f in (*members, *g.chats)),
                              (("members", members),)))
        elif spec.chat is not None:
            tasks.append(Task(f"group:{g.file}", "chats", g.name, sources,
                              names("groups", g.name) + "/chats",
                              sum(sizes.get(f, 0) for f in g.chats),
                              (("why", spec.why_no_group),)))
        else:
            dropped.append(_drop(f"group:{g.file}", "group", g.name, spec.why_no_group, sources))
    for folder, chats in lib.orphan_chats.items():
        why = (f"their character (characters/{folder}.png) is missing from the library: "
               "import them into it by hand")
        if spec.chat is not None:
            tasks.append(Task(f"chats:chats/{folder}", "chats", folder, tuple(chats),
                              names("chats-without-character", folder),
                              sum(sizes.get(f, 0) for f in chats), (("why", why),)))
        else:
            dropped.append(_drop(f"chats:chats/{folder}", "chats", folder,
                                 f"{spec.why_no_chat}, and {why}", chats))
    if lib.orphan_group_chats:
        why = "group chats no group lists"
        if spec.chat is not None:
            tasks.append(Task("chats:group chats", "chats", "group chats",
                              tuple(lib.orphan_group_chats),
                              names("groups", "without a group"),
                              sum(sizes.get(f, 0) for f in lib.orphan_group_chats),
                              (("why", why),)))
        else:
            dropped.append(_drop("chats:group chats", "chats", "group chats",
                                 spec.why_no_group or why, lib.orphan_group_chats))
    if lib.personas and lib.settings:
        if spec.persona is not None:
            tasks.append(Task("personas", "personas", f"{len(lib.personas)} persona(s)",
                              (lib.settings,), "personas"))
        else:
            dropped.append(_drop("personas", "personas", f"{len(lib.personas)} persona(s)",
                                 spec.why_no_persona, [lib.settings]))
    if lib.regex and lib.settings:
        if spec.regex is not None:
            tasks.append(Task("regex", "regex", f"{lib.regex} global regex script(s)",
                              (lib.settings,), "regex/regex"))
        else:
            dropped.append(_drop("regex", "regex", f"{lib.regex} global regex script(s)",
                                 spec.why_no_regex, [lib.settings]))
    preset_tasks, preset_drops = presets(lib, spec, names)
    tasks.extend(preset_tasks)
    dropped.extend(preset_drops)
    dropped.extend(not_carried(lib, spec))
    return tasks, dropped


def presets(lib: Library, spec: Target, names: Names) -> tuple[list[Task], list[Item]]:
    """Each preset or template of a type the app imports, as one task (``presets/<file
    name>``: SillyTavern names a preset by its file); the types it has no place for, one
    dropped item each, with the reason."""
    tasks: list[Task] = []
    dropped: list[Item] = []
    for key, files in lib.presets.items():
        t = BY_KEY[key]
        if spec.preset_format(key) is None:
            dropped.append(_drop(f"presets:{t.folder}", "presets",
                                 f"{len(files)} {t.label} ({t.folder}/)",
                                 spec.why_no_preset(t.group), files))
            continue
        for rel in files:
            stem = Path(rel).stem
            tasks.append(Task(f"preset:{rel}", "presets", stem, (rel,), names("presets", stem),
                              _size(lib.root / rel), (("type", key),)))
    return tasks, dropped


def world_tasks(lib: Library, spec: Target, carried: Iterable[str], names: Names
                ) -> tuple[list[Task], list[Item]]:
    """The worlds no card carried, each as a standalone book (or dropped, with the reason)."""
    done = set(carried)
    tasks: list[Task] = []
    dropped: list[Item] = []
    for w in lib.worlds:
        if w.name in done:
            continue
        if spec.book is not None:
            tasks.append(Task(f"world:{w.file}", "world", w.name, (w.file,),
                              names("lorebooks", w.name), w.size))
        else:
            dropped.append(_drop(f"world:{w.file}", "world", w.name, spec.why_no_book,
                                 [w.file]))
    return tasks, dropped


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
                 reg: Registry) -> Move:
    """The move of a folder of exports into a SillyTavern data folder at ``out``."""
    from .exports import _place, _quiet, scan_exports
    from .run import Move
    from .steps import Context
    from .targets import TARGETS

    lib = scan_exports(root, jobs=jobs, registry=reg)
    cards, orphans, worlds = _place(_quiet(lib))
    tasks: list[Task] = []
    dropped: list[Item] = []
    size = {e.file: e.size for e in lib.exports}
    folders: dict[str, set[str]] = {}
    for c in cards:
        tasks.append(Task(f"character:{c.file}#{c.index}", "character", c.name,
                          (c.file, *c.chats), f"characters/{c.stem}",
                          size[c.file] + sum(size[f] for f in c.chats),
                          (("index", c.index), ("stem", c.stem), ("world", c.world),
                           ("twins", tuple(c.twins)))))
    for folder, chats in orphans.items():
        tasks.append(Task(f"chats:{folder}", "chats", folder, tuple(chats), f"chats/{folder}",
                          sum(size[f] for f in chats)))
    for e in lib.exports:
        if e.kind == "lorebook":
            tasks.append(Task(f"world:{e.file}", "world", worlds[e.file], (e.file,),
                              f"worlds/{worlds[e.file]}", e.size))
        elif e.kind == "preset":
            tasks.extend(_preset_export(e, folders))
            if not e.parts:
                dropped.append(_drop(f"preset:{e.file}", "presets", e.file,
                                     "it states nothing SillyTavern keeps in a preset",
                                     [e.file]))
        elif e.kind == "module":
            dropped.append(Item(f"file:{e.file}", "file", e.file, status="dropped",
                                reason="SillyTavern has no modules: take its lorebook out with "
                                       "'bunzai lorebook extract' and its scripts with "
                                       "'bunzai convert --to regex'",
                                sources={e.file: ""}))
        elif e.error:
            dropped.append(Item(f"file:{e.file}", "file", e.file, status="failed",
                                error=e.error, exit_code=e.exit_code, sources={e.file: ""}))
    personas = [e.file for e in lib.exports if e.kind == "persona"]
    if personas:
        tasks.append(Task("personas", "personas", f"{len(personas)} persona file(s)",
                          tuple(personas), "personas"))
    regex = [e.file for e in lib.exports if e.kind == "regex"]
    if regex:
        tasks.append(Task("regex", "regex", f"{len(regex)} regex file(s)", tuple(regex),
                          "regex"))
    ctx = Context(str(root), str(out), "sillytavern", tuple(sorted(options.items())),
                  force=force)
    return Move(lib, TARGETS["sillytavern"], out, ctx, tasks, dropped, jobs, reg)


def _preset_export(e: ExportEntry, used: dict[str, set[str]]) -> list[Task]:
    """A preset of a folder of exports: each of its parts in its SillyTavern folder, named
    after the part, numbered ``<name> (2)`` when taken (SillyTavern names a preset by its file)."""
    from .exports import sanitize

    if not e.parts:
        return []
    outs = tuple((key, f"{BY_KEY[key].folder}/" + unique(sanitize(name) or "preset",
                                                        used.setdefault(key, set()),
                                                        "{name} ({n})"))
                 for key, name in e.parts)
    return [Task(f"preset:{e.file}", "presets", e.names[0] if e.names else e.file, (e.file,),
                 "", e.size, (("parts", outs), ("format", e.format)))]

"""Writing a folder of exports as a SillyTavern data folder: each item's task, placed where
SillyTavern's own import would put it (characters/, chats/<card>/, worlds/, personas, regex)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...errors import BunzaiError
from .exports import sanitize
from .items import Item, Task
from .steps import (
    Context,
    Work,
    _Out,
    _read,
    _write,
    read_all,
    sha256_file,
    unique,
    without_secrets,
    write_chats,
)

if TYPE_CHECKING:
    from ...host.registry import Registry


def _st_character(task: Task, ctx: Context, reg: Registry, item: Item) -> _Out:
    entities = _read(ctx, task.sources[0], item, reg)
    ch = entities[task.param("index", 0)]
    for twin in task.param("twins", ()):
        item.sources[twin] = sha256_file(Path(ctx.root) / twin)
        item.notes.append(f"{twin} is the same file: written once")
    stem = task.param("stem")
    out = _Out()
    world = task.param("world")
    if world and ch.lorebook is not None:
        book = ch.lorebook.model_copy(update={"name": ch.lorebook.name or world})
        out.add(f"worlds/{world}", _write([book], "sillytavern-lorebook", reg,
                                          {"variant": "worldinfo"}), "lorebook.")
        ch = ch.model_copy(update={"extensions": {**ch.extensions, "world": world}})
        item.worlds.append(world)
        item.notes.append(f"its book is worlds/{world}.json, linked to the card as "
                          "SillyTavern links an imported embedded book")
    written = _write([ch], "sillytavern", reg, {"container": "png"})
    out.add(task.out, written)
    used: set[str] = set()
    chats: list[tuple[str, Any]] = []
    if task.param("index", 0) == 0:
        try:
            from ..chats import extract
            inside = extract(reg, ch)
        except BunzaiError:  # a card that carries no chat
            inside = []
        chats += [(f"{ch.name} - {c.title or f'chat {i + 1}'}", c)
                  for i, c in enumerate(inside)]
    for rel in task.sources[1:]:
        chats.append((Path(rel).stem, _read(ctx, rel, item, reg)[0]))
    for i, (name, chat) in enumerate(chats):
        chat = _named(chat, ch.name)
        out.add(f"chats/{stem}/{unique(sanitize(name) or 'chat', used)}",
                _write([chat], "sillytavern-chat", reg), f"chats[{i}].")
    return out


def _named(chat: Any, name: str) -> Any:
    """A chat whose character has no name (a RisuAI export names none) takes its card's."""
    from ...model import Participant

    if any(p.role == "character" and p.name for p in chat.participants):
        return chat
    others = [p for p in chat.participants if p.role != "character"]
    return chat.model_copy(update={"participants": [*others, Participant(name=name)]})


def _st_world(task: Task, ctx: Context, reg: Registry, item: Item) -> _Out:
    book = _read(ctx, task.sources[0], item, reg)[0]
    return _Out.of(task.out, _write([book], "sillytavern-lorebook", reg,
                                    {"variant": "worldinfo"}))


def _st_personas(task: Task, ctx: Context, reg: Registry, item: Item) -> _Out:
    from ...io.outputs import OutputFile

    personas = read_all(ctx, task.sources, item, reg)
    out = _Out.of("personas", _write(personas, "sillytavern-persona", reg))
    used: set[str] = set()
    for p in personas:
        if p.avatar is not None and p.avatar.data:
            name = p.avatar_id or f"{sanitize(p.name) or 'persona'}.png"
            name = unique(name, used)
            out.files.append((f"User Avatars/{name}", OutputFile(p.avatar.data, "")))
        elif p.avatar_id:
            item.notes.append(f"persona {p.name!r} has no image: SillyTavern's Restore gives "
                              "it the default avatar")
    item.notes.append("restore personas.json in Persona Management (Restore): SillyTavern "
                      "keeps personas in settings.json, which bunzai never edits")
    return out


def _st_regex(task: Task, ctx: Context, reg: Registry, item: Item) -> _Out:
    scripts = read_all(ctx, task.sources, item, reg)
    out = _Out()
    used: set[str] = set()
    for i, s in enumerate(scripts):
        name = unique(sanitize(getattr(s, "name", "") or f"script {i + 1}") or "script", used)
        out.add(f"regex/{name}", _write([s], "sillytavern-regex", reg), f"scripts[{i}].")
    item.notes.append("import them in Extensions > Regex: global scripts live in "
                      "settings.json, which bunzai never edits")
    return out


def _st_chats(task: Task, ctx: Context, reg: Registry, item: Item) -> _Out:
    out = _Out()
    write_chats(out, task.out, task.sources, "sillytavern-chat", ctx, item, reg,
                lambda stem: sanitize(stem) or "chat")
    item.notes.append("their character is not in the folder: SillyTavern shows them once a "
                      f"character saved as characters/{Path(task.out).name}.png exists")
    return out


def _st_preset(task: Task, ctx: Context, reg: Registry, item: Item) -> _Out:
    """A preset in SillyTavern's own folders: each part (:func:`.presets.sillytavern_parts`)
    where the first pass planned it."""
    from .presets import sillytavern_parts

    fmt = task.param("format")
    entities = _read(ctx, task.sources[0], item, reg, from_format=fmt)
    parts = [part for e in entities for part in sillytavern_parts(e, fmt)]
    out = _Out()
    for (t, preset), (key, rel) in zip(parts, task.param("parts"), strict=True):
        assert t.key == key
        out.add(rel, _write([without_secrets(preset, out)], t.format, reg))
    if len(parts) > 1:
        item.notes.append("one file per part, as SillyTavern keeps them: "
                          + ", ".join(f"{rel}.json" for _, rel in task.param("parts")))
    item.notes.append(ctx.spec.preset_note)
    return out


WORK: dict[str, Work] = {"character": _st_character, "personas": _st_personas,
                         "regex": _st_regex, "world": _st_world, "chats": _st_chats,
                         "presets": _st_preset}
"""The work of each item kind into SillyTavern (:func:`.work.run_task` looks it up)."""

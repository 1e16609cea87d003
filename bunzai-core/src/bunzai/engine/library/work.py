"""Moving one item: read its files, join what SillyTavern links (a card's worlds, its chats),
write them as the target's files, and say what was lost.

Runs in a worker process (:mod:`.pool`); never raises for a bad file (the error becomes the
item's).  Every file an item writes is planned and checked before the first is written, so an
item refused for an output in the way writes nothing.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from ...errors import BunzaiError, ConversionRefused
from ...loss.report import LossReport
from .items import Item, Task
from .steps import (
    Context,
    Work,
    _Out,
    _read,
    _safe,
    _write,
    save,
    sha256_file,
    unique,
    without_secrets,
    write_chats,
)

if TYPE_CHECKING:
    from ...host.registry import Registry


def run_task(task: Task, ctx: Context, registry: Registry) -> Item:
    """Move one item; a problem becomes the item's error (exit code of the worst cause)."""
    item = Item(task.id, task.kind, task.name, target=ctx.target, options=dict(ctx.options))
    try:
        if ctx.target == "sillytavern":
            from . import to_sillytavern
            work = to_sillytavern.WORK[task.kind]
        else:
            work = WORK[task.kind]
        save(item, work(task, ctx, registry, item), ctx)
    except BunzaiError as exc:
        item.status, item.error, item.exit_code = "failed", exc.message, exc.exit_code
    except Exception as exc:  # one bad item never stops a move
        item.status, item.exit_code = "failed", 4
        item.error = f"internal error: {type(exc).__name__}: {exc}"
    return item


def warm(ctx: Context, registry: Registry) -> None:
    """Import, before the workers fork, what every item will need: the source formats'
    readers and the target's writers (a tiny entity written and read back in each), so that
    two workers do not each pay for the same imports."""
    from ...model import Character, Chat, Lorebook, Persona

    source = {"character": "sillytavern", "chat": "sillytavern-chat",
              "lorebook": "sillytavern-lorebook"}
    spec = ctx.spec
    made = {"character": Character(name="warm"), "chat": Chat(), "lorebook": Lorebook(),
            "persona": Persona(name="warm")}
    for kind, fmt in [*source.items(), ("character", spec.card), ("chat", spec.chat),
                      ("lorebook", spec.book), ("persona", spec.persona)]:
        if fmt is None:
            continue
        try:
            written = _write([made[kind]], fmt, registry)
            from ...io.input import AdapterInput
            registry.read(AdapterInput(written.files[0].data, f"warm{written.suffix}"),
                          format=fmt)
        except BunzaiError:
            continue  # a warm-up only: the item itself says what is wrong


# -- reading --------------------------------------------------------------------------------------


def _book(ctx: Context, name: str, item: Item, registry: Registry) -> Any | None:
    rel = ctx.world_file(name)
    if rel is None:
        item.notes.append(f"links world {name!r}, which is missing")
        return None
    book = _read(ctx, rel, item, registry)[0]
    if not book.name:
        book = book.model_copy(update={"name": name})
    item.worlds.append(name)
    return book


# -- a character ----------------------------------------------------------------------------------


def _character(task: Task, ctx: Context, reg: Registry, item: Item) -> _Out:
    spec = ctx.spec
    card_file = task.sources[0]
    ch = _read(ctx, card_file, item, reg)[0]
    for twin in task.param("same_as", ()):
        item.sources[twin] = sha256_file(Path(ctx.root) / twin)
        item.notes.append(f"{twin} is the same file: written once, with its chats")
    item.name = ch.name or task.name
    stem = task.param("stem", "")
    world = ch.extensions.get("world") if isinstance(ch.extensions, dict) else None
    if isinstance(world, str) and world:
        book = _book(ctx, world, item, reg)
        if book is not None:
            if ch.lorebook is not None and ch.lorebook.entries:
                item.notes.append(f"the card's embedded copy of {world!r} was replaced by "
                                  f"worlds/{world}.json, the book SillyTavern uses")
            ch = ch.model_copy(update={"lorebook": book})
    extras = [b for name in dict(ctx.extra_books).get(stem, ())
              if (b := _book(ctx, name, item, reg)) is not None]
    ch = _with_sprites(ch, ctx, item, task.param("sprites", ()))
    if extras and spec.books_inside:
        from ..lorebooks import merge_books
        own = [ch.lorebook] if ch.lorebook is not None else []
        merged, _ = merge_books([*own, *extras], (own[0].name if own else None) or extras[0].name)
        ch = ch.model_copy(update={"lorebook": merged})
        item.notes.append(f"{spec.label} links one book per character: the extra books "
                          f"{', '.join(repr(b.name) for b in extras)} were merged into it")
        extras = []
    out = _Out()
    folder = task.out
    chats = list(task.sources[1:])
    if spec.chats_inside and chats:
        written = _card_with_chats(ch, chats, ctx, reg, item, out)
    else:
        written = _write([ch], spec.card, reg, dict(ctx.options))
    out.add(f"{folder}/{Path(folder).name}", written)
    for i, book in enumerate(extras):
        assert spec.book is not None
        out.add(f"{folder}/lorebooks/{_safe(book.name or str(i + 1))}",
                _write([book], spec.book, reg), f"books[{i}].")
    if not spec.chats_inside:
        if spec.chat is None:
            if chats:
                item.notes.append(f"{len(chats)} chat(s) not carried: {spec.why_no_chat}")
                for i, rel in enumerate(chats):
                    out.loss.dropped(f"chats[{i}]", spec.why_no_chat)
                    item.sources[rel] = sha256_file(Path(ctx.root) / rel)
        else:
            write_chats(out, f"{folder}/chats", chats, spec.chat, ctx, item, reg, _safe)
    return out


def _card_with_chats(ch: Any, chats: list[str], ctx: Context, reg: Registry, item: Item,
                     out: _Out) -> Any:
    """A card written as an archive that holds its chats (Backyard): written once, read back
    as that format, each chat embedded, written again."""
    from ...io.input import AdapterInput
    from ..chats import embed

    spec = ctx.spec
    first = _write([ch], spec.card, reg, dict(ctx.options))
    out.loss.extend(first.loss)
    back = reg.read(AdapterInput(first.files[0].data, f"card{first.files[0].suffix}"),
                    format=spec.card)[1].entities[0]
    for i, rel in enumerate(chats):
        chat = _read(ctx, rel, item, reg)[0]
        back, loss = embed(reg, back, chat)
        out.loss.extend(loss, f"chats[{i}].")
    final = _write([back], spec.card, reg, dict(ctx.options))
    final.loss = LossReport()  # read from the target itself: the first write said what it lost
    return final


def _with_sprites(ch: Any, ctx: Context, item: Item, named: Sequence[str] = ()) -> Any:
    """The card with its expression sprites as emotion assets (a card format that holds none
    reports them): the folder ``expressionOverrides`` names for it (``named``), else the one
    named after the character."""
    files = named or dict(ctx.sprites).get(ch.name or "", ())
    if not files:
        return ch
    from ...io.containers.media import sniff_media
    from ...model import Asset

    assets = list(ch.assets)
    for rel in files:
        path = Path(ctx.root) / rel
        data = path.read_bytes()
        item.sources[rel] = hashlib.sha256(data).hexdigest()
        media, ext = sniff_media(data)
        assets.append(Asset(type="emotion", name=path.stem, ext=ext, media_type=media,
                            data=data))
    item.notes.append(f"{len(files)} expression sprite(s) carried as the card's emotion images")
    return ch.model_copy(update={"assets": assets})


def _world(task: Task, ctx: Context, reg: Registry, item: Item) -> _Out:
    spec = ctx.spec
    book = _read(ctx, task.sources[0], item, reg)[0]
    if not book.name:
        book = book.model_copy(update={"name": task.name})
    assert spec.book is not None
    out = _Out.of(task.out, _write([book], spec.book, reg))
    if task.name in ctx.global_worlds:
        item.notes.append(f"active in every chat in SillyTavern (global): turn it on in "
                          f"{spec.label} after importing it")
    return out


def _personas(task: Task, ctx: Context, reg: Registry, item: Item) -> _Out:
    from ...io.containers.media import sniff_media
    from ...model import Asset

    spec = ctx.spec
    assert spec.persona is not None
    personas = _read(ctx, task.sources[0], item, reg, from_format="sillytavern-persona")
    out = _Out()
    used: set[str] = set()
    for i, p in enumerate(personas):
        image = Path(ctx.root) / "User Avatars" / (p.avatar_id or "")
        if p.avatar_id and image.is_file():
            data = image.read_bytes()
            item.sources[f"User Avatars/{p.avatar_id}"] = hashlib.sha256(data).hexdigest()
            media, ext = sniff_media(data)
            p = p.model_copy(update={"avatar": Asset(type="icon", name="main", ext=ext,
                                                     media_type=media, data=data)})
        name = unique(_safe(p.name or p.avatar_id or str(i + 1)), used)
        out.add(f"{task.out}/{name}", _write([p], spec.persona, reg), f"personas[{i}].")
    return out


def _regex(task: Task, ctx: Context, reg: Registry, item: Item) -> _Out:
    spec = ctx.spec
    assert spec.regex is not None
    scripts = _read(ctx, task.sources[0], item, reg, from_format="sillytavern-regex")
    return _Out.of(task.out, _write(scripts, spec.regex, reg))


def _chats_only(task: Task, ctx: Context, reg: Registry, item: Item) -> _Out:
    """Chats without a card to go into (a group's, or a folder whose card is missing), as the
    target's chat files."""
    spec = ctx.spec
    assert spec.chat is not None
    out = _Out()
    for rel in task.sources:
        if not rel.endswith(".jsonl"):  # the group's own file
            item.sources[rel] = sha256_file(Path(ctx.root) / rel)
    write_chats(out, task.out, [r for r in task.sources if r.endswith(".jsonl")], spec.chat,
                ctx, item, reg, _safe)
    if task.param("why"):
        item.notes.append(task.param("why"))
    return out


def _group(task: Task, ctx: Context, reg: Registry, item: Item) -> _Out:
    """A group as one Voxta package: its members, and a scenario casting each of them."""
    import uuid

    spec = ctx.spec
    members: list[Any] = []
    for rel in task.param("members", ()):
        ch = _read(ctx, rel, item, reg)[0]
        world = ch.extensions.get("world") if isinstance(ch.extensions, dict) else None
        if isinstance(world, str) and world:
            book = _book(ctx, world, item, reg)
            if book is not None:
                ch = ch.model_copy(update={"lorebook": book})
        ids = {"id": str(uuid.uuid4())}
        vox = dict(ch.extensions.get("voxta") or {}) if isinstance(ch.extensions, dict) else {}
        vox.setdefault("id", ids["id"])
        members.append(ch.model_copy(update={"extensions": {**ch.extensions, "voxta": vox}}))
    if not members:
        raise ConversionRefused("none of the group's members could be found")
    sid = str(uuid.uuid4())
    roles = [{"Name": "main" if i == 0 else f"char_{i + 1}",
              "DefaultCharacterId": m.extensions["voxta"]["id"], "EnabledOnStart": True}
             for i, m in enumerate(members)]
    scenario = {"$type": "scenario", "Name": task.name, "Roles": roles, "Id": sid}
    first = members[0]
    data = {**first.app_data.get("voxta", {}), f"Scenarios/{sid}/scenario.json": scenario}
    members[0] = first.model_copy(update={"app_data": {**first.app_data, "voxta": data}})
    out = _Out()
    written = _write(members, spec.card, reg)
    out.add(f"{task.out}", written)
    chats = [s for s in task.sources if s.endswith(".jsonl")]
    for i, rel in enumerate(chats):
        item.sources[rel] = sha256_file(Path(ctx.root) / rel)
        out.loss.dropped(f"chats[{i}]", spec.why_no_chat or "the app imports no chat")
    item.notes.append(f"one package casting {len(members)} character(s) in a scenario named "
                      f"{task.name!r}")
    item.sources[task.sources[0]] = sha256_file(Path(ctx.root) / task.sources[0])
    return out


def _preset(task: Task, ctx: Context, reg: Registry, item: Item) -> _Out:
    """A preset or template, read as its folder's format, written as the one the app
    imports."""
    from .presets import BY_KEY

    spec = ctx.spec
    fmt = spec.preset_format(task.param("type"))
    assert fmt is not None
    preset = _read(ctx, task.sources[0], item, reg,
                   from_format=BY_KEY[task.param("type")].format)[0]
    item.name = preset.name or task.name
    item.notes.append(spec.preset_note)
    out = _Out()
    out.add(task.out, _write([without_secrets(preset, out)], fmt, reg))
    return out


WORK: dict[str, Work] = {"character": _character, "world": _world, "personas": _personas,
                         "regex": _regex, "chats": _chats_only, "group": _group,
                         "presets": _preset}
"""The work of each item kind into every app but SillyTavern."""

"""Scanning a library folder into a :class:`~.model.Library`: SillyTavern's layout, or a folder
of any apps' exports.

SillyTavern's rules, from its source (``src/constants.js`` ``USER_DIRECTORY_TEMPLATE``,
``src/endpoints/characters.js``, ``chats.js``, ``groups.js``, ``public/scripts/world-info.js``,
``personas.js``, ``extensions/expressions``):

* a character is a ``.png`` in ``characters/`` (it lists no other file there); its chats are
  ``chats/<avatar with ".png" taken out>/*.jsonl``, so a chat belongs to the card by the folder's
  name, whatever the chat says inside;
* its expression sprites are ``characters/<name>/``, the name being the character's, or the
  path ``extension_settings.expressionOverrides`` gives for its avatar;
* a group is ``groups/<id>.json`` naming its members by avatar file (``members``) and its chats
  by id (``chats``), each ``group chats/<id>.jsonl``;
* a world is ``worlds/<name>.json``; a card links one by name in ``data.extensions.world``,
  ``settings.json`` adds extra books per avatar (``world_info.charLore``: ``{name: avatar
  without extension, extraBooks}``) and selects global ones (``world_info.globalSelect``);
* personas are ``power_user.personas`` (avatar file -> name), ``persona_descriptions`` and
  ``default_persona`` in ``settings.json``, their images ``User Avatars/<avatar>``;
* global regex scripts are ``extension_settings.regex``; quick-reply sets
  ``QuickReplies/*.json``; secrets ``secrets.json`` (never read here).

Scanning lists files and reads ``settings.json`` and the group files; cards and chats are read
by the work that needs them.
"""

from __future__ import annotations

import json
import os
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from ...errors import UsageError
from .model import CharacterEntry, GroupEntry, Library, PersonaEntry, Problem, WorldEntry
from .presets import PRESET_TYPES
from .secrets import secret_keys

CHARACTERS, CHATS, GROUPS, GROUP_CHATS = "characters", "chats", "groups", "group chats"
WORLDS, AVATARS, SETTINGS = "worlds", "User Avatars", "settings.json"
QUICK_REPLIES, THEMES = "QuickReplies", "themes"

PRESET_FOLDERS = tuple(t.folder for t in PRESET_TYPES)
"""SillyTavern's preset and template folders (:mod:`.presets`)."""

OTHER_FOLDERS: dict[str, str] = {
    "backgrounds": "chat backgrounds: SillyTavern's own, no other app imports them",
    "thumbnails": "thumbnails SillyTavern rebuilds from the cards",
    "extensions": "SillyTavern extensions: code, not user data another app runs",
    "assets": "files downloaded by SillyTavern's asset manager",
    "user": "uploaded images, files and ComfyUI workflows of SillyTavern's own",
    "vectors": "vector-storage indexes SillyTavern rebuilds",
    "backups": "SillyTavern's own backups of chats and settings",
    "movingUI": "SillyTavern UI layouts",
}
"""Folders SillyTavern keeps that no target imports, with the reason."""

SECRET_FILES = ("secrets.json", "cookie-secret.txt")
"""Files that hold keys (API keys; the session-cookie secret).  Never read, never copied."""


_KNOWN = frozenset({CHARACTERS, CHATS, GROUPS, GROUP_CHATS, WORLDS, AVATARS, SETTINGS,
                    QUICK_REPLIES, THEMES, *PRESET_FOLDERS, *OTHER_FOLDERS, *SECRET_FILES})
"""Every name of the layout at the library's root."""

_IMAGES = (".png", ".jpg", ".jpeg", ".webp", ".gif", ".bmp", ".avif")


def is_sillytavern(root: Path) -> bool:
    """A SillyTavern user-data folder: ``characters/`` beside ``settings.json`` or
    ``chats/``/``worlds/``."""
    return (root / CHARACTERS).is_dir() and any(
        (root / n).exists() for n in (SETTINGS, CHATS, WORLDS))


def check_root(root: Path) -> None:
    """A library folder that exists, or a clear error naming it (and the user folders, when
    given SillyTavern's ``data`` folder)."""
    if not root.is_dir():
        raise UsageError("is not a folder", path=str(root))
    if not is_sillytavern(root):
        users = sorted(p.name for p in root.iterdir() if p.is_dir() and is_sillytavern(p))
        if users:
            raise UsageError("holds SillyTavern user folders, not a library: give one of "
                             + ", ".join(str(root / u) for u in users), path=str(root))


def _files(folder: Path) -> Iterator[Path]:
    """Files of a folder, hidden ones (``.gitkeep``) left out, in name order."""
    try:
        entries = sorted(folder.iterdir(), key=lambda p: p.name)
    except OSError:
        return
    for p in entries:
        if not p.name.startswith(".") and p.is_file():
            yield p


def load_json(path: Path) -> Any:
    """A JSON file's value, or None when it is missing or not JSON."""
    try:
        return json.loads(path.read_bytes())
    except (OSError, ValueError):
        return None


def scan_sillytavern(root: Path) -> Library:
    """The library in a SillyTavern user-data folder (``data/<user>/``), read part by part as
    SillyTavern lays it out."""
    lib = Library(root=root, layout="sillytavern")
    settings = _settings(lib)
    by_stem, sprite_dirs = _characters(lib)
    _chats(lib, by_stem)
    _worlds(lib, settings, by_stem)
    _sprites(lib, settings, sprite_dirs)
    _groups(lib)
    _personas(lib, settings)
    _the_rest(lib, settings)
    _duplicates(lib)
    return lib


def _rel(lib: Library, p: Path) -> str:
    return p.relative_to(lib.root).as_posix()


def _settings(lib: Library) -> Mapping[str, Any]:
    """``settings.json`` as a mapping (empty when missing; a problem when it is no object)."""
    path = lib.root / SETTINGS
    if not path.is_file():
        return {}
    lib.settings = SETTINGS
    settings = load_json(path)
    if not isinstance(settings, Mapping):
        lib.problems.append(Problem("unreadable", SETTINGS, "not a JSON object"))
        return {}
    return settings


def _characters(lib: Library) -> tuple[dict[str, CharacterEntry], dict[str, Path]]:
    """The cards of ``characters/`` (by avatar stem) and its folders (sprites, by name)."""
    by_stem: dict[str, CharacterEntry] = {}
    sprite_dirs: dict[str, Path] = {}
    cdir = lib.root / CHARACTERS
    for p in sorted(cdir.iterdir(), key=lambda p: p.name) if cdir.is_dir() else []:
        if p.name.startswith("."):
            continue
        if p.is_dir():
            sprite_dirs[p.name] = p
        elif p.name.endswith(".png"):
            entry = CharacterEntry(_rel(lib, p), p.name.replace(".png", "", 1), p.stat().st_size)
            lib.characters.append(entry)
            by_stem[entry.stem] = entry
        else:
            lib.unknown.append(_rel(lib, p))
            lib.problems.append(Problem("unknown-file", _rel(lib, p), "SillyTavern lists "
                                        "only .png files in characters/"))
    return by_stem, sprite_dirs


def _chats(lib: Library, by_stem: Mapping[str, CharacterEntry]) -> None:
    """Each chat folder given to its card by name; a folder without one is a problem."""
    chat_root = lib.root / CHATS
    for folder in sorted(chat_root.iterdir(), key=lambda p: p.name) if chat_root.is_dir() else []:
        if not folder.is_dir():
            if not folder.name.startswith("."):
                lib.unknown.append(_rel(lib, folder))
            continue
        chats = [_rel(lib, f) for f in _files(folder) if f.suffix == ".jsonl"]
        lib.unknown.extend(_rel(lib, f) for f in _files(folder) if f.suffix != ".jsonl")
        owner = by_stem.get(folder.name)
        if owner is not None:
            owner.chats = chats
        elif chats:
            lib.orphan_chats[folder.name] = chats
            lib.problems.append(Problem(
                "missing-character", f"{CHATS}/{folder.name}",
                f"{len(chats)} chat(s) whose character ({CHARACTERS}/{folder.name}.png) is "
                "missing"))


def _worlds(lib: Library, settings: Mapping[str, Any],
            by_stem: Mapping[str, CharacterEntry]) -> None:
    """The books of ``worlds/``, the global selection and each card's extra books."""
    for p in _files(lib.root / WORLDS):
        if p.suffix == ".json":
            lib.worlds.append(WorldEntry(_rel(lib, p), p.stem, p.stat().st_size))
        else:
            lib.unknown.append(_rel(lib, p))
    wi = _world_settings(settings)
    selected = wi.get("globalSelect")
    for name in selected if isinstance(selected, list) else []:
        w = lib.world(str(name))
        if w is not None:
            w.active = True
        else:
            lib.problems.append(Problem("broken-link", SETTINGS, f"world_info.globalSelect "
                                        f"names a world that is missing: {name}"))
    lore = wi.get("charLore")
    for item in lore if isinstance(lore, list) else []:
        if not isinstance(item, Mapping):
            continue
        stem, books = str(item.get("name", "")), item.get("extraBooks")
        owner = by_stem.get(stem)
        if owner is None:
            lib.problems.append(Problem("broken-link", SETTINGS, "world_info.charLore adds "
                                        f"books to a character that is missing: {stem}"))
            continue
        owner.extra_books = [str(b) for b in books] if isinstance(books, list) else []
        for b in owner.extra_books:
            if lib.world(b) is None:
                lib.problems.append(Problem("broken-link", owner.file,
                                            f"extra book {b!r} (world_info.charLore) is missing"))
            else:
                _link(lib, b, owner.file)


def _sprites(lib: Library, settings: Mapping[str, Any], sprite_dirs: Mapping[str, Path]
             ) -> None:
    """Sprite folders' images; a card gets the folder ``expressionOverrides`` names for it
    here, the one named after it once it is read (:func:`attach_sprites`)."""
    lib.sprite_folders = {name: [_rel(lib, f) for f in _files(d) if f.suffix.lower() in _IMAGES]
                          for name, d in sprite_dirs.items()}
    overrides = _expression_overrides(settings)
    for c in lib.characters:
        override = overrides.get(c.stem)
        if override and override in lib.sprite_folders:
            c.sprites = lib.sprite_folders[override]


def _groups(lib: Library) -> None:
    """Groups, their members and chats; a group chat no group lists is a problem."""
    group_chat_files = {f.stem: _rel(lib, f) for f in _files(lib.root / GROUP_CHATS)
                        if f.suffix == ".jsonl"}
    stems = {c.file.removeprefix(f"{CHARACTERS}/") for c in lib.characters}
    claimed: set[str] = set()
    for p in _files(lib.root / GROUPS):
        if p.suffix != ".json":
            lib.unknown.append(_rel(lib, p))
            continue
        data = load_json(p)
        if not isinstance(data, Mapping):
            lib.problems.append(Problem("unreadable", _rel(lib, p), "not a JSON object"))
            continue
        members = [str(m) for m in data.get("members") or [] if isinstance(m, str)]
        g = GroupEntry(_rel(lib, p), str(data.get("id") or p.stem),
                       str(data.get("name") or p.stem), members)
        for cid in (str(c) for c in data.get("chats") or [] if isinstance(c, str | int)):
            if cid in group_chat_files:
                g.chats.append(group_chat_files[cid])
                claimed.add(cid)
            else:
                g.missing_chats.append(cid)
        g.missing_members = [m for m in members if m not in stems]
        for m in g.missing_members:
            lib.problems.append(Problem("broken-link", g.file, f"member {m} is missing"))
        lib.groups.append(g)
    lib.orphan_group_chats = [f for cid, f in group_chat_files.items() if cid not in claimed]
    for f in lib.orphan_group_chats:
        lib.problems.append(Problem("missing-group", f, "a group chat no group lists"))


def _personas(lib: Library, settings: Mapping[str, Any]) -> None:
    """The personas of ``settings.json`` and the images of ``User Avatars/``."""
    lib.persona_images = [_rel(lib, f) for f in _files(lib.root / AVATARS)]
    power = settings.get("power_user")
    power = power if isinstance(power, Mapping) else {}
    personas = power.get("personas")
    default = power.get("default_persona")
    for avatar, name in personas.items() if isinstance(personas, Mapping) else ():
        image = f"{AVATARS}/{avatar}"
        has = (lib.root / image).is_file()
        lib.personas.append(PersonaEntry(str(avatar), str(name), image if has else None,
                                         avatar == default))
        if not has:
            lib.problems.append(Problem("broken-link", SETTINGS, f"persona {name!r}: its "
                                        f"image {image} is missing"))


def _the_rest(lib: Library, settings: Mapping[str, Any]) -> None:
    """Regex, quick replies, presets, themes, SillyTavern's own folders, secrets (by name)
    and every file bunzai does not know."""
    root = lib.root
    ext = settings.get("extension_settings")
    regex = ext.get("regex") if isinstance(ext, Mapping) else None
    lib.regex = len(regex) if isinstance(regex, list) else 0
    lib.quick_replies = [_rel(lib, f) for f in _files(root / QUICK_REPLIES)]
    lib.themes = [_rel(lib, f) for f in _files(root / THEMES)]
    for t in PRESET_TYPES:
        found = [_rel(lib, f) for f in _walk(root / t.folder)]
        if found:
            lib.presets[t.key] = found
    for name in OTHER_FOLDERS:
        found = [_rel(lib, f) for f in _walk(root / name)]
        if found:
            lib.other[name] = found
    lib.secrets = [name for name in SECRET_FILES if (root / name).exists()]
    lib.secrets.extend(f"{SETTINGS}: {path}" for path in secret_keys(settings))
    for p in sorted(root.iterdir(), key=lambda p: p.name):
        if p.name not in _KNOWN and not p.name.startswith("."):
            lib.unknown.extend(_rel(lib, f) for f in ([p] if p.is_file() else _walk(p)))
    for f in lib.unknown:
        if not any(pr.path == f for pr in lib.problems):
            lib.problems.append(Problem("unknown-file", f, "not a file of SillyTavern's "
                                        "layout that bunzai knows"))


def attach_sprites(lib: Library) -> None:
    """Cards read: each card's sprite folder by its name (unless an override named one)."""
    folders = lib.sprite_folders
    for c in lib.characters:
        if not c.sprites and c.name and c.name in folders:
            c.sprites = folders[c.name]


def _walk(folder: Path) -> Iterator[Path]:
    if folder.is_dir():
        for dirpath, dirs, files in os.walk(folder):
            dirs[:] = sorted(d for d in dirs if not d.startswith("."))
            for f in sorted(files):
                if not f.startswith("."):
                    yield Path(dirpath) / f


def _link(lib: Library, world: str, card: str) -> None:
    w = lib.world(world)
    if w is not None and card not in w.characters:
        w.characters.append(card)


def link_card_world(lib: Library, entry: CharacterEntry) -> None:
    """A card read: its own world linked, or a broken link named."""
    if entry.world:
        if lib.world(entry.world) is None:
            lib.problems.append(Problem("broken-link", entry.file,
                                        f"links world {entry.world!r}, which is missing"))
        else:
            _link(lib, entry.world, entry.file)


def _world_settings(settings: Mapping[str, Any]) -> Mapping[str, Any]:
    """``world_info`` of ``world_info_settings`` (older files keep it at the root)."""
    block = settings.get("world_info_settings")
    block = block if isinstance(block, Mapping) else settings
    wi = block.get("world_info")
    return wi if isinstance(wi, Mapping) else {}


def _expression_overrides(settings: Mapping[str, Any]) -> dict[str, str]:
    ext = settings.get("extension_settings")
    found = ext.get("expressionOverrides") if isinstance(ext, Mapping) else None
    return {str(o["name"]): str(o["path"]) for o in found or []
            if isinstance(o, Mapping) and o.get("name") and o.get("path")}


def _duplicates(lib: Library) -> None:
    """Cards with the very same bytes: the first keeps the others' chats (``same_as``).  Only
    cards of one size are hashed."""
    import hashlib

    by_size: dict[int, list[CharacterEntry]] = {}
    for c in lib.characters:
        by_size.setdefault(c.size, []).append(c)
    for group in by_size.values():
        if len(group) < 2:
            continue
        by_hash: dict[str, list[CharacterEntry]] = {}
        for c in group:
            digest = hashlib.sha256((lib.root / c.file).read_bytes()).hexdigest()
            by_hash.setdefault(digest, []).append(c)
        for same in by_hash.values():
            if len(same) < 2:
                continue
            first, rest = same[0], same[1:]
            first.same_as = [c.file for c in rest]
            for c in rest:
                c.same_as = [first.file]
                lib.problems.append(Problem("duplicate", c.file, f"the same file as "
                                            f"{first.file}: written once, with both cards' "
                                            "chats"))


def scan(root: str | os.PathLike[str]) -> Library:
    """The library at ``root``: SillyTavern's layout when it has one, else a folder of
    exports (read by :func:`.exports.scan_exports`)."""
    path = Path(root)
    check_root(path)
    if is_sillytavern(path):
        return scan_sillytavern(path)
    from .exports import scan_exports
    return scan_exports(path)

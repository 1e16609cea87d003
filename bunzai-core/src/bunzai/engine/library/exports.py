"""A folder of exports (CharX, BYAF, Agnai, Voxta, cards, books, personas, chats of any app)
moved into a SillyTavern data folder.

Two passes.  The first reads every file (in the worker pool) for what it is: its kind, its
characters' names, the book a card carries, the character a chat belongs to.  The parent then
places everything as SillyTavern's own import would, and the second pass writes it:

* a character is ``characters/<name>.png``, the name made safe as SillyTavern's
  ``sanitize-filename`` does and numbered ``<name>1``, ``<name>2``… when taken (its
  ``getPngName``); the same file twice is written once;
* a card's book becomes ``worlds/<book name>.json`` (a book without a name: ``<character>'s
  Lorebook``, as its "import embedded world" names it) and the card links it
  (``data.extensions.world``), what SillyTavern does when the user accepts that import;
* a chat goes to ``chats/<card's file name without .png>/``, the folder SillyTavern reads a
  card's chats from: the card whose name the chat's participants give, else whose name or file
  name the chat's own file name or folder starts with, else the only card of the folder; chats
  a Backyard archive carries go with its card;
* personas become one persona backup, ``personas.json`` (what Persona Management's Restore
  takes), their images ``User Avatars/<avatar>``; regex scripts ``regex/<script>.json``, one
  file per script as the Regex extension imports them.  ``settings.json`` is never written;
* a preset goes to SillyTavern's folders for it, split by the parts it holds
  (:func:`.presets.sillytavern_parts`), each part named after itself, ``<name> (2)`` when taken.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from ...errors import BunzaiError
from .model import ExportEntry, Library, Problem
from .steps import unique

if TYPE_CHECKING:
    from ...host.registry import Registry

_SANITIZE = re.compile(r'[/?<>\\:*|"\x00-\x1f\x80-\x9f]')
_RESERVED = re.compile(r"^\.+$|^(con|prn|aux|nul|com\d|lpt\d)(\..*)?$", re.IGNORECASE)


def sanitize(name: str) -> str:
    """A name as SillyTavern makes it a file name (``sanitize-filename``: the characters
    file systems refuse and control characters removed, reserved names and trailing dots and
    spaces too, at most 255 bytes)."""
    s = _SANITIZE.sub("", name)
    if _RESERVED.match(s):
        s = ""
    s = s.rstrip(". ")
    return s.encode("utf-8")[:255].decode("utf-8", "ignore")


# -- the first pass: what each file is ----------------------------------------------------------


def _identify(file: str, root: str, reg: Registry) -> ExportEntry:
    from ..reading import read_file

    path = Path(root) / file
    entry = ExportEntry(file, path.stat().st_size)
    found = read_file(path, registry=reg)
    if found.error is not None:
        entry.error, entry.exit_code = found.error.message, found.error.exit_code
        return entry
    entry.format, entry.kind = found.format, found.kind
    entities = found.entities
    if entry.kind == "character":
        entry.names = [e.name or Path(file).stem for e in entities]
        book = entities[0].lorebook
        if book is not None and book.entries:
            entry.book = book.name or ""
        try:
            from ..chats import extract
            entry.chats = len(extract(reg, entities[0]))
        except BunzaiError:  # a card that carries no chat
            entry.chats = 0
    elif entry.kind == "preset":
        from .presets import sillytavern_parts

        entry.names = [e.name or Path(file).stem for e in entities]
        entry.parts = [[t.key, part.name or entry.names[0]] for e in entities
                       for t, part in sillytavern_parts(e, found.format)]
    elif entry.kind == "chat":
        chat = entities[0]
        entry.names = [p.name for p in chat.participants if p.role == "character" and p.name]
    else:
        entry.names = [getattr(e, "name", "") or Path(file).stem for e in entities]
    return entry


def scan_exports(root: Path, *, jobs: int = 1, registry: Registry | None = None) -> Library:
    """Every file of a folder of exports, read for what it is (``jobs`` processes)."""
    from ...host.registry import get_registry
    from ...io.sources import expand_sources
    from .pool import run_pool

    reg = registry or get_registry()
    files = [p.relative_to(root).as_posix() for p in expand_sources([str(root)])]
    sizes = {f: (root / f).stat().st_size for f in files}
    lib = Library(root=root, layout="exports")
    found = {e.file: e for e in run_pool(_identify, files, str(root), jobs, reg,
                                         size=lambda f: sizes[f])}
    lib.exports = [found[f] for f in files]
    for e in lib.exports:
        if e.error:
            lib.problems.append(Problem("unreadable", e.file, e.error))
    lib.problems.extend(place(lib).problems)
    return lib


# -- placing --------------------------------------------------------------------------------------


class _Card:
    def __init__(self, file: str, index: int, name: str, stem: str) -> None:
        self.file, self.index, self.name, self.stem = file, index, name, stem
        self.chats: list[str] = []
        self.world: str | None = None
        self.twins: list[str] = []


@dataclass(slots=True)
class Placement:
    """Where SillyTavern's import puts each file of a folder of exports."""

    cards: list[_Card]
    """Every character, with its SillyTavern file name and chats."""
    orphans: dict[str, list[str]]
    """Chats with no card, by the folder they go to."""
    worlds: dict[str, str]
    """The world name of each book (``<file>#0`` for a card's own)."""
    problems: list[Problem]


def place(lib: Library) -> Placement:
    """Every file of a scanned folder of exports placed as SillyTavern's import would."""
    problems: list[Problem] = []
    cards: list[_Card] = []
    taken: set[str] = set()
    by_hash: dict[str, _Card] = {}
    worlds: dict[str, str] = {}
    world_names: set[str] = set()
    for e in lib.exports:
        if e.kind != "character":
            continue
        digest = hashlib.sha256((lib.root / e.file).read_bytes()).hexdigest()
        if digest in by_hash:
            by_hash[digest].twins.append(e.file)
            problems.append(Problem("duplicate", e.file, f"the same file as "
                                        f"{by_hash[digest].file}: written once"))
            continue
        for i, name in enumerate(e.names):
            stem = unique(sanitize(name) or "untitled", taken, "{name}{n}", 1)
            card = _Card(e.file, i, name, stem)
            if i == 0 and e.book is not None:
                card.world = _world_name(e.book or f"{name}'s Lorebook", world_names)
                worlds[f"{e.file}#{i}"] = card.world
            cards.append(card)
            if i == 0:
                by_hash[digest] = card
    orphans: dict[str, list[str]] = {}
    for e in lib.exports:
        if e.kind != "chat":
            continue
        owner = _owner(e, cards)
        if owner is not None:
            owner.chats.append(e.file)
        else:
            folder = sanitize(e.names[0]) if e.names else sanitize(Path(e.file).stem)
            orphans.setdefault(folder or "untitled", []).append(e.file)
            problems.append(Problem("missing-character", e.file, "a chat whose character "
                                        "is not in the folder: placed under chats/"
                                        f"{folder}/, shown once that character is imported"))
    for e in lib.exports:
        if e.kind == "lorebook":
            worlds[e.file] = _world_name(e.names[0] if e.names else Path(e.file).stem,
                                         world_names)
    return Placement(cards, orphans, worlds, problems)


def _world_name(name: str, used: set[str]) -> str:
    return unique(sanitize(name) or "Lorebook", used, "{name} ({n})")


def _owner(chat: ExportEntry, cards: list[_Card]) -> _Card | None:
    """The card a chat belongs to (see the module's rules); None when none fits."""
    for name in chat.names:
        same = [c for c in cards if c.name.casefold() == name.casefold()]
        if same:
            return same[0]
    path = Path(chat.file)
    hints = [path.stem.casefold(), *(p.casefold() for p in path.parent.parts)]
    for c in sorted(cards, key=lambda c: -len(c.name)):
        keys = {c.name.casefold(), Path(c.file).stem.casefold()}
        if any(h.startswith(k) for h in hints for k in keys if k):
            return c
    return cards[0] if len(cards) == 1 else None

"""The library model: what a user's data folder holds, as paths and links, never as entities.

A library is scanned once (:mod:`.scan`) into these small records: each names its files
relative to the library's root and the links SillyTavern keeps between them (a chat folder to
its card, a world to the cards that use it, a group to its members).  Entities are read only by
the work that needs them (inspecting a card, converting it), one at a time, so a library of any
size costs the memory of its largest file.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

ProblemKind = Literal["missing-character", "unreadable", "duplicate", "broken-link",
                      "unknown-file", "missing-group", "secret"]


def given(**values: Any) -> dict[str, Any]:
    """The values that say something (not None, an empty list or mapping, or zero), for a
    record's JSON."""
    return {k: v for k, v in values.items() if v not in (None, [], {}, 0)}


@dataclass(slots=True)
class Problem:
    """Something wrong with the library as SillyTavern would see it, by the file it concerns."""

    kind: ProblemKind
    path: str
    message: str

    def to_dict(self) -> dict[str, str]:
        return asdict(self)

    def line(self) -> str:
        return f"{self.kind}: {self.path}: {self.message}"


@dataclass(slots=True)
class CharacterEntry:
    """A card in ``characters/`` and what SillyTavern ties to it by its file name."""

    file: str
    """``characters/<avatar>.png``."""
    stem: str
    """The avatar's name as SillyTavern uses it for the chat folder (``.png`` taken out)."""
    size: int = 0
    chats: list[str] = field(default_factory=list)
    """``chats/<stem>/*.jsonl``, in name order."""
    extra_books: list[str] = field(default_factory=list)
    """World names ``world_info.charLore`` adds to this card (by avatar stem)."""
    sprites: list[str] = field(default_factory=list)
    """Image files of the card's expression sprite folder (``characters/<name>/``)."""
    same_as: list[str] = field(default_factory=list)
    """Other cards with the very same bytes: written once, their chats follow this one."""
    name: str | None = None
    """The card's name, once read (``inspect`` reads every card)."""
    world: str | None = None
    """The world the card links (``data.extensions.world``), once read."""
    error: str | None = None
    """Why the card could not be read, once read."""

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.file, "name": self.name, "chats": len(self.chats),
                "chat_files": list(self.chats),
                **given(world=self.world, extra_books=list(self.extra_books),
                        sprites=len(self.sprites), identical_to=list(self.same_as),
                        error=self.error)}


@dataclass(slots=True)
class WorldEntry:
    """A book in ``worlds/``: SillyTavern knows it by its file name."""

    file: str
    name: str
    size: int = 0
    active: bool = False
    """Selected globally (``world_info.globalSelect``)."""
    characters: list[str] = field(default_factory=list)
    """Card files that link it, as their own world or as an extra book."""

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.file, "name": self.name, "global": self.active,
                "characters": list(self.characters)}


@dataclass(slots=True)
class GroupEntry:
    """A group in ``groups/``: its members are card files, its chats ``group chats/<id>``."""

    file: str
    id: str
    name: str
    members: list[str] = field(default_factory=list)
    """Member avatars as the group names them (``Alice.png``)."""
    chats: list[str] = field(default_factory=list)
    """``group chats/<id>.jsonl`` files that exist."""
    missing_members: list[str] = field(default_factory=list)
    missing_chats: list[str] = field(default_factory=list)

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.file, "name": self.name, "members": self.members,
                "chats": len(self.chats), "chat_files": list(self.chats),
                **given(missing_members=self.missing_members)}


@dataclass(slots=True)
class PersonaEntry:
    """A persona of ``settings.json`` (``power_user.personas``) and its avatar image."""

    avatar: str
    name: str
    image: str | None = None
    """``User Avatars/<avatar>`` when the file exists."""
    default: bool = False

    def to_dict(self) -> dict[str, Any]:
        return {"avatar": self.avatar, "name": self.name, "image": self.image,
                "default": self.default}


@dataclass(slots=True)
class ExportEntry:
    """One file of a folder of exports, as the first pass read it."""

    file: str
    size: int = 0
    format: str | None = None
    kind: str | None = None
    names: list[str] = field(default_factory=list)
    """Characters: each character's name (a Voxta package holds several); chats: the chat's
    character as its participants name it; other kinds: the entity's name."""
    book: str | None = None
    """Characters: the name of the book the card carries (empty string: a book without one)."""
    chats: int = 0
    """Characters: chats the file carries (a Backyard archive's scenarios)."""
    parts: list[list[str]] = field(default_factory=list)
    """Presets: ``[type, name]`` of each file SillyTavern keeps for it (:mod:`.presets`)."""
    error: str | None = None
    exit_code: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"file": self.file, **given(**asdict(self))}


@dataclass(slots=True)
class Library:
    """A scanned library: a SillyTavern user-data folder, or a folder of exports."""

    root: Path
    layout: Literal["sillytavern", "exports"]
    characters: list[CharacterEntry] = field(default_factory=list)
    worlds: list[WorldEntry] = field(default_factory=list)
    groups: list[GroupEntry] = field(default_factory=list)
    personas: list[PersonaEntry] = field(default_factory=list)
    persona_images: list[str] = field(default_factory=list)
    """Every image in ``User Avatars/``."""
    regex: int = 0
    """Global regex scripts in ``settings.json`` (``extension_settings.regex``)."""
    quick_replies: list[str] = field(default_factory=list)
    """Quick-reply set files (``QuickReplies/*.json``)."""
    presets: dict[str, list[str]] = field(default_factory=dict)
    """Preset and template files by type (``textgen``, ``instruct``…: :mod:`.presets`)."""
    themes: list[str] = field(default_factory=list)
    other: dict[str, list[str]] = field(default_factory=dict)
    """Folders SillyTavern keeps that no target app imports (backgrounds, thumbnails…)."""
    orphan_chats: dict[str, list[str]] = field(default_factory=dict)
    """Chat folders whose card is missing: folder name -> chat files."""
    orphan_group_chats: list[str] = field(default_factory=list)
    unknown: list[str] = field(default_factory=list)
    """Files bunzai does not know in this layout."""
    secrets: list[str] = field(default_factory=list)
    """Secret files and settings keys holding a secret, by name (never their values)."""
    settings: str | None = None
    """``settings.json`` when the folder has one."""
    sprite_folders: dict[str, list[str]] = field(default_factory=dict)
    """Image files of each folder in ``characters/``, by folder name."""
    exports: list[ExportEntry] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)

    def world(self, name: str) -> WorldEntry | None:
        return next((w for w in self.worlds if w.name == name), None)

    @property
    def chat_count(self) -> int:
        return sum(len(c.chats) for c in self.characters) + sum(
            len(v) for v in self.orphan_chats.values())

    def counts(self) -> dict[str, int]:
        """How many of each thing the library holds."""
        if self.layout == "exports":
            found: dict[str, int] = {"files": len(self.exports)}
            for e in self.exports:
                key = e.kind or "unreadable"
                found[key] = found.get(key, 0) + (len(e.names) if e.kind == "character"
                                                  and e.names else 1)
            return found
        return {"characters": len(self.characters), "chats": self.chat_count,
                "groups": len(self.groups),
                "group_chats": sum(len(g.chats) for g in self.groups)
                + len(self.orphan_group_chats),
                "worlds": len(self.worlds), "personas": len(self.personas),
                "persona_images": len(self.persona_images), "regex": self.regex,
                "quick_replies": len(self.quick_replies),
                "presets": sum(len(v) for v in self.presets.values()),
                "themes": len(self.themes), "unknown": len(self.unknown)}

"""Writing canonical characters as a Voxta package (``.voxpkg``).

Output follows the Voxta server: every member deflated, no directory entries, the zip comment
``Voxta Package``, compact JSON with .NET escapes, ``$type`` first and ``Id`` last, macros as
``{{ char }}`` / ``{{ user }}``.  A character read from a Voxta package is rebuilt from its
passthrough: the same ids, key order, dialect, dates and Voxta settings, so a same-format rewrite
gives back the same JSON bytes; characters read from one package are written back as that package
(its ``package.json``, scenarios and other members included).

A character from another format gets fresh ids (random UUIDs, as Voxta assigns them).  One
character with no book and no asset besides its avatar becomes a character export
(``Characters/<id>/`` only, as the server writes it); otherwise the package gets a
``package.json`` whose entry resource is the first character, as the server writes a package.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from bunzai.containers.media import sniff_media
from bunzai.loss import LossReport
from bunzai.types import OutputFile, WriteResult

from .._common.book import FMT, BookWriter, folder_of
from .._common.character import (
    ASSET_EXTS,
    ASSET_TYPES,
    DATES,
    LISTS,
    ORDER,
    TEXTS,
    THUMBNAIL_TYPES,
    VISUAL,
)
from .._common.jsonfmt import DOTNET, dumps
from .._common.macros import card_survives, to_card
from .._common.package import COMMENT, THUMBNAIL, assemble, build_zip, package_json
from .._common.util import ABSENT, format_time, lookup, new_id, ordered, put, sub
from .read import rebuild_date, rebuild_list, rebuild_text, rebuild_visual

if TYPE_CHECKING:
    from bunzai.model import Asset, Character

SUFFIX = ".voxpkg"
MACROS = ("the text spells a macro Voxta writes differently ({{ char }}, {{ user }}), so it "
          "reads back in the card spelling")
PACKAGE_ORDER = ("$type", "Description", "Creator", "ExplicitContent", "EntryResource",
                 "ThumbnailResource", "Name", "Version", "DateCreated", "DateModified", "Id")
MEDIA_EXT = {"image/png": "png", "image/jpeg": "jpg", "image/webp": "webp", "image/avif": "avif",
             "video/webm": "webm", "video/mp4": "mp4", "audio/mpeg": "mp3", "audio/wav": "wav",
             "audio/x-wav": "wav", "audio/ogg": "ogg"}
_UNSAFE = re.compile(r"[^\w .-]+")
CARD_ONLY = (
    ("nickname", "Voxta has no nickname: {{ char }} is the Name"),
    ("creator_notes_multilingual", "Voxta has creator notes in one language only"),
    ("group_only_greetings", "Voxta has no group-only greetings"),
    ("source", "Voxta has no source list"),
    ("regex_scripts", "Voxta has no regex scripts"),
    ("triggers", "Voxta has no RisuAI trigger scripts"),
)


def _pt(ch: Any) -> dict[str, Any]:
    value = ch.passthrough.get(FMT)
    return value if isinstance(value, dict) else {}


def _sha(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()[:16]


def write_package(entities: Sequence[Character], options: Mapping[str, Any]) -> WriteResult:
    builder = _Builder(list(entities))
    data = builder.build()
    loss = LossReport()
    many = len(entities) > 1
    for i, report in enumerate(builder.losses):
        loss.extend(report, f"[{i}]." if many else "")
    return WriteResult([OutputFile(data, SUFFIX)], loss, builder.warnings)


class _Builder:
    """One package from one or more characters."""

    def __init__(self, entities: list[Character]) -> None:
        self.entities = entities
        self.losses = [LossReport() for _ in entities]
        self.warnings: list[str] = []
        shareds = [_pt(e).get("shared") for e in entities]
        first = shareds[0]
        self.shared: dict[str, Any] | None = first if (
            isinstance(first, dict) and first.get("key")
            and all(isinstance(s, dict) and s.get("key") == first["key"] for s in shareds)
        ) else None
        self.produced: dict[str, bytes] = {}
        self.ids: list[str] = []

    # -- the package -----------------------------------------------------------------------

    def build(self) -> bytes:
        ids = self.ids = self._ids()
        source_package = package_json(self.shared)
        new_package = self.shared is None and self._needs_package()
        package_id: str | None = None
        if source_package is not None:
            raw_id = source_package[0].get("Id")
            package_id = raw_id if isinstance(raw_id, str) else None
        elif new_package:
            package_id = new_id()
        books = BookWriter(package_id if new_package else None, self.warnings)
        characters: list[tuple[str, bytes, list[tuple[str, bytes]]]] = []
        thumbs: list[bool] = []
        for i, (ch, cid) in enumerate(zip(self.entities, ids, strict=True)):
            obj, style, files = self._character(ch, cid, books, package_id if new_package
                                                else None, self.losses[i])
            path = self._path(ch, cid)
            characters.append((path, dumps(obj, style), files))
            thumbs.append(any(THUMBNAIL.match(p.rsplit("/", 1)[-1]) for p, _ in files))
        if source_package is not None:
            value, style = source_package
            self.produced["package.json"] = dumps(value, style or DOTNET)
        elif new_package and package_id:
            self.produced["package.json"] = dumps(self._new_package(ids[0], package_id,
                                                                    thumbs[0]))
        for path, data, files in characters:
            self.produced[path] = data
            self.produced.update(files)
        for obj, style, path in books.books.values():
            self.produced[path] = dumps(obj, style)
        extra = self._carried()
        entries = assemble(self.shared or self._carried_layout(), extra, self.produced)
        comment = self.shared.get("comment", COMMENT) if self.shared else COMMENT
        data = build_zip(entries, dirs=bool(self.shared and self.shared.get("dirs")),
                         comment=comment)
        self._check(data)
        return data

    def _carried_layout(self) -> dict[str, Any] | None:
        """Where carried members go when the package is new: after everything else."""
        carried: dict[str, Any] = {}
        for e in self.entities:
            shared = _pt(e).get("shared")
            if isinstance(shared, dict) and isinstance(shared.get("carried"), dict):
                carried.update(shared["carried"])
        if not carried:
            return None
        return {"names": [*self.produced, *carried], "carried": carried}

    def _carried(self) -> dict[str, Any]:
        """Package members the entities keep (scenarios, unlinked books, …), by member path."""
        out: dict[str, Any] = {}
        for e in self.entities:
            pt = _pt(e)
            shared = pt.get("shared")
            extra = pt.get("extra")
            if not isinstance(shared, dict) or not isinstance(extra, dict):
                continue
            carried = shared.get("carried")
            if isinstance(carried, dict):
                out.update((k, v) for k, v in extra.items() if k in carried and k not in out)
        return out

    def _needs_package(self) -> bool:
        if len(self.entities) > 1:
            return True
        ch = self.entities[0]
        if ch.lorebook is not None and ch.lorebook.entries:
            return True
        return sum(1 for a in ch.assets if a.data is not None) > 1

    def _new_package(self, cid: str, package_id: str, thumb: bool) -> dict[str, Any]:
        """A ``package.json`` as the server writes one, its entry being the first character."""
        ch = self.entities[0]
        obj: dict[str, Any] = {"$type": "package"}
        if ch.creator:
            obj["Creator"] = ch.creator
        obj["ExplicitContent"] = any(_explicit(e) for e in self.entities)
        obj["EntryResource"] = {"Kind": 1, "Id": cid}
        if thumb:
            obj["ThumbnailResource"] = {"Kind": 1, "Id": cid}
        obj["Name"] = ch.name or "Voxta package"
        obj["Version"] = ch.character_version or "1.0.0"
        for key, seconds in (("DateCreated", ch.creation_date),
                             ("DateModified", ch.modification_date)):
            if seconds is not None:
                obj[key] = format_time(seconds)
        obj["Id"] = package_id
        return ordered(obj, None, PACKAGE_ORDER)

    def _ids(self) -> list[str]:
        out: list[str] = []
        for ch in self.entities:
            folder = _pt(ch).get("folder")
            out.append(folder if isinstance(folder, str) and folder and folder not in out
                       else new_id())
        return out

    def _path(self, ch: Character, cid: str) -> str:
        stored = _pt(ch).get("path")
        if isinstance(stored, str) and stored.startswith(f"Characters/{cid}/"):
            return stored
        return f"Characters/{cid}/character.json"

    # -- one character ---------------------------------------------------------------------

    def _character(self, ch: Character, cid: str, books: BookWriter, package_id: str | None,
                   loss: LossReport) -> tuple[dict[str, Any], str, list[tuple[str, bytes]]]:
        pt = _pt(ch)
        rest = pt.get("rest") if isinstance(pt.get("rest"), dict) else None
        g = pt.get("guards") if isinstance(pt.get("guards"), dict) else None
        carried = sub(sub(pt, "shared"), "carried")
        obj: dict[str, Any] = dict(rest) if rest is not None else {"$type": "character"}
        extra = pt.get("extra")
        if isinstance(extra, dict):
            obj.update((k, v) for k, v in extra.items() if k not in carried)
        if rest is None:
            obj["ExplicitContent"] = _explicit(ch)
        if package_id:
            obj["PackageId"] = package_id

        for t in TEXTS:
            value = getattr(ch, t.field)
            hit, raw = lookup(g, t.key, value)
            if not hit:
                raw = rebuild_text(t, value)
                if t.examples and isinstance(raw, str) and to_card(raw) != value \
                        and card_survives(value):
                    loss.approximated(t.field, "Voxta separates example dialogues with a blank "
                                      "line; it has no <START> marker")
                elif t.macros and not card_survives(value):
                    loss.approximated(t.field, MACROS)
            put(obj, t.key, raw)
        for key, name, macros in LISTS:
            values = getattr(ch, name)
            hit, raw = lookup(g, key, values)
            if not hit:
                raw = rebuild_list(values, macros)
                if macros and not all(card_survives(v) for v in values):
                    loss.approximated(name, MACROS)
            put(obj, key, raw)
        for key, name in DATES:
            seconds = getattr(ch, name)
            hit, raw = lookup(g, key, seconds)
            put(obj, key, raw if hit else rebuild_date(seconds))
        self._visual(ch, obj, g, loss)
        for field, why in CARD_ONLY:
            if getattr(ch, field):
                loss.dropped(field, why)

        linked = books.write(ch.lorebook, loss, "lorebook", default_name=ch.name)
        self._memory_books(obj, rest, pt, linked)
        files, thumb = self._assets(ch, cid, loss)
        self._thumbnail(obj, rest, pt, thumb)
        if rest is None or pt.get("folder") != cid or "Id" not in obj:
            obj["Id"] = cid
        style = str(pt.get("style") or DOTNET)
        return ordered(obj, pt.get("order") if rest is not None else None, ORDER), style, files

    def _visual(self, ch: Character, obj: dict[str, Any], g: dict[str, Any] | None,
                loss: LossReport) -> None:
        """Voxta's Description (appearance) from ``extensions.visual_description``."""
        value = ch.extensions.get(VISUAL)
        hit, raw = lookup(g, "Description", value)
        if not hit:
            raw = rebuild_visual(value)
            if isinstance(value, str) and not card_survives(value):
                loss.approximated(f"extensions.{VISUAL}", MACROS)
        put(obj, "Description", raw)
        for key, item in ch.extensions.items():
            if key != VISUAL or not isinstance(item, str):
                loss.dropped(f"extensions.{key}", "Voxta characters hold no extension data")

    def _memory_books(self, obj: dict[str, Any], rest: dict[str, Any] | None,
                      pt: dict[str, Any], linked: list[str]) -> None:
        source = rest.get("MemoryBooks", ABSENT) if rest is not None else ABSENT
        found = [folder_of(p) for p in pt.get("linked", []) if isinstance(p, str)]
        if isinstance(source, list) and linked == found:
            obj["MemoryBooks"] = source  # unchanged: links to books not in the package stay
        elif isinstance(source, list):
            obj["MemoryBooks"] = linked + [x for x in source
                                           if x not in found and x not in linked]
        elif linked:
            obj["MemoryBooks"] = linked
        else:
            obj.pop("MemoryBooks", None)

    def _thumbnail(self, obj: dict[str, Any], rest: dict[str, Any] | None, pt: dict[str, Any],
                   thumb: tuple[str, bytes] | None) -> None:
        source = rest.get("Thumbnail") if rest is not None else None
        if thumb is None:
            if pt.get("thumb"):  # the avatar was removed: so is its descriptor
                obj.pop("Thumbnail", None)
            return
        media, data = thumb
        if isinstance(source, dict):
            desc = dict(source)
            if pt.get("thumb") != _sha(data) and desc.get("ContentType") != media:
                desc["ContentType"] = media
            obj["Thumbnail"] = desc
        elif rest is None or not pt.get("thumb"):  # the source had no thumbnail to describe
            obj["Thumbnail"] = {"ETag": 1, "ContentType": media}

    def _assets(self, ch: Character, cid: str, loss: LossReport
                ) -> tuple[list[tuple[str, bytes]], tuple[str, bytes] | None]:
        """The character's files: the avatar as ``thumbnail.<ext>``, other assets under
        ``Assets/`` (or where a Voxta package had them)."""
        prefix = f"Characters/{cid}/"
        files: list[tuple[str, bytes]] = []
        used: set[str] = set()
        thumb: tuple[str, bytes] | None = None
        main = _main_icon(ch.assets)
        for i, asset in enumerate(ch.assets):
            if asset.data is None:
                loss.dropped(f"assets[{i}]", "a remote file; a Voxta package holds its files")
                continue
            media, _ = sniff_media(asset.data)
            if i == main:
                ext = THUMBNAIL_TYPES.get(media)
                if ext is None:
                    loss.dropped(f"assets[{i}]", f"the avatar is {media}; a Voxta thumbnail is "
                                 "PNG, JPEG, WebP or AVIF")
                    continue
                path = _keep(asset.origin, prefix, used, thumbnail=True) or \
                    f"{prefix}thumbnail.{ext}"
                thumb = (media, asset.data)
            else:
                ext = MEDIA_EXT.get(media) or (asset.ext or "").lower()
                if media not in ASSET_TYPES and ext not in ASSET_EXTS:
                    loss.dropped(f"assets[{i}]", f"a {media} file; Voxta's asset system does not "
                                 "take this type")
                    continue
                folder = "Assets/Avatars/Default/" if asset.type in ("icon", "emotion") \
                    else "Assets/"
                path = _keep(asset.origin, prefix, used) or _free(
                    f"{prefix}{folder}", _UNSAFE.sub("_", asset.name).strip(" .") or "asset",
                    ext, used)
            used.add(path)
            files.append((path, asset.data))
        return files, thumb

    # -- honesty -------------------------------------------------------------------------

    def _check(self, data: bytes) -> None:
        """Read the package back and report every canonical difference not yet reported."""
        from bunzai.compare import diff_paths
        from bunzai.input import AdapterInput

        from .read import read_package

        back = {(_pt(e).get("folder")): e
                for e in read_package(AdapterInput(data, "check.voxpkg"), {}).entities}
        for i, (ch, cid) in enumerate(zip(self.entities, self.ids, strict=True)):
            loss = self.losses[i]
            again = back.get(cid)
            if again is None:
                loss.dropped("$", "the character could not be written")
                continue
            for path in diff_paths(ch, again):
                if not loss.covers(path):
                    loss.approximated(path, _why(path))


def _why(path: str) -> str:
    if path.endswith(".origin"):
        return "now names the file's place in the package"
    if path.endswith(".uri"):
        return "Voxta refers to files by their place in the package"
    if path.endswith(".ext"):
        return "the file name's extension follows the bytes"
    if path.endswith(".type"):
        return "Voxta files carry no type: the thumbnail is the avatar, Assets/Avatars/ holds "\
            "avatar images, everything else reads back as other"
    if path.endswith(".name"):
        return "Voxta names files by their file name"
    if path.startswith("assets"):
        return "the avatar is written first, as the package's thumbnail"
    return "Voxta cannot hold this value exactly"


def _explicit(ch: Character) -> bool:
    return any(t.strip().lower() == "nsfw" for t in ch.tags)


def _main_icon(assets: list[Asset]) -> int | None:
    icons = [i for i, a in enumerate(assets) if a.type == "icon" and a.data is not None]
    named = [i for i in icons if assets[i].name == "main"]
    return (named or icons)[0] if icons else None


def _keep(origin: str | None, prefix: str, used: set[str], thumbnail: bool = False
          ) -> str | None:
    """The asset's place in a Voxta package it came from, moved to this character's folder."""
    if not origin or not origin.startswith("Characters/"):
        return None
    parts = origin.split("/", 2)
    if len(parts) < 3:
        return None
    rel = parts[2]
    if thumbnail != bool(THUMBNAIL.match(rel)):
        return None
    path = prefix + rel
    return None if path in used else path


def _free(folder: str, stem: str, ext: str, used: set[str]) -> str:
    path = f"{folder}{stem}.{ext}" if ext else f"{folder}{stem}"
    k = 2
    while path in used:
        path = f"{folder}{stem}-{k}.{ext}" if ext else f"{folder}{stem}-{k}"
        k += 1
    return path

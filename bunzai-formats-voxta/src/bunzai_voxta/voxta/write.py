"""Writing canonical characters as a Voxta package (``.voxpkg``).

Output follows the Voxta server: every member deflated, no directory entries, the zip comment
``Voxta Package``, compact JSON with .NET escapes, ``$type`` first and ``Id`` last, macros as
``{{ char }}`` / ``{{ user }}``.  A character's Voxta settings come from ``extensions.voxta``
(Character Foundry's layout: a Voxta read puts them there, and so does Character Foundry's
``voxtaToCCv3``), so a card made from a Voxta character brings its voice back.  A character read
from a Voxta package is rebuilt from its layout and those settings: the same ids, key order,
dialect and dates, so a same-format rewrite gives back the same JSON bytes; characters read from
one package are written back as that package (its ``package.json``, scenarios and other members
included).

The loss report names what reads back differently, known from what was written (the package's
member order decides the assets and which character holds the other members): the writer never
reads the package back.

A character from another format gets fresh ids (random UUIDs, as Voxta assigns them), unless
its ``extensions.voxta`` names the Voxta character it was made from.  One
character with no book and no asset besides its avatar becomes a character export
(``Characters/<id>/`` only, as the server writes it); otherwise the package gets a
``package.json`` whose entry resource is the first character, as the server writes a package.
"""

from __future__ import annotations

import hashlib
import re
import uuid
from collections.abc import Mapping, Sequence
from functools import cache
from typing import TYPE_CHECKING, Any

from bunzai.sdk import LossReport, OutputFile, WriteResult, sniff_media
from bunzai.sdk.fields import same

from .._common.book import BookWriter, folder_of
from .._common.character import (
    ASSET_EXTS,
    ASSET_TYPES,
    CHARACTER,
    DATES,
    ECHOES,
    EXAMPLE_START,
    MACROS,
    ORDER,
    THUMBNAIL_TYPES,
    VISUAL,
    VOXTA,
    explicit,
    from_extension,
)
from .._common.jsonfmt import DOTNET, dumps
from .._common.macros import card_survives
from .._common.package import (
    PACKAGE_ORDER,
    SUFFIX,
    THUMBNAIL,
    is_member,
    pack,
    shared_layout,
    source_package_json,
)
from .._common.util import ABSENT, format_time, new_id, ordered

if TYPE_CHECKING:
    from bunzai.sdk import Asset, Character, Neutrality

MEDIA_EXT = {"image/png": "png", "image/jpeg": "jpg", "image/webp": "webp", "image/avif": "avif",
             "video/webm": "webm", "video/mp4": "mp4", "audio/mpeg": "mp3", "audio/wav": "wav",
             "audio/x-wav": "wav", "audio/ogg": "ogg"}
_UNSAFE = re.compile(r"[^\w .-]+")
@cache
def neutral_values() -> Neutrality:
    """Core's neutral values and this format's own (Voxta's settings for a new character)."""
    from bunzai.sdk import Neutrality

    from . import VoxtaAdapter
    return Neutrality(VoxtaAdapter.neutral)


def _layout(ch: Any, fmt: str) -> dict[str, Any]:
    value = ch.passthrough.get(fmt)
    return value if isinstance(value, dict) else {}


def _data(ch: Any, fmt: str) -> dict[str, Any]:
    value = ch.app_data.get(fmt)
    return value if isinstance(value, dict) else {}


def _ext_id(ch: Any, name: str) -> str | None:
    """An id ``extensions.voxta`` gives (a card made from a Voxta character), if it is a GUID."""
    ext = ch.extensions.get(VOXTA)
    value = ext.get(name) if isinstance(ext, dict) else None
    if not isinstance(value, str):
        return None
    try:
        uuid.UUID(value)
    except ValueError:
        return None
    return value


def _sha(data: bytes) -> str:
    return hashlib.sha1(data).hexdigest()[:16]


def write_package(entities: Sequence[Character], options: Mapping[str, Any], format_id: str
                  ) -> WriteResult:
    builder = _Builder(list(entities), format_id)
    data = builder.build()
    loss = LossReport()
    many = len(entities) > 1
    for i, report in enumerate(builder.losses):
        loss.extend(report, f"[{i}]." if many else "")
    return WriteResult([OutputFile(data, SUFFIX)], loss, builder.warnings)


class _Builder:
    """One package from one or more characters."""

    def __init__(self, entities: list[Character], fmt: str) -> None:
        self.entities = entities
        self.fmt = fmt
        self.losses = [LossReport() for _ in entities]
        self.warnings: list[str] = []
        self.sources: list[dict[str, int]] = [{} for _ in entities]
        """Per character: the asset index each of its files was written from, by member."""
        self.shared = shared_layout(entities, fmt)
        self.produced: dict[str, bytes] = {}
        self.ids: list[str] = []

    # -- the package -----------------------------------------------------------------------

    def build(self) -> bytes:
        ids = self.ids = self._ids()
        source_package = source_package_json(self.shared)
        new_package = self.shared is None and self._needs_package()
        package_id: str | None = None
        if source_package is not None:
            raw_id = source_package[0]
            package_id = raw_id if isinstance(raw_id, str) else None
        elif new_package:
            package_id = _ext_id(self.entities[0], "packageId") or new_id()
        books = BookWriter(package_id if new_package else None, self.warnings, self.fmt,
                           neutral_values())
        characters: list[tuple[str, bytes, list[tuple[str, bytes]]]] = []
        thumbs: list[bool] = []
        for i, (ch, cid) in enumerate(zip(self.entities, ids, strict=True)):
            obj, style, files = self._character(i, ch, cid, books, package_id if new_package
                                                else None, self.losses[i])
            path = self._path(ch, cid)
            characters.append((path, dumps(obj, style), files))
            thumbs.append(any(THUMBNAIL.match(p.rsplit("/", 1)[-1]) for p, _ in files))
        if source_package is not None:
            self.produced["package.json"] = source_package[1]
        elif new_package and package_id:
            self.produced["package.json"] = dumps(self._new_package(ids[0], package_id,
                                                                    thumbs[0]))
        for path, data, files in characters:
            self.produced[path] = data
            self.produced.update(files)
        for obj, style, path in books.books.values():
            self.produced[path] = dumps(obj, style)
        data, names, kept = pack(self.shared, self.produced, self.entities, self.fmt,
                                 [path for path, _, _ in characters])
        self._report(names, kept)
        return data

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
        obj["ExplicitContent"] = any(explicit(e.tags) for e in self.entities)
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
            folder = _layout(ch, self.fmt).get("folder")
            if not (isinstance(folder, str) and folder) and not _layout(ch, self.fmt):
                folder = _ext_id(ch, "id")  # a card that keeps its Voxta id goes back to it
            out.append(folder if isinstance(folder, str) and folder and folder not in out
                       else new_id())
        return out

    def _path(self, ch: Character, cid: str) -> str:
        stored = _layout(ch, self.fmt).get("path")
        if isinstance(stored, str) and stored.startswith(f"Characters/{cid}/"):
            return stored
        return f"Characters/{cid}/character.json"

    # -- one character ---------------------------------------------------------------------

    def _character(self, i: int, ch: Character, cid: str, books: BookWriter,
                   package_id: str | None, loss: LossReport
                   ) -> tuple[dict[str, Any], str, list[tuple[str, bytes]]]:
        layout = _layout(ch, self.fmt)
        rest = layout.get("rest") if isinstance(layout.get("rest"), dict) else None
        obj: dict[str, Any] = dict(rest) if rest is not None else {"$type": "character"}
        if "ExplicitContent" in obj or rest is None:
            obj["ExplicitContent"] = explicit(ch.tags)
        extra = {k: v for k, v in _data(ch, self.fmt).items() if not is_member(k)}
        obj.update(extra)
        kept = self._settings(obj, ch, loss)
        if package_id:
            obj["PackageId"] = package_id
        elif rest is None and _ext_id(ch, "packageId"):
            obj["PackageId"] = kept["PackageId"]

        record = layout.get("fields")
        if not isinstance(record, dict) and rest is None:
            # a card from a Voxta character: the dates' text, while they are the card's dates
            record = {"raw": {k: kept[k] for k in DATES if isinstance(kept.get(k), str)}}
        obj.update(self._fields(ch, record if isinstance(record, dict) else None, loss))

        linked = books.write(ch.lorebook, loss, "lorebook", default_name=ch.name)
        self._memory_books(obj, rest, layout, linked)
        files, thumb = self._assets(i, ch, cid, loss)
        self._thumbnail(obj, rest, layout, thumb)
        if rest is None or layout.get("folder") != cid or "Id" not in obj:
            obj["Id"] = cid
        style = str(layout.get("style") or DOTNET)
        obj = ordered(obj, layout.get("order") if rest is not None else None, ORDER)
        return obj, style, files

    @staticmethod
    def _settings(obj: dict[str, Any], ch: Character, loss: LossReport) -> dict[str, Any]:
        """Put the character's ``extensions.voxta`` settings into ``obj`` (Character Foundry's
        mapping), report what has no place, and give back its ids and dates' text."""
        if VOXTA not in ch.extensions:
            return {}
        ext = ch.extensions[VOXTA]
        settings, kept, lost = from_extension(ext)
        obj.update(settings)
        neutral = neutral_values()
        base = f"extensions.{VOXTA}"
        for path, value, why in lost:
            where = f"{base}.{path}" if path else base
            if not neutral.neutral(where, value):
                loss.dropped(where, why)
        for name, field_path in ECHOES.items():
            value = ext.get(name) if isinstance(ext, dict) else None
            card = ch.nickname if name == "label" else ch.extensions.get(VISUAL)
            if not isinstance(value, str) or not value:
                continue
            if value == card:  # the same text, kept once: where it reads back
                loss.approximated(f"{base}.{name}", f"read back as {field_path} only")
            else:
                loss.dropped(f"{base}.{name}", f"Voxta's is written from {field_path}")
        return kept

    @staticmethod
    def _fields(ch: Character, record: dict[str, Any] | None, loss: LossReport
                ) -> dict[str, Any]:
        """The keys the canonical model names, each value's original while it is unchanged;
        what reads back differently is reported."""

        def get(attr: str) -> Any:
            if attr == VISUAL:  # no visual description is an empty Description
                value = ch.extensions.get(VISUAL)
                return "" if value is None else value
            return getattr(ch, attr)

        if record and ch.extensions.get(VISUAL) == "":
            # an empty visual description stated on the entity is an edit: what was recorded
            # of the Description read when there was none (absent, or null) does not apply
            record = {"raw": {k: v for k, v in (record.get("raw") or {}).items()
                              if k != "Description"},
                      "absent": [a for a in record.get("absent") or () if a != VISUAL]}
        out = CHARACTER.write(get, record)
        back = CHARACTER.reads_as(out)
        for attr in CHARACTER.attrs():
            value = get(attr)
            if attr == VISUAL:
                path = f"extensions.{VISUAL}"
                if isinstance(value, str) and not same(back[attr], value):
                    loss.approximated(path, MACROS)
                elif not isinstance(value, str) and value not in ([], {}):
                    loss.dropped(path, "Voxta's Description is a text")
            elif not same(back[attr], value):
                if attr in ("creation_date", "modification_date"):
                    loss.approximated(attr, "Voxta cannot write this date")
                elif attr == "mes_example" and card_survives(value):
                    loss.approximated(attr, EXAMPLE_START)
                else:
                    loss.approximated(attr, MACROS)
        return out

    def _memory_books(self, obj: dict[str, Any], rest: dict[str, Any] | None,
                      layout: dict[str, Any], linked: list[str]) -> None:
        source = rest.get("MemoryBooks", ABSENT) if rest is not None else ABSENT
        found = [folder_of(p) for p in layout.get("linked", []) if isinstance(p, str)]
        if isinstance(source, list) and linked == found:
            obj["MemoryBooks"] = source  # unchanged: links to books not in the package stay
        elif isinstance(source, list):
            obj["MemoryBooks"] = linked + [x for x in source
                                           if x not in found and x not in linked]
        elif linked:
            obj["MemoryBooks"] = linked
        else:
            obj.pop("MemoryBooks", None)

    def _thumbnail(self, obj: dict[str, Any], rest: dict[str, Any] | None, layout: dict[str, Any],
                   thumb: tuple[str, bytes] | None) -> None:
        source = rest.get("Thumbnail") if rest is not None else None
        if thumb is None:
            if layout.get("thumb"):  # the avatar was removed: so is its descriptor
                obj.pop("Thumbnail", None)
            return
        media, data = thumb
        if isinstance(source, dict):
            desc = dict(source)
            if layout.get("thumb") != _sha(data) and desc.get("ContentType") != media:
                desc["ContentType"] = media
            obj["Thumbnail"] = desc
        elif rest is None or not layout.get("thumb"):  # the source had no thumbnail to describe
            obj["Thumbnail"] = {"ETag": 1, "ContentType": media}

    def _assets(self, i: int, ch: Character, cid: str, loss: LossReport
                ) -> tuple[list[tuple[str, bytes]], tuple[str, bytes] | None]:
        """The character's files: the avatar as ``thumbnail.<ext>``, other assets under
        ``Assets/`` (or where a Voxta package had them)."""
        prefix = f"Characters/{cid}/"
        files: list[tuple[str, bytes]] = []
        used: set[str] = set()
        thumb: tuple[str, bytes] | None = None
        main = _main_icon(ch.assets)
        for k, asset in enumerate(ch.assets):
            if asset.data is None:
                loss.dropped(f"assets[{k}]", "a remote file; a Voxta package holds its files")
                continue
            media, _ = sniff_media(asset.data)
            if k == main:
                ext = THUMBNAIL_TYPES.get(media)
                if ext is None:
                    loss.dropped(f"assets[{k}]", f"the avatar is {media}; a Voxta thumbnail is "
                                 "PNG, JPEG, WebP or AVIF")
                    continue
                path = _keep(asset.origin, prefix, used, thumbnail=True) or \
                    f"{prefix}thumbnail.{ext}"
                thumb = (media, asset.data)
            else:
                ext = MEDIA_EXT.get(media) or (asset.ext or "").lower()
                if media not in ASSET_TYPES and ext not in ASSET_EXTS:
                    loss.dropped(f"assets[{k}]", f"a {media} file; Voxta's asset system does not "
                                 "take this type")
                    continue
                folder = "Assets/Avatars/Default/" if asset.type in ("icon", "emotion") \
                    else "Assets/"
                path = _keep(asset.origin, prefix, used) or _free(
                    f"{prefix}{folder}", _UNSAFE.sub("_", asset.name).strip(" .") or "asset",
                    ext, used)
            used.add(path)
            files.append((path, asset.data))
            self.sources[i][path] = k
        return files, thumb

    # -- what reads back differently ---------------------------------------------------------

    def _report(self, names: list[str], carried: set[str]) -> None:
        """Report, from the members written in their order (``carried``: those the characters
        carried), what reading the package gives differently: each character's assets and the
        package members it holds."""
        for i, (ch, cid) in enumerate(zip(self.entities, self.ids, strict=True)):
            self._report_assets(i, ch, cid, names)
            self._report_data(i, ch)
        for i, ch in enumerate(self.entities):
            mine = {k for k in _data(ch, self.fmt) if is_member(k)}
            kept = carried if i == 0 else set()
            for key in sorted(mine ^ kept):
                why = ("a package's other members are read with its first character" if key in
                       kept else "the package's other members go with its first character")
                self.losses[i].approximated(f"app_data.{self.fmt}.{key}", why)

    def _report_assets(self, i: int, ch: Character, cid: str, names: list[str]) -> None:
        prefix = f"Characters/{cid}/"
        files = [n for n in names if n.startswith(prefix) and n != prefix + "character.json"]
        thumbs = [p for p in files if THUMBNAIL.match(p[len(prefix):])]
        order = thumbs[:1] + [p for p in files if p not in thumbs[:1]]
        back: list[tuple[int | None, str, str]] = []
        for path in order:
            rel = path[len(prefix):]
            stem, dot, _ = rel.rsplit("/", 1)[-1].rpartition(".")
            name = stem if dot else rel.rsplit("/", 1)[-1]
            if thumbs and path == thumbs[0]:
                kind, name = "icon", "main"
            else:
                kind = "emotion" if rel.startswith("Assets/Avatars/") else "other"
            back.append((self.sources[i].get(path), kind, name))
        loss = self.losses[i]
        for k, asset in enumerate(ch.assets):
            if loss.covers(f"assets[{k}]"):
                continue
            # where it reads back is layout (the avatar comes first, as the thumbnail)
            got = next((b for b in back if b[0] == k), None)
            if got is None:
                loss.dropped(f"assets[{k}]", "not written into the package")
                continue
            if got[1] != asset.type:
                loss.approximated(f"assets[{k}].type", "Voxta files carry no type: the "
                                  "thumbnail is the avatar, Assets/Avatars/ holds avatar images, "
                                  "everything else reads back as other")
            neutral = neutral_values()
            if got[2] != asset.name and not (
                    neutral.neutral("assets[*].name", asset.name, asset)
                    and neutral.neutral("assets[*].name", got[2], asset)):
                loss.approximated(f"assets[{k}].name", "Voxta names files by their file name")

    def _report_data(self, i: int, ch: Character) -> None:
        """Voxta settings kept in app data (canonical files from before they moved to
        ``extensions.voxta``) are written, and read back in their new place."""
        neutral = neutral_values()
        for key, value in _data(ch, self.fmt).items():
            path = f"app_data.{self.fmt}.{key}"
            if not is_member(key) and not neutral.neutral(path, value):
                self.losses[i].approximated(path, f"read back as extensions.{VOXTA}")


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

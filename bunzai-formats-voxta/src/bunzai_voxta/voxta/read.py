"""Reading a Voxta package's characters into canonical characters.

Each ``Characters/<id>/character.json`` is one character; the memory books its ``MemoryBooks``
links become its lorebook; ``thumbnail.<ext>`` beside it is its avatar (asset ``main``) and the
files under its ``Assets/`` folder its other assets.  Its Voxta settings go to
``extensions.voxta`` in Character Foundry's layout (see ``_common/character.py``).  The package
members no character holds (scenarios, books no character links, other files) are user data in
``app_data["voxta"]``, by member path, with the first character.  The package's layout (member
order, ``package.json``, the comment) is kept in ``passthrough``, so the characters of one
package are written back as that package.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from bunzai.sdk import Issue, MalformedInput, ReadResult, UnsupportedInput, sniff_media

from .._common.book import read_books, split_rest
from .._common.character import (
    CHARACTER,
    LAYOUT,
    MAPPED,
    VISUAL,
    VOXTA,
    explicit,
    to_extension,
)
from .._common.package import (
    BOOK_JSON,
    CHARACTER_JSON,
    THUMBNAIL,
    JsonMember,
    Package,
    open_package,
    scenario_issue,
    shared_record,
    where,
)
from .._common.util import as_texts

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput, Asset, Character
    from bunzai.sdk.zip import SafeZip


def scenario_only(pkg: Package) -> UnsupportedInput:
    """The refusal for a package that holds scenarios and no character."""
    names = []
    cast: list[str] = []
    for member in pkg.scenarios:
        name = member.value.get("Name")
        names.append(repr(name) if isinstance(name, str) and name else member.path)
        roles = member.value.get("Roles")
        for role in roles if isinstance(roles, list) else []:
            cid = role.get("DefaultCharacterId") if isinstance(role, Mapping) else None
            if isinstance(cid, str) and cid and cid not in cast:
                cast.append(cid)
    who = (f"casts {len(cast)} character(s) ({', '.join(cast)}) that are not included"
           if cast else "names no character and includes none")
    return UnsupportedInput(
        f"a scenario-only Voxta package: scenario {', '.join(names)} {who}; bunzai converts the "
        "characters and memory books of a package, so export the scenario together with its "
        "characters from Voxta")


def read_package(input: AdapterInput, options: Mapping[str, Any], format_id: str
                 ) -> ReadResult:
    z, pkg, warnings = open_package(input, CHARACTER_JSON)
    if not pkg.characters:
        if pkg.scenarios:
            raise scenario_only(pkg)
        if pkg.books:
            raise MalformedInput("a Voxta package of memory books without a character; read it "
                                 "as voxta-lorebook")
        raise MalformedInput("not a Voxta character package: no Characters/<id>/character.json")

    consumed: set[str] = set()
    linked_books: list[list[JsonMember]] = []
    for folder, member in pkg.characters:
        consumed.add(member.path)
        consumed.update(pkg.character_files(folder))
        found = _linked(pkg, member, warnings)
        consumed.update(b.path for b in found)
        linked_books.append(found)
    shared, carried = shared_record(input, z, pkg, consumed)

    entities: list[Character] = []
    for index, ((folder, member), books) in enumerate(zip(pkg.characters, linked_books,
                                                          strict=True)):
        entities.append(_character(z, format_id, pkg, folder, member, books, shared,
                                   carried if index == 0 else {}, warnings))
    for member in pkg.scenarios:
        if member.path not in consumed:
            warnings.append(scenario_issue(member.path))
    if len(entities) > 1:
        warnings.append(Issue("$", f"{len(entities)} characters in one package: read as one "
                              "character each"))
    return ReadResult(list(entities), warnings)


def _linked(pkg: Package, member: JsonMember, warnings: list[Issue]) -> list[JsonMember]:
    """The books a character links that the package holds, in link order."""
    w = where(member.path)
    ids = as_texts(member.value.get("MemoryBooks"))
    found: list[JsonMember] = []
    for i, book_id in enumerate(ids):
        book = pkg.books.get(book_id)
        if book is None:
            why = ("is broken" if any(BOOK_JSON.match(p) and p.split("/")[1] == book_id
                                      for p in pkg.broken) else "is not in the package")
            warnings.append(Issue(f"{w}.MemoryBooks[{i}]", f"memory book {book_id} {why}; the "
                                  "link is kept"))
        elif book not in found:
            found.append(book)
    return found


def _character(z: SafeZip, fmt: str, pkg: Package, folder: str, member: JsonMember,
               books: list[JsonMember], shared: dict[str, Any], carried: dict[str, Any],
               warnings: list[Issue]) -> Character:
    from bunzai.sdk import Character

    obj = member.value
    w = where(member.path)
    reading = CHARACTER.read(obj, w, warnings, skip=[k for k in obj if k not in MAPPED])
    fields = dict(reading.values)
    visual = fields.pop(VISUAL)
    extensions: dict[str, Any] = {VISUAL: visual} if visual else {}

    rest, extra = character_data(obj, fields["tags"])
    settings = to_extension(obj, extra)
    if settings:
        extensions[VOXTA] = settings
    extra = dict(carried)
    lorebook = read_books(books, warnings, fmt)
    assets = _assets(z, pkg, folder)

    layout: dict[str, Any] = {"path": member.path, "folder": folder, "order": list(obj),
                              "rest": rest, "style": member.style, "shared": shared,
                              "linked": [b.path for b in books]}
    thumb = next((a for a in assets if a.name == "main" and a.type == "icon"), None)
    if thumb is not None and thumb.data is not None:
        layout["thumb"] = hashlib.sha1(thumb.data).hexdigest()[:16]
    record = {k: v for k, v in reading.layout.items() if k != "order"}  # the order is kept whole
    if record:
        layout["fields"] = record
    if obj.get("$type") != "character":
        warnings.append(Issue(f"{w}.$type", f"$type is {obj.get('$type')!r}, not 'character'"))
    return Character(**fields, extensions=extensions, lorebook=lorebook, assets=assets,
                     app_data={fmt: extra} if extra else {}, passthrough={fmt: layout})


def character_data(obj: Mapping[str, Any], tags: list[str]
                   ) -> tuple[dict[str, Any], dict[str, Any]]:
    """(layout, user data) of a ``character.json``'s keys the canonical model does not name.

    ``ExplicitContent`` that says what the tags say (an ``nsfw`` tag) is layout: the writer
    derives it from them."""
    rest, extra = split_rest(obj, MAPPED, LAYOUT)
    if "ExplicitContent" in extra and extra["ExplicitContent"] is explicit(tags):
        rest["ExplicitContent"] = extra.pop("ExplicitContent")
    return rest, extra


def _assets(z: SafeZip, pkg: Package, folder: str) -> list[Asset]:
    """The thumbnail (as the avatar) and the files of the character's folder, in archive order."""
    from bunzai.sdk import Asset

    prefix = f"Characters/{folder}/"
    files = pkg.character_files(folder)
    thumbs = [p for p in files if THUMBNAIL.match(p[len(prefix):])]
    out: list[Asset] = []
    for path in thumbs[:1] + [p for p in files if p not in thumbs[:1]]:
        rel = path[len(prefix):]
        data = z.read(path)
        media, _ = sniff_media(data)
        base = rel.rsplit("/", 1)[-1]
        stem, dot, ext = base.rpartition(".")
        if not dot:
            stem, ext = base, ""
        if thumbs and path == thumbs[0]:
            kind, name = "icon", "main"
        else:
            kind = "emotion" if rel.startswith("Assets/Avatars/") else "other"
            name = stem
        out.append(Asset(type=kind, name=name, ext=ext.lower() or None, media_type=media,
                         data=data, origin=path))
    return out

"""A Voxta package (``.voxpkg``) as members: what is in it, and how it is put back together.

The layout, from the server's exports: ``package.json`` (only when the resources live in a Voxta
package), ``Characters/<id>/character.json`` with ``thumbnail.<ext>`` and ``Assets/…`` beside it,
``Books/<id>/book.json``, ``Scenarios/<id>/scenario.json`` (with its thumbnail and assets) and
``Collections/<id>/collection.json``.  Folder names are the resources' ids.  The server deflates
every member, writes no directory entries and sets the zip comment ``Voxta Package``.

The zip itself, its comment included, is read and written by core (``bunzai.sdk.zip``).
"""

from __future__ import annotations

import base64
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bunzai.sdk import Issue, MalformedInput, thaw
from bunzai.sdk.zip import write_zip

from .jsonfmt import DOTNET, dumps, style_of
from .util import digest

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput, Entity
    from bunzai.sdk.zip import SafeZip

COMMENT = "Voxta Package"
"""The zip comment the Voxta server writes on every package."""
SUFFIX = ".voxpkg"
PACKAGE_ORDER = ("$type", "Description", "Creator", "ExplicitContent", "EntryResource",
                 "ThumbnailResource", "Name", "Version", "DateCreated", "DateModified", "Id")
"""The key order of ``package.json`` as the Voxta server writes it."""

CHARACTER_JSON = re.compile(r"^Characters/([^/]+)/character\.json$")
CHARACTER_FILE = re.compile(r"^Characters/([^/]+)/(.+)$")
BOOK_JSON = re.compile(r"^(?:Books|MemoryBooks)/([^/]+)/book\.json$")
"""A memory book; ``MemoryBooks/`` is the folder name Character Foundry's detector also looks
for, read the same way."""
SCENARIO_JSON = re.compile(r"^Scenarios/([^/]+)/scenario\.json$")
THUMBNAIL = re.compile(r"^thumbnail\.[A-Za-z0-9]+$")


def where(path: str) -> str:
    """JSON-path prefix for a finding inside one package member."""
    return f'$["{path}"]'


def zip_comment(z: SafeZip) -> str | None:
    """The archive comment as text (None when there is none)."""
    return z.comment.decode("utf-8", "replace") if z.comment else None


# -- reading ---------------------------------------------------------------------------------


@dataclass
class JsonMember:
    """One JSON member: its path, its object (mutable copy) and the dialect it was written in."""

    path: str
    value: dict[str, Any]
    style: str


@dataclass
class Package:
    """The members of one package, sorted by what they are."""

    names: list[str]
    comment: str | None
    dirs: bool
    package: JsonMember | None = None
    characters: list[tuple[str, JsonMember]] = field(default_factory=list)
    """(folder id, character.json) in archive order."""
    books: dict[str, JsonMember] = field(default_factory=dict)
    """Book folder id -> book.json, in archive order."""
    scenarios: list[JsonMember] = field(default_factory=list)
    broken: dict[str, str] = field(default_factory=dict)
    """Resource JSON members that could not be read, with the reason."""

    def character_files(self, folder: str) -> list[str]:
        """Members in a character's folder other than its character.json, in archive order."""
        prefix = f"Characters/{folder}/"
        return [n for n in self.names
                if n.startswith(prefix) and not n.endswith("/")
                and n != prefix + "character.json"]

    def key(self) -> str:
        """Identifies the package, so characters read from it can be written back together."""
        pkg = self.package.value if self.package else None
        return digest([self.names, pkg])


def load_json(input: AdapterInput, z: SafeZip, path: str) -> JsonMember:
    """A JSON-object member, with a clear error when it is broken."""
    obj = input.zip_object(path)
    return JsonMember(path, obj, style_of(z.read(path), obj))


def open_package(input: AdapterInput, vital: re.Pattern[str]
                 ) -> tuple[SafeZip, Package, list[Issue]]:
    """The zip, its members sorted by what they are, and the reader's warnings for the
    resource JSON that cannot be read (listed in ``broken`` and kept as it is); a broken member
    matching ``vital`` (the JSON of the kind being read) fails the read instead."""
    z = input.zip_archive("Voxta package")
    pkg = _sort_members(input, z)
    return z, pkg, _broken_issues(pkg, vital)


def _sort_members(input: AdapterInput, z: SafeZip) -> Package:
    """The members by what they are; resource JSON that cannot be read is listed in
    ``broken``."""
    names = z.names()
    pkg = Package(names=[n for n in names if not n.endswith("/")],
                  comment=zip_comment(z), dirs=any(n.endswith("/") for n in names))
    for name in pkg.names:
        m = CHARACTER_JSON.match(name)
        b = BOOK_JSON.match(name)
        s = SCENARIO_JSON.match(name)
        if not (m or b or s or name == "package.json"):
            continue
        try:
            member = load_json(input, z, name)
        except MalformedInput as exc:
            pkg.broken[name] = exc.message
            continue
        if name == "package.json":
            pkg.package = member
        elif m:
            pkg.characters.append((m[1], member))
        elif b:
            pkg.books[b[1]] = member
        else:
            pkg.scenarios.append(member)
    return pkg


def _broken_issues(pkg: Package, vital: re.Pattern[str]) -> list[Issue]:
    for path, reason in pkg.broken.items():
        if vital.match(path):
            raise MalformedInput(reason)
    return [Issue(where(path), f"{reason}; kept as it is for a Voxta rewrite")
            for path, reason in pkg.broken.items()]


def scenario_issue(path: str) -> Issue:
    """The warning for a scenario no entity read holds: kept for the rewrite."""
    return Issue(where(path), "a Voxta scenario: bunzai has no scenario kind; kept for a Voxta "
                 "rewrite")


def member_value(input: AdapterInput, z: SafeZip, path: str) -> tuple[Any, dict[str, Any]]:
    """A member kept as it is for a rewrite: (value, how to write it back).

    JSON members are kept as JSON (a user can read them in the app data), anything else as
    base64 text.
    """
    data = z.read(path)
    if path.lower().endswith(".json"):
        value = input.zip_json(path)
        if input.zip_json_error(path) is None:
            plain = thaw(value)
            return plain, {"kind": "json", "style": style_of(data, plain)}
    return base64.b64encode(data).decode("ascii"), {"kind": "bytes"}


def member_bytes(value: Any, how: Mapping[str, Any]) -> bytes | None:
    """The bytes of a kept member (None when what the app data holds no longer fits)."""
    if how.get("kind") == "json":
        try:
            return dumps(value, str(how.get("style")))
        except (TypeError, ValueError):
            return None
    if isinstance(value, str):
        try:
            return base64.b64decode(value, validate=True)
        except ValueError:
            return None
    return None


# -- what a rewrite needs from the package -------------------------------------------------


def shared_record(input: AdapterInput, z: SafeZip, pkg: Package, consumed: set[str]
                  ) -> tuple[dict[str, Any], dict[str, Any]]:
    """(layout, user data) of the package around the entities read from it.

    The layout (member order, comment, ``package.json``) is stored with every entity so the
    entities read from one package are written back as that package.  Members no entity holds
    (scenarios, collections, books no character links, files Voxta keeps beside them) are user
    data: the caller keeps them with its first entity, so a Voxta rewrite restores them and a
    conversion to another format reports them.
    """
    layout: dict[str, Any] = {"key": pkg.key(), "names": list(pkg.names)}
    if pkg.comment != COMMENT:
        layout["comment"] = pkg.comment
    if pkg.dirs:
        layout["dirs"] = True
    if pkg.package is not None:
        layout["package"] = {"value": pkg.package.value, "style": pkg.package.style}
    carried: dict[str, Any] = {}
    extra: dict[str, Any] = {}
    for name in pkg.names:
        if name in consumed or name == "package.json":
            continue
        value, how = member_value(input, z, name)
        carried[name] = how
        extra[name] = value
    if carried:
        layout["carried"] = carried
    return layout, extra


def is_member(key: str) -> bool:
    """Whether an ``app_data`` key names a package member kept as it was
    (``Scenarios/<id>/scenario.json``) rather than a key of a Voxta object (``ChatStyle``, a
    later book's ``Books[<id>]``)."""
    return ("/" in key or "." in key) and not key.startswith("Books[")


def carried_members(entities: Sequence[Any], fmt: str) -> dict[str, tuple[Any, dict[str, Any]]]:
    """The package members the entities keep (their app data by member path), with how each is
    written back: as recorded when it was read, else JSON for a ``.json`` member holding JSON."""
    out: dict[str, tuple[Any, dict[str, Any]]] = {}
    for e in entities:
        data = e.app_data.get(fmt)
        layout = e.passthrough.get(fmt)
        shared = layout.get("shared") if isinstance(layout, dict) else None
        hows = shared.get("carried") if isinstance(shared, dict) else None
        for key, value in (data.items() if isinstance(data, dict) else ()):
            if not is_member(key) or key in out:
                continue
            how = hows.get(key) if isinstance(hows, dict) else None
            if not isinstance(how, dict):
                json_like = key.lower().endswith(".json") and not isinstance(value, str)
                how = {"kind": "json", "style": ""} if json_like else {"kind": "bytes"}
            out[key] = (value, how)
    return out


def assemble(names: Sequence[Any], produced: dict[str, bytes],
             carried: Mapping[str, tuple[Any, Mapping[str, Any]]],
             sequence: Sequence[str] = ()) -> list[tuple[str, bytes]]:
    """Members in the source package's order (``names``): what the writer produced, then the
    carried members; members the source did not have after them.  The members in ``sequence``
    (the entities' own JSON, in the order the entities were given) take the places such members
    have, in that order: a package is read back in the order it was given."""
    order: list[str] = []
    for name in [*names, *produced, *carried]:
        if isinstance(name, str) and name not in order:
            order.append(name)
    wanted = set(sequence)
    slots = [i for i, name in enumerate(order) if name in wanted]
    for i, name in zip(slots, sequence, strict=False):
        order[i] = name
    out: list[tuple[str, bytes]] = []
    for name in order:
        data: bytes | None = produced.get(name)
        if data is None and name in carried:
            value, how = carried[name]
            data = member_bytes(value, how)
        if data is not None:
            out.append((name, data))
    return out


def package_json(shared: Mapping[str, Any] | None) -> tuple[dict[str, Any], str] | None:
    """The source's ``package.json`` (a copy) and its dialect, if it had one."""
    pkg = shared.get("package") if shared else None
    if isinstance(pkg, Mapping) and isinstance(pkg.get("value"), Mapping):
        return thaw(dict(pkg["value"])), str(pkg.get("style") or "")
    return None


# -- writing ---------------------------------------------------------------------------------


def shared_layout(entities: Sequence[Entity], fmt: str) -> dict[str, Any] | None:
    """The package layout the entities share, when all were read from the same package (so
    they are written back as that package); else ``None``."""
    shareds = []
    for e in entities:
        layout = e.passthrough.get(fmt)
        shareds.append(layout.get("shared") if isinstance(layout, dict) else None)
    first = shareds[0]
    if isinstance(first, dict) and first.get("key") and all(
            isinstance(s, dict) and s.get("key") == first["key"] for s in shareds):
        return first
    return None


def source_package_json(shared: Mapping[str, Any] | None) -> tuple[Any, bytes] | None:
    """The source's ``package.json``: its ``Id`` and the member as the source wrote it."""
    source = package_json(shared)
    if source is None:
        return None
    value, style = source
    return value.get("Id"), dumps(value, style or DOTNET)


def pack(shared: Mapping[str, Any] | None, produced: dict[str, bytes], entities: Sequence[Entity],
         fmt: str, sequence: Sequence[str]) -> tuple[bytes, list[str], set[str]]:
    """The package's zip, laid out as the ``shared`` source package was, with its members'
    names in order and those of them the entities carried (see :func:`assemble`)."""
    names = shared.get("names") if shared else None
    carried = carried_members(entities, fmt)
    entries = assemble(names if isinstance(names, list) else [], produced, carried, sequence)
    data = build_zip(entries, dirs=bool(shared and shared.get("dirs")),
                     comment=shared.get("comment", COMMENT) if shared else COMMENT, like=entities)
    written = [n for n, _ in entries]
    return data, written, {n for n in written if n in carried}


def build_zip(entries: Sequence[tuple[str, bytes]], *, dirs: bool = False,
              comment: str | None = COMMENT, like: Sequence[Entity] = ()) -> bytes:
    """The package: every member deflated (as the server writes them) and the comment set;
    the package read, byte for byte, when ``like`` (the entities written) are its unchanged
    content."""
    raw = comment.encode("utf-8")[:0xFFFF] if comment else b""
    return write_zip(list(entries), compress=True, dirs=dirs, comment=raw, like=like or None)


__all__ = [
    "BOOK_JSON",
    "CHARACTER_FILE",
    "CHARACTER_JSON",
    "COMMENT",
    "PACKAGE_ORDER",
    "SCENARIO_JSON",
    "SUFFIX",
    "JsonMember",
    "Package",
    "assemble",
    "build_zip",
    "carried_members",
    "is_member",
    "load_json",
    "member_bytes",
    "member_value",
    "open_package",
    "pack",
    "package_json",
    "scenario_issue",
    "shared_layout",
    "shared_record",
    "source_package_json",
    "where",
    "zip_comment",
]

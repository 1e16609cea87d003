"""What the interop suite writes, what it hands to which library, and how it judges the answer.

Every readable corpus file and sample of the character and lorebook kinds is written to each
output below.  Each output goes to the libraries that read its container:

=====================  ============================================================================
library                what it is given, and what must hold
=====================  ============================================================================
ccardlib               every card object (PNG ``chara``/``ccv3`` chunk, JSON card, CharX
                       ``card.json``): ``CCardLib.character.check`` names the spec the card
                       declares; its V3 conversion gives the fields.  Every V2/V3 book: its
                       lorebook conversion to the other spec succeeds and the result passes
                       ccardlib's schema of that spec.
character-card-utils   every V1 or V2 card object: ``safeParseToV2`` accepts it (V3 is not its
                       spec); the parsed fields.
Character Foundry      every file whose container it reads (PNG, card JSON, CharX, JPEG+CharX):
                       ``parseCard`` accepts it, the card it found and every card object pass
                       its strict zod schemas; the fields and the main image.  Every lorebook
                       file: ``parseLorebook`` accepts it and its result passes the strict book
                       schema; the entries where it reads the shape (World Info, card books,
                       Agnai memory).  Every Voxta package: ``readVoxta`` accepts it; each
                       character's fields as ``voxtaToCCv3`` converts them, its linked books'
                       entries and its thumbnail; a books-only package's entries.
=====================  ============================================================================

The fields each library parsed are compared with ``bunzai.read`` of the source; every
difference must be covered by the write's loss report.
"""

from __future__ import annotations

import hashlib
import io
import json
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from typing import Any

from bunzai.host.registry import Registry
from bunzai.io.frozen import thaw
from bunzai.io.input import as_input
from bunzai.loss.report import LossReport
from bunzai.testing import load_registry

from ..routing import is_unreadable, routed_files, short_id

CARD_FIELDS = ("name", "description", "personality", "scenario", "first_mes", "mes_example",
               "creator_notes", "system_prompt", "post_history_instructions",
               "alternate_greetings", "tags", "creator", "character_version")
V1_FIELDS = CARD_FIELDS[:6]
LIST_FIELDS = ("alternate_greetings", "tags")
SPEC_OF = {"chara_card_v2": "v2", "chara_card_v3": "v3"}


@dataclass(frozen=True)
class Variant:
    """One output: a writable format and the writer options."""

    target: str
    options: tuple[tuple[str, str], ...] = ()

    @property
    def label(self) -> str:
        opts = ",".join(f"{k}={v}" for k, v in self.options)
        return f"{self.target}[{opts}]" if opts else self.target


CHARACTER_VARIANTS = (
    Variant("sillytavern", (("container", "png"), ("chunks", "both"))),
    Variant("sillytavern", (("chunks", "chara"),)),
    Variant("sillytavern", (("chunks", "ccv3"),)),
    Variant("sillytavern", (("container", "json"), ("spec", "v1"))),
    Variant("sillytavern", (("container", "json"), ("spec", "v2"))),
    Variant("sillytavern", (("container", "json"), ("spec", "v3"))),
    Variant("rolecall", (("container", "png"),)),
    Variant("rolecall", (("container", "json"), ("spec", "v2"))),
    Variant("rolecall", (("container", "json"), ("spec", "v3"))),
    Variant("risu", (("container", "png"),)),
    Variant("risu", (("container", "json"),)),
    Variant("risu-charx", (("container", "zip"),)),
    Variant("risu-charx", (("container", "jpeg"),)),
    Variant("pygmalion", (("shape", "chat"),)),
    Variant("voxta"),
)
"""Every character writer whose output one of the libraries reads.  ``agnai``, ``backyard``,
``backyard-byaf`` and Pygmalion's five-key shape are containers none of them reads."""

LOREBOOK_VARIANTS = (
    Variant("sillytavern-lorebook", (("variant", "worldinfo"),)),
    Variant("sillytavern-lorebook", (("variant", "v2"),)),
    Variant("sillytavern-lorebook", (("variant", "v3"),)),
    Variant("risu-lorebook", ()),
    Variant("risu-lorebook", (("array", "true"),)),
    Variant("agnai-memory", ()),
    Variant("voxta-lorebook"),
)
"""Every lorebook writer whose output one of the libraries reads (NovelAI's is not)."""

CF_BOOK_FIELDS = {
    "sillytavern": ("keys", "secondary_keys", "content", "enabled", "constant"),
    "ccv3": ("keys", "secondary_keys", "content", "enabled", "constant"),
    "agnai": ("keys", "content", "enabled"),
}
"""The lorebook shapes whose entries Character Foundry's ``parseLorebook`` reads, and the entry
fields it reads from each (its Agnai reader fills secondary keys and ``constant`` with fixed
values whatever the file says).  On the other shapes (RisuAI's export, the V3 ``lorebook_v3``
wrapper) it answers with an empty book."""


@cache
def registry() -> Registry:
    return load_registry()


@cache
def sources() -> tuple[tuple[Path, str, str], ...]:
    """(path, format, kind) of every readable routed file of the checked kinds."""
    reg = registry()
    out = []
    for path, fmt in routed_files():
        if fmt is None or is_unreadable(path) or fmt not in reg.adapters:
            continue
        kind = reg.adapters[fmt].kind
        if kind in ("character", "lorebook"):
            out.append((path, fmt, kind))
    return tuple(out)


def cases() -> list[tuple[Path, str, Variant, str]]:
    """(source path, source format, variant, test id) for every output checked."""
    out = []
    for path, fmt, kind in sources():
        for v in CHARACTER_VARIANTS if kind == "character" else LOREBOOK_VARIANTS:
            out.append((path, fmt, v, f"{source_id(path)}->{v.label}"))
    return out


def source_id(path: Path) -> str:
    """A short, unique test id for a source: corpus names end in a hash prefix."""
    parts = path.stem.split("__")
    return f"{short_id(path)}~{parts[-1]}" if len(parts) >= 3 else short_id(path)


@cache
def read_source(path: Path, fmt: str) -> Any:
    _, result, _ = registry().read(as_input(path), format=fmt)
    return result.entities[0]


# -- taking outputs apart (with bunzai's own container code) ----------------------------------


def card_objects(data: bytes, suffix: str, target: str) -> list[tuple[str, Any]]:
    """The card JSON objects in a file: (where, object)."""
    inp = as_input(data, f"out{suffix}")
    found: list[tuple[str, Any]] = []
    if inp.container == "json":
        obj = thaw(inp.json)
        if target == "pygmalion":
            inner = obj.get("character") if isinstance(obj, dict) else None
            if isinstance(inner, dict):
                found.append(("character", inner))
        elif isinstance(obj, dict):
            found.append(("json", obj))
    elif inp.container in ("png", "apng"):
        for keyword in ("chara", "ccv3"):
            for payload in inp.png_json(keyword):
                found.append((keyword, thaw(payload.value)))
    elif inp.container in ("zip", "jpeg+zip"):
        archive = inp.zip
        if archive is not None and archive.has("card.json"):
            found.append(("card.json", json.loads(archive.read("card.json"))))
    return found


def book_of(obj: Any) -> tuple[Any, str] | None:
    """The character book in a card object and its spec (``v2``/``v3``), if it has one."""
    if not isinstance(obj, dict):
        return None
    spec = SPEC_OF.get(obj.get("spec"))  # type: ignore[arg-type]
    data = obj.get("data")
    if spec is None or not isinstance(data, dict):
        return None
    book = data.get("character_book")
    return (book, spec) if isinstance(book, dict) else None


def standalone_book(data: bytes) -> tuple[Any, str] | None:
    """A standalone card-spec book file's book object and spec: a bare V2 book or the V3
    ``{spec: "lorebook_v3", data}`` wrapper; None for any other lorebook shape."""
    try:
        obj = json.loads(data)
    except ValueError:
        return None
    if not isinstance(obj, dict):
        return None
    if obj.get("spec") == "lorebook_v3" and isinstance(obj.get("data"), dict):
        return obj["data"], "v3"
    if isinstance(obj.get("entries"), list):
        return obj, "v2"
    return None


def expected_check(obj: Any) -> str:
    """The answer ``CCardLib.character.check`` must give: the spec the object declares."""
    spec = obj.get("spec") if isinstance(obj, dict) else None
    return SPEC_OF.get(spec, "v1") if spec is None or spec in SPEC_OF else f"spec {spec!r}"


VOXTA_TARGETS = ("voxta", "voxta-lorebook")
"""Outputs Character Foundry reads with its Voxta package reader, not ``parseCard``."""

VOXTA_DEFAULTS = {"name": "Unknown", "character_version": "1.0"}
"""What ``voxtaToCCv3`` puts in a card field the package leaves empty."""

VOXTA_BOOK_FIELDS = ("keys", "content", "enabled")
"""The entry fields a Voxta book item holds (keywords, text, deleted)."""


def voxta_view(view: Mapping[str, Any], entity: Any) -> dict[str, Any]:
    """Character Foundry's card fields with the values it fills in for an empty field taken
    back to empty where the source's own field is empty."""
    out = dict(view)
    for name, filled in VOXTA_DEFAULTS.items():
        if out.get(name) == filled and not getattr(entity, name):
            out[name] = ""
    return out


def cf_reads(inp_container: str, target: str) -> bool:
    """Whether Character Foundry's ``parseCard`` reads this output's container."""
    return target != "pygmalion" and inp_container in ("png", "apng", "json", "zip", "jpeg+zip")


def world_info_uids(data: bytes) -> dict[str, int] | None:
    """For a SillyTavern World Info file: each entry's ``uid`` (as JSON) -> its position."""
    obj = json.loads(data)
    entries = obj.get("entries") if isinstance(obj, dict) else None
    if not isinstance(entries, dict):
        return None
    return {json.dumps(e.get("uid")): i for i, e in enumerate(entries.values())
            if isinstance(e, dict)}


# -- images -------------------------------------------------------------------------------------

_SIZES: dict[str, tuple[int, int] | None] = {}


def image_size(data: bytes | None) -> tuple[int, int] | None:
    """Width and height if the bytes decode as an image (every pixel), else None."""
    if not data:
        return None
    key = hashlib.sha256(data).hexdigest()
    if key not in _SIZES:
        from PIL import Image

        try:
            with Image.open(io.BytesIO(data)) as im:
                im.load()
                _SIZES[key] = im.size
        except Exception:
            _SIZES[key] = None
    return _SIZES[key]


def source_icon(entity: Any) -> tuple[int, tuple[int, int]] | None:
    """(asset index, size) of the source's avatar, when it has one that decodes."""
    icons = [(i, a) for i, a in enumerate(entity.assets) if a.type == "icon" and a.data]
    icons.sort(key=lambda ia: not (ia[1].name == "main"
                                   or (ia[1].uri or "").startswith("ccdefault:")))
    for i, asset in icons[:1]:
        size = image_size(asset.data)
        if size is not None:
            return i, size
    return None


def data_uri_icon(assets: Any) -> bytes | None:
    """The bytes of the first icon given as a ``data:`` URI in a parsed card's asset list."""
    from bunzai.cardspec import resolve_data_uri

    for a in assets if isinstance(assets, list) else ():
        if isinstance(a, dict) and a.get("type") == "icon" and isinstance(a.get("uri"), str):
            got = resolve_data_uri(a["uri"])
            if got:
                return got
    return None


# -- comparing what a library parsed with the source --------------------------------------------


@dataclass
class Verdicts:
    """What one output got from each library: accepted, refused (why), or not applicable."""

    problems: list[str] = field(default_factory=list)
    accepted: dict[str, int] = field(default_factory=dict)
    inherited: dict[str, int] = field(default_factory=dict)

    def accept(self, library: str) -> None:
        self.accepted[library] = self.accepted.get(library, 0) + 1

    def inherit(self, library: str) -> None:
        self.inherited[library] = self.inherited.get(library, 0) + 1


def _norm(value: Any, default: Any) -> Any:
    return default if value is None else value


def without_decorators(text: str) -> str:
    """The text ccardlib's decorator parser leaves: leading ``@@`` lines dropped, trimmed."""
    lines = text.strip().split("\n")
    for i, line in enumerate(lines):
        if not line.strip().startswith("@@"):
            return "\n".join(lines[i:]).strip()
    return ""


def _same_content(lib: Mapping[str, Any], canon: str, trimmed: bool) -> bool:
    raw = _norm(lib.get("content"), "")
    if raw == canon or (trimmed and raw == without_decorators(canon)):
        return True
    plain = lib.get("content_plain")
    # leading @@decorator lines are settings, not text: compare what a V3 reader shows
    return (isinstance(raw, str) and raw.lstrip().startswith("@@") and isinstance(plain, str)
            and plain.strip() == canon.strip())


def compare_fields(view: Mapping[str, Any], entity: Any, loss: LossReport, who: str,
                   names: Iterable[str] = CARD_FIELDS) -> list[str]:
    out = []
    for name in names:
        default: Any = [] if name in LIST_FIELDS else ""
        got = _norm(view.get(name), default)
        want = _norm(getattr(entity, name), default)
        if got != want and not loss.covers(name):
            out.append(f"{who}: {name} is {_short(got)}, the source says {_short(want)}, and "
                       "the loss report does not say so")
    return out


ENTRY_FIELDS = ("keys", "secondary_keys", "content", "enabled", "constant")


def compare_entries(lib: Sequence[Mapping[str, Any]] | None, canon: Sequence[Any],
                    loss: LossReport, prefix: str, who: str,
                    order: Mapping[int, int] | None = None, *,
                    names: Sequence[str] = ENTRY_FIELDS, trimmed: bool = False) -> list[str]:
    """Entry by entry (``order``: library position -> source position, when the library sorts
    them); ``prefix`` is ``lorebook.`` for a character's book, empty for a lorebook.

    ``names`` are the fields the library reads from this shape; ``trimmed`` accepts content
    the library itself trimmed (ccardlib's V3-to-V2 conversion parses decorators out of the
    text and trims what is left).
    """
    out: list[str] = []
    got = list(lib or [])
    if order is not None:
        placed: dict[int, Mapping[str, Any]] = {}
        for i, e in enumerate(got):
            placed[order.get(i, i)] = e
        got = [placed[i] for i in sorted(placed)]
    for i in range(max(len(got), len(canon))):
        base = f"{prefix}entries[{i}]"
        if i >= len(got) or i >= len(canon):
            if not loss.covers(base):
                what = "is missing" if i >= len(got) else "is not in the source"
                out.append(f"{who}: {base} {what}, and the loss report does not say so")
            continue
        e, c = got[i], canon[i]
        checks: list[tuple[str, bool, Any, Any]] = [
            ("content", _same_content(e, c.content, trimmed), e.get("content"), c.content),
            ("secondary_keys", _norm(e.get("secondary_keys"), []) == c.secondary_keys,
             e.get("secondary_keys"), c.secondary_keys),
            ("enabled", _norm(e.get("enabled"), True) == c.enabled, e.get("enabled"),
             c.enabled),
            ("constant", bool(_norm(e.get("constant"), False)) == bool(c.constant),
             e.get("constant"), c.constant),
        ]
        if not c.is_folder:  # a RisuAI folder's key is its identity marker, not a trigger
            checks.append(("keys", _keys(e.get("keys")) == _keys(c.keys), e.get("keys"),
                           c.keys))
        for name, same, g, w in checks:
            if name in names and not same and not loss.covers(f"{base}.{name}"):
                out.append(f"{who}: {base}.{name} is {_short(g)}, the source says {_short(w)}, "
                           "and the loss report does not say so")
    return out


def _keys(keys: Any) -> Any:
    """Keys as they match: a blank key matches nothing in any app (RisuAI's projection of an
    entry without keys is ``[""]``)."""
    return [k for k in keys if not (isinstance(k, str) and not k.strip())] if isinstance(
        keys, list) else [] if keys is None else keys


def _short(value: Any) -> str:
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 80 else text[:77] + "..."

"""Reading CharX archives: card.json through the card codec, then module.risum and assets."""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from bunzai.sdk import (
    BunzaiError,
    Character,
    Issue,
    MalformedInput,
    ReadResult,
    loads,
    sniff_layout,
)
from bunzai.sdk.cards import ASSET_URI_PREFIX, is_card, validate_card

from .._common import risum
from .._common.assets import embedded_path, make_asset, sanitize
from .._common.card import read_card
from . import module

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput, Entity
    from bunzai.sdk.zip import SafeZip


def _lookup(z: SafeZip, path: str) -> str | None:
    """The zip entry a URI path means: exact, then case-insensitive, then sanitised."""
    if z.has(path):
        return path
    entry = z.find(path)
    if entry is not None:
        return entry.name
    head, _, tail = path.rpartition("/")
    clean = f"{head}/{sanitize(tail)}" if head else sanitize(tail)
    entry = z.find(clean)
    return entry.name if entry is not None else None


def read(input: AdapterInput, options: Mapping[str, Any], format_id: str) -> ReadResult:
    z = input.zip
    if z is None:
        raise MalformedInput(f"unsafe or corrupt CharX archive: {input.zip_error}")
    if not z.has("card.json"):
        raise MalformedInput("not a CharX: no card.json at the root of the archive")
    warnings: list[Issue] = []
    raw_card = z.read("card.json")
    card_obj = _card_json(raw_card, input, warnings)
    module_raw, module_text, records, bad_module = _module(z, input, warnings)
    resolver = _Resolver(z, warnings)
    ch = read_card(card_obj, warnings, resolver.resolve, lift_scripts=module_raw is None)
    for i, a in enumerate(ch.assets):
        if a.data is None and a.uri and (embedded_path(a.uri) is not None
                                         or a.uri.startswith(ASSET_URI_PREFIX)):
            warnings.append(Issue(f"$.data.assets[{i}].uri", f"{a.uri} is not in the "
                                  "archive: RisuAI refuses to import this card", "error"))
    record = ch.passthrough.setdefault(format_id, {})
    if module_raw is not None:
        body = card_obj.get("data")
        raw_book = body.get("character_book", module.NO_BOOK) if isinstance(
            body, dict) else module.NO_BOOK
        record["module"] = module.apply(ch, module_raw, module_text or b"", records, warnings,
                                        format_id, raw_book)
    elif bad_module is not None:
        record["bad_module"] = base64.b64encode(bad_module).decode("ascii")
    x_meta = _orphans(z, ch, resolver.used, warnings)
    if x_meta:
        record["x_meta"] = x_meta
    record["zip_order"] = z.names()
    record["layout"] = sniff_layout(raw_card, 4)
    if input.container == "jpeg+zip":
        record["cover"] = base64.b64encode(input.data[:z.prefix_offset]).decode("ascii")
    return ReadResult([ch], warnings)


def _card_json(raw_card: bytes, input: AdapterInput, warnings: list[Issue]) -> dict[str, Any]:
    """``card.json``, parsed and checked to be a card."""
    try:
        card_obj = loads(raw_card, limits=input.limits)
    except MalformedInput as exc:
        raise MalformedInput(f"card.json: {exc.message}") from None
    if not isinstance(card_obj, dict):
        raise MalformedInput("card.json is not a JSON object")
    if not is_card(card_obj):
        raise MalformedInput("card.json is not a character card (no spec, data or card "
                             "fields)")
    if card_obj.get("spec") != "chara_card_v3":
        warnings.append(Issue("$.spec", "RisuAI imports a CharX only when card.json is "
                                        "chara_card_v3"))
    return card_obj


def _module(z: SafeZip, input: AdapterInput, warnings: list[Issue]
            ) -> tuple[dict[str, Any] | None, bytes | None, list[bytes], bytes | None]:
    """``module.risum`` decoded: its module object, its text and its asset records; or, when
    it cannot be decoded, its bytes (kept as they are)."""
    if not z.has("module.risum"):
        return None, None, [], None
    blob = z.read("module.risum")
    try:
        decoded = risum.decode(blob, input.limits)
    except BunzaiError as exc:
        warnings.append(Issue("module.risum", f"unreadable, kept as it is: {exc.message} "
                                              "(RisuAI refuses a CharX whose module is "
                                              "corrupt)"))
        return None, None, [], blob
    for w in decoded.warnings:
        warnings.append(Issue("module.risum", w))
    return decoded.main["module"], decoded.text, decoded.assets, None


class _Resolver:
    """The archive's file for each asset URI of the card, and the files so taken."""

    def __init__(self, z: SafeZip, warnings: list[Issue]) -> None:
        self.z = z
        self.warnings = warnings
        self.used: set[str] = set()
        self.repeats: dict[str, int] = {}

    def resolve(self, uri: str) -> tuple[bytes | None, str | None]:
        z = self.z
        path = embedded_path(uri)
        if path is None and uri.startswith(ASSET_URI_PREFIX):
            path = uri[len(ASSET_URI_PREFIX):]
        if path is None:
            return None, None
        name = _lookup(z, path)
        if name is None:
            return None, None
        if name in self.used:
            # RisuAI's writer renames a second file with the same name to name_1.ext but
            # leaves its URI alone: take the renamed file rather than the first one again.
            repeats = self.repeats
            repeats[name] = repeats.get(name, 0) + 1
            stem, dot, ext = name.rpartition(".")
            variant = f"{stem}_{repeats[name]}.{ext}" if dot else f"{name}_{repeats[name]}"
            if z.has(variant) and variant not in self.used:
                self.warnings.append(Issue(uri, f"several assets name {name}; this one read "
                                                f"from {variant}, as RisuAI's exporter "
                                                "renamed it"))
                name = variant
        self.used.add(name)
        return z.read(name), f"zip:{name}"


def _orphans(z: SafeZip, ch: Character, used: set[str], warnings: list[Issue]
             ) -> list[list[str]]:
    """The archive's files no asset took, as orphan assets of ``ch``; RisuAI's ``x_meta/``
    files are returned (base64) to be written back as they were."""
    x_meta: list[list[str]] = []
    for entry in z.entries:
        name = entry.name
        if entry.is_dir or name in ("card.json", "module.risum") or name in used:
            continue
        if name.startswith("x_meta/"):
            # RisuAI's per-asset metadata, which its importer skips: layout, kept verbatim
            x_meta.append([name, base64.b64encode(z.read(name)).decode("ascii")])
            continue
        data = z.read(name)
        stem = name.rsplit("/", 1)[-1].rsplit(".", 1)[0]
        ext = name.rsplit(".", 1)[-1].lower() if "." in name.rsplit("/", 1)[-1] else None
        ch.assets.append(make_asset(type="other", name=stem, ext=ext, data=data,
                                    origin=f"zip:{name}", orphan=True))
        warnings.append(Issue(f"zip:{name}", "file in the archive that no asset refers to; "
                                             "kept as an orphan asset"))
    return x_meta


def validate(input: AdapterInput, entities: Sequence[Entity], format_id: str) -> list[Issue]:
    """RisuAI's import rules for a CharX, plus the card spec's own.

    What the reader already says (an asset missing from the archive, a file no asset refers
    to) is not said again, and a spec finding RisuAI makes fatal is said once, as an error.
    """
    issues: list[Issue] = []
    card = input.zip_json("card.json") if input.zip is not None else None
    if isinstance(card, Mapping):
        spec = validate_card(card)
        data = card.get("data")
        if card.get("spec") != "chara_card_v3":
            issues.append(Issue("$.spec", "RisuAI imports only chara_card_v3 CharX cards",
                                "error"))
        if isinstance(data, Mapping) and not isinstance(data.get("extensions"), Mapping):
            spec = [i for i in spec if i.path != "$.data.extensions"]
            what = "missing" if "extensions" not in data else "not an object"
            issues.append(Issue("$.data.extensions", f"{what}: RisuAI's importer fails without "
                                "data.extensions", "error"))
        issues = spec + issues
    for e in entities:
        if not isinstance(e, Character):
            continue
        for i, a in enumerate(e.assets):
            if a.ext and a.data and a.media_type and a.ext.lower() not in (
                    a.media_type.split("/")[-1], "jpg" if a.media_type == "image/jpeg" else ""):
                issues.append(Issue(f"$.data.assets[{i}].ext",
                                    f"declared {a.ext!r} but the bytes are {a.media_type}"))
        risuai = e.extensions.get("risuai")
        if isinstance(risuai, Mapping) and risuai.get("lowLevelAccess"):
            issues.append(Issue("$.data.extensions.risuai.lowLevelAccess",
                                "grants the card's triggers direct model and storage access"))
    return issues

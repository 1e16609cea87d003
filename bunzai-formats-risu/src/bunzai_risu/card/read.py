"""Reading RisuAI cards: JSON, V3 PNG with asset chunks, V2 PNG, legacy MessagePack PNG."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from bunzai.sdk import (
    BunzaiError,
    Character,
    Issue,
    Lorebook,
    MalformedInput,
    ReadResult,
    UnsupportedInput,
    sniff_layout,
)
from bunzai.sdk.base64 import decode_base64
from bunzai.sdk.cards import (
    ASSET_URI_PREFIX,
    asset_key,
    card_digest,
    has_encrypted_card,
    validate_card,
)

from .._common import lore, regex
from .._common.assets import make_asset
from .._common.card import CARD, read_card
from .._common.images import strip_chunks
from . import is_risu_card

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput, Entity

_MAX_CARD_TEXT = 5 * 1024 * 1024
_LEGACY_RISUAI_KEYS = ("viewScreen", "bias", "sdData", "utilityBot", "additionalText")
LEGACY_ORIGIN = "png:risuai:"
"""Origin of the emotion images read from RisuAI 0.6's ``risuai`` chunk."""


def read(input: AdapterInput, options: Mapping[str, Any], format_id: str) -> ReadResult:
    if input.container == "json":
        return _read_json(input, format_id)
    if input.png is None:
        raise MalformedInput("not a RisuAI card: neither card JSON nor a PNG")
    return _read_png(input, format_id)


def _read_json(input: AdapterInput, format_id: str) -> ReadResult:
    obj = input.json_mutable()
    if not isinstance(obj, dict) or not is_risu_card(obj):
        raise MalformedInput("not a RisuAI card: no data.extensions.risuai")
    warnings: list[Issue] = []

    def resolve(uri: str) -> tuple[bytes | None, str | None]:
        return None, None

    ch = read_card(obj, warnings, resolve)
    record = ch.passthrough.setdefault(format_id, {})
    record["container"] = "json"
    record["layout"] = sniff_layout(input.data, 4)
    return ReadResult([ch], warnings)


def _pick_card(input: AdapterInput, warnings: list[Issue]
               ) -> tuple[str, dict[str, Any]] | None:
    """The card chunk RisuAI uses: the last ccv3 that parses, else the last chara."""
    for kw in ("ccv3", "chara"):
        good = [p for p in input.png_json(kw) if p.error is None and isinstance(p.value, Mapping)]
        good = [p for p in good if len(p.chunk.chunk.data) < _MAX_CARD_TEXT * 2] or good
        if good:
            if len(good) > 1:
                warnings.append(Issue("$", f"{len(good)} {kw} chunks; the last one was read, "
                                           "as RisuAI does"))
            return kw, good[-1].mutable()
    return None


def _read_png(input: AdapterInput, format_id: str) -> ReadResult:
    png = input.png
    assert png is not None
    warnings: list[Issue] = []
    picked = _pick_card(input, warnings)
    if (picked is None or not is_risu_card(picked[1])) and has_encrypted_card(png):
        raise UnsupportedInput("encrypted RisuAI card (rcc), not supported")
    if picked is None:
        raise MalformedInput("this PNG has no readable chara or ccv3 card chunk")
    keyword, obj = picked

    chunks: dict[str, tuple[str, Any]] = {}
    order: list[str] = []
    for tc in png.text_chunks():
        key = asset_key(tc.keyword)
        if key is not None:
            chunks.setdefault(key, (tc.keyword, tc))
        order.append(tc.keyword)
    used: set[str] = set()
    image = strip_chunks(png)

    def chunk_bytes(key: str) -> bytes | None:
        keyword_tc = chunks.get(key)
        if keyword_tc is None:
            return None
        try:
            return decode_base64(keyword_tc[1].value_bytes(input.limits), limits=input.limits)
        except BunzaiError as exc:
            warnings.append(Issue(f"png:{keyword_tc[0]}", f"asset chunk does not decode: "
                                                          f"{exc.message}"))
            return None

    def resolve(uri: str) -> tuple[bytes | None, str | None]:
        if uri == "ccdefault:":
            return image, "png:container"
        if uri.startswith(ASSET_URI_PREFIX):
            key = uri[len(ASSET_URI_PREFIX):]
            data = chunk_bytes(key)
            if data is not None:
                used.add(key)
                return data, f"png:{chunks[key][0]}"
        return None, None

    legacy = png.find_text("risuai")
    ch = read_card(obj, warnings, resolve)
    record = ch.passthrough.setdefault(format_id, {})
    if legacy:
        _read_legacy(ch, legacy[-1], input, warnings, record)
    for i, a in enumerate(ch.assets):
        if a.data is None and a.uri and a.uri.startswith(ASSET_URI_PREFIX):
            warnings.append(Issue(f"$.data.assets[{i}]", f"{a.uri} has no chara-ext-asset_ "
                                                         "chunk"))
    if not any(a.uri == "ccdefault:" for a in ch.assets if not a.orphan):
        # the PNG itself is the character's picture even when the card does not list it
        ch.assets.append(make_asset(type="icon", name="main", ext="png", data=image,
                                    origin="png:container"))
        record["implicit_icon"] = True
    vits = vits_refs(ch)
    for key, (kw, _tc) in chunks.items():
        if key in used:
            continue
        data = chunk_bytes(key)
        if data is None:
            continue
        if key in vits:
            # a V2 card's TTS model files: referenced from risuai.vits, not from the asset list
            ch.assets.append(make_asset(type="x-risu-vits", name=vits[key], data=data,
                                        origin=f"png:{kw}", orphan=True))
            continue
        ch.assets.append(make_asset(type="other", name=kw, data=data, origin=f"png:{kw}",
                                    orphan=True))
        warnings.append(Issue(f"png:{kw}", "asset chunk no asset refers to; kept as an orphan "
                                           "asset"))
    record["container"] = "png"
    record["chunk"] = keyword
    record["keywords"] = order
    others = [p for p in input.png_json("chara" if keyword == "ccv3" else "ccv3")
              if p.error is None]
    if others:
        record["backfill"] = {
            "keyword": others[-1].keyword,
            "text": others[-1].chunk.value_bytes(input.limits).decode("latin-1"),
            "fp": card_digest(fingerprint(ch))}
    for problem in png.problems:
        warnings.append(Issue("png", problem))
    return ReadResult([ch], warnings)


def vits_refs(ch: Character) -> dict[str, str]:
    """``{chunk key: file name}`` for ``risuai.vits`` values of the form ``__asset:N``."""
    risuai = ch.extensions.get("risuai")
    vits = risuai.get("vits") if isinstance(risuai, Mapping) else None
    if not isinstance(vits, Mapping):
        return {}
    return {v[len(ASSET_URI_PREFIX):]: str(k) for k, v in vits.items()
            if isinstance(v, str) and v.startswith(ASSET_URI_PREFIX)}


def fingerprint(ch: Character) -> Any:
    """What a card chunk says of ``ch`` (to tell whether a second chunk still matches)."""
    return ch.model_dump(mode="json", exclude={"passthrough": True, "assets": {
        "__all__": {"data"}}, "lorebook": {"passthrough": True}})


def legacy_fingerprint(ch: Character) -> str:
    """A digest of what RisuAI 0.6's ``risuai`` chunk gave ``ch``: its emotion images, the
    settings, scripts and lorebook a V1 card has no place for."""
    images = [[a.name, hashlib.sha256(a.data or b"").hexdigest()] for a in ch.assets
              if (a.origin or "").startswith(LEGACY_ORIGIN)]
    return card_digest({
        "images": images, "risuai": ch.extensions.get("risuai"),
        "scripts": [s.model_dump(mode="json", exclude={"passthrough"})
                    for s in ch.regex_scripts],
        "lorebook": None if ch.lorebook is None else ch.lorebook.model_dump(
            mode="json", exclude={"passthrough": True,
                                  "entries": {"__all__": {"passthrough"}}}),
    })


def _read_legacy(ch: Character, tc: Any, input: AdapterInput, warnings: list[Issue],
                 record: dict[str, Any]) -> None:
    """RisuAI 0.6's ``risuai`` chunk: MessagePack of its internal character object."""
    try:
        import msgpack  # type: ignore[import-untyped]
    except ImportError:
        warnings.append(Issue("png:risuai", "msgpack is not installed; the legacy risuai "
                                            "chunk (emotion images) was not read"))
        return
    try:
        text = tc.value_bytes(input.limits)
        packed = msgpack.unpackb(decode_base64(text, limits=input.limits), raw=False,
                                 strict_map_key=False, use_list=True)
    except BunzaiError as exc:
        warnings.append(Issue("png:risuai", f"legacy risuai chunk does not decode: "
                                            f"{exc.message}"))
        return
    except Exception as exc:  # msgpack raises several types for corrupt data
        warnings.append(Issue("png:risuai", f"legacy risuai chunk is not valid MessagePack: "
                                            f"{exc}"))
        return
    data = packed.get("data") if isinstance(packed, dict) else None
    if not isinstance(data, dict):
        warnings.append(Issue("png:risuai", "legacy risuai chunk holds no character object"))
        return
    images = data.get("emotionImages")
    for i, item in enumerate(images if isinstance(images, list) else []):
        if (isinstance(item, list | tuple) and len(item) >= 2 and isinstance(item[0], str)
                and isinstance(item[1], bytes | bytearray)):
            ch.assets.append(make_asset(type="emotion", name=item[0], data=bytes(item[1]),
                                        origin=f"{LEGACY_ORIGIN}emotionImages[{i}]"))
        else:
            warnings.append(Issue(f"png:risuai:emotionImages[{i}]",
                                  "expected [name, image bytes]"))
    risuai = {k: data[k] for k in _LEGACY_RISUAI_KEYS if k in data and _jsonable(data[k])}
    ch.extensions["risuai"] = {**risuai, **(ch.extensions.get("risuai") or {})}
    scripts = data.get("customscript")
    if isinstance(scripts, list) and not ch.regex_scripts:
        ch.regex_scripts = regex.read_scripts(scripts, "png:risuai:customscript", warnings,
                                              CARD)
    lorebook = data.get("globalLore")
    if isinstance(lorebook, list) and lorebook and ch.lorebook is None:
        ch.lorebook = Lorebook(entries=lore.read_entries(
            lorebook, "png:risuai:globalLore", warnings, CARD))
    if data.get("chats"):
        warnings.append(Issue("png:risuai", "the legacy chunk also holds chat history; not "
                                            "read"))
    # RisuAI 0.6's chunk is written back as it was while what was read from it is unchanged
    record["legacy"] = {"text": text.decode("latin-1"), "fp": legacy_fingerprint(ch)}


def _jsonable(value: Any) -> bool:
    if isinstance(value, str | int | float | bool) or value is None:
        return True
    if isinstance(value, list):
        return all(_jsonable(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _jsonable(v) for k, v in value.items())
    return False


def validate(input: AdapterInput, entities: Sequence[Entity], format_id: str) -> list[Issue]:
    """Card-spec issues plus RisuAI's import rules."""
    issues: list[Issue] = []
    card: Any = input.json if input.container == "json" else None
    if card is None and input.png is not None:
        for kw in ("ccv3", "chara"):
            found = [p.value for p in input.png_json(kw) if p.error is None]
            if found:
                card = found[-1]
                break
    if isinstance(card, Mapping):
        issues += validate_card(card)
    for e in entities:
        if not isinstance(e, Character):
            continue
        for i, a in enumerate(e.assets):
            if a.uri and a.uri.startswith(ASSET_URI_PREFIX) and a.data is None:
                issues.append(Issue(f"$.data.assets[{i}].uri",
                                    f"{a.uri} has no asset chunk (RisuAI refuses the card)",
                                    "error"))
        risuai = e.extensions.get("risuai")
        if isinstance(risuai, Mapping) and risuai.get("lowLevelAccess"):
            issues.append(Issue("$.data.extensions.risuai.lowLevelAccess",
                                "grants the card's triggers direct model and storage access"))
        if isinstance(risuai, Mapping) and risuai.get("backgroundHTML"):
            issues.append(Issue("$.data.extensions.risuai.backgroundHTML",
                                "injects HTML into RisuAI's chat view"))
    return issues

"""The PNG around a Tavern card, read: which chunks held the card (recorded for an unchanged
rewrite), the image without them (the avatar) and the ``chara-ext-asset_`` chunks (the card's
embedded assets)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from bunzai.sdk import (
    BunzaiError,
    Issue,
    LossReport,
    json_equal,
    remember_json,
    sniff_layout,
    sniff_media,
    thaw,
    unfrozen,
)
from bunzai.sdk.base64 import decode_base64, encode_base64
from bunzai.sdk.cards import asset_key, build_card, completed_digest
from bunzai.sdk.png import png_damage, splice

from . import Found, cut_card_chunk
from .avatar import is_default_avatar
from .fingerprint import fingerprint_kept

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput, Character, ChunkPayload
    from bunzai.sdk.png import PngFile, TextChunk

ORPHAN_TYPE = "x-risu-asset"
"""The type an asset chunk the card does not list is read as (RisuAI's word for them)."""

_NO_SHAPE = "\x00no-shape"


def v2_backfill(character: Character, format_id: str, shaped: bool = True) -> dict[str, Any]:
    """The ``chara`` chunk this module writes next to a ``ccv3`` one (V2, root duplicates):
    shaped like the card it was read from, or (``shaped=False``) as a fresh card."""
    return build_card(character, spec="v2", format_id=format_id if shaped else _NO_SHAPE,
                      loss=LossReport(), root_duplicates=True)


def chunk_slot(index: int) -> str:
    """Where the text of the ``index``-th chunk of the recorded layout is remembered."""
    return f"png-chunk:{index}"


def read_png(input: AdapterInput, found: Found, card: Any, character: Character,
             layout: dict[str, Any], warnings: list[Issue], format_id: str) -> None:
    """Read the PNG around the card ``found``: its card and asset chunks are recorded in
    ``layout["png"]``, the image without them becomes the avatar and the asset chunks fill
    in the card's assets."""
    png = input.png
    assert png is not None and found.payload is not None
    for problem in png.problems:
        warnings.append(Issue("$", f"PNG: {problem}"))
    damage = png_damage(png)
    if damage is not None:
        warnings.append(Issue("$", f"the picture is damaged: {damage}; the card is read whole, "
                              "but apps show the picture broken or their placeholder instead"))
    winner = found.payload
    cut = cut_card_chunk(png)
    if cut is not None:  # a second card chunk, cut short: the whole one is read
        warnings.append(Issue("$", f"{cut}; the card is read from the {winner.keyword!r} "
                                   "chunk"))
    removed, texts = _card_chunks(input, winner, card, character, warnings, format_id)
    chunk_assets = _asset_chunks(png, input, removed, warnings)
    for i, offset in enumerate(sorted(removed)):
        if offset in texts:  # the text itself, for an unchanged rewrite (in memory only)
            remember_json(character, chunk_slot(i), texts[offset])
    stripped = splice(png, drop=removed)
    kept: list[tuple[str, int, int, int]] = []  # the chunks the image keeps, in order
    for row in png.table():
        if row[1] in removed:
            removed[row[1]]["at"] = len(kept)
        else:
            kept.append(row)
    layout["png"] = {
        "layout": [removed[o] for o in sorted(removed)],
        "image": fingerprint_kept(png, kept),
        "digest": completed_digest(card, found.version),
    }
    _place_assets(character, stripped, chunk_assets, warnings)


def _card_chunks(input: AdapterInput, winner: ChunkPayload, card: Any, character: Character,
                 warnings: list[Issue], format_id: str
                 ) -> tuple[dict[int, dict[str, Any]], dict[int, bytes]]:
    """Every card chunk's record, by offset, and the JSON text of those that can be read."""
    removed: dict[int, dict[str, Any]] = {}
    texts: dict[int, bytes] = {}
    payloads = sorted([*input.png_json("ccv3"), *input.png_json("chara")],
                      key=lambda p: p.chunk.chunk.offset)
    for p in payloads:
        chunk = p.chunk.chunk
        where = f"{p.chunk.kind} {p.keyword!r} chunk at offset {chunk.offset}"
        item: dict[str, Any] = {"keyword": p.keyword, "type": p.chunk.kind,
                                "encoding": p.encoding}
        if p.error is None:
            raw = _chunk_json(p, input)
            style = sniff_layout(raw) if raw is not None else {}
            if raw is not None:
                texts[chunk.offset] = raw
            if style:
                item["style"] = style
        if not chunk.crc_ok():
            warnings.append(Issue("$", f"{where} has a bad CRC; read anyway, rewritten with "
                                  "a correct one"))
        _role(item, p, winner, card, character, where, warnings, format_id)
        removed[chunk.offset] = item
    return removed, texts


def _role(item: dict[str, Any], p: ChunkPayload, winner: ChunkPayload, card: Any,
          character: Character, where: str, warnings: list[Issue], format_id: str) -> None:
    """What a card chunk is to the card read from ``winner``: the winner itself, broken, a
    mirror of it, the V2 backfill bunzai derives, or another card kept for a round trip."""
    if p is winner:
        item["role"] = "winner"
    elif p.error is not None:
        item["role"] = "broken"
        warnings.append(Issue("$", f"{where} cannot be read ({p.error}); the card comes "
                              f"from the {winner.keyword!r} chunk and the broken chunk is "
                              "not written back"))
    else:
        other = unfrozen(p.value)  # shared like the card: copied only where it is kept
        # the same object: the chunks hold the same text (one parse serves both)
        if (other is card or json_equal(_without_spec(other), _without_spec(card))
                ) and isinstance(other, dict):
            item["role"] = "mirror"
            item["set"] = {k: thaw(other[k]) for k in ("spec", "spec_version")
                           if k in other}
            item["drop"] = [k for k in ("spec", "spec_version")
                            if k in card and k not in other]
        elif (shaped := _backfill_kind(other, p.keyword, winner.keyword, character,
                                       format_id)) is not None:
            item["role"] = "backfill"  # the V2 copy bunzai derives: nothing to keep
            item["shaped"] = shaped
        else:
            item["role"] = "other"
            item["json"] = thaw(other)
            diff = _first_difference(other, card)
            same_kind = p.keyword.lower() == winner.keyword.lower()
            what = (f"two different {p.keyword!r} chunks: the first is read"
                    if same_kind else
                    f"the {p.keyword!r} and {winner.keyword!r} chunks disagree "
                    f"(first at {diff}): {winner.keyword!r} is read")
            warnings.append(Issue("$", f"{what}; the other is kept for a round trip"))


def _asset_chunks(png: PngFile, input: AdapterInput, removed: dict[int, dict[str, Any]],
                  warnings: list[Issue]) -> dict[str, bytes]:
    """The bytes of each asset chunk by key (the first of a repeated key); each chunk's record
    goes into ``removed``."""
    chunk_assets: dict[str, bytes] = {}
    for tc in png.text_chunks():
        key = asset_key(tc.keyword)
        if key is None:
            continue
        chunk = tc.chunk
        item = {"asset": key, "keyword": tc.keyword, "type": tc.kind}
        if not chunk.crc_ok():
            warnings.append(Issue("$", f"asset chunk {tc.keyword!r} has a bad CRC; read anyway"))
        try:
            data = _asset_bytes(tc, input)
        except BunzaiError as exc:
            warnings.append(Issue("$", f"asset chunk {tc.keyword!r} cannot be read "
                                  f"({exc.message}); it is not written back"))
            item["role"] = "broken"
        else:
            if key in chunk_assets:
                warnings.append(Issue("$", f"asset chunk {tc.keyword!r} repeats key {key!r}; "
                                      "the first is used"))
                item["role"] = "duplicate"
                item["data"] = encode_base64(data).decode("ascii")
            else:
                chunk_assets[key] = data
        removed[chunk.offset] = item
    return chunk_assets


def _place_assets(character: Character, stripped: bytes, chunk_assets: Mapping[str, bytes],
                  warnings: list[Issue]) -> None:
    """The image (unless it is the placeholder) and the asset chunks' bytes go to the assets
    that point at them; an asset chunk no asset names becomes an orphan asset, the image the
    main icon when the card lists none."""
    from bunzai.sdk import Asset

    placeholder = is_default_avatar(stripped)
    media = sniff_media(stripped)[0]
    image_used = False
    referenced: set[str] = set()
    for asset in character.assets:
        uri = asset.uri or ""
        if uri.startswith("ccdefault:"):
            image_used = True
            if not placeholder:
                asset.data, asset.media_type, asset.origin = stripped, media, "png"
        elif uri.startswith("__asset:"):
            key = uri[len("__asset:"):]
            if key in chunk_assets:
                asset.data = chunk_assets[key]
                asset.media_type = sniff_media(asset.data)[0]
                asset.origin = f"png:chara-ext-asset_:{key}"
                referenced.add(key)
            else:
                warnings.append(Issue("$.data.assets", f"asset {asset.name!r} points to "
                                      f"{uri} but the PNG has no such chunk"))
    for key, data in chunk_assets.items():
        if key not in referenced:
            character.assets.append(Asset(
                type=ORPHAN_TYPE, name=key, uri=f"__asset:{key}", ext=sniff_media(data)[1],
                media_type=sniff_media(data)[0], data=data,
                origin=f"png:chara-ext-asset_:{key}", orphan=True))
    if not image_used and not placeholder:
        character.assets.insert(0, Asset(type="icon", name="main", ext="png", media_type=media,
                                         data=stripped, origin="png"))


def _asset_bytes(tc: TextChunk, input: AdapterInput) -> bytes:
    """The bytes an asset chunk carries: its base64, decoded under the input's limits."""
    return decode_base64(tc.value_bytes(input.limits), limits=input.limits)


def _chunk_json(p: ChunkPayload, input: AdapterInput) -> bytes | None:
    """The JSON text of a card chunk (its base64 decoded), or None when it cannot be read."""
    if p.text is not None:  # the text the value was parsed from
        return p.text
    try:
        raw = p.chunk.value_bytes(input.limits)
        return decode_base64(raw, limits=input.limits) if p.encoding == "base64" else raw
    except BunzaiError:
        return None


def _first_difference(a: Any, b: Any, path: str = "$") -> str | None:
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        for k in sorted(set(a) | set(b), key=str):
            if k not in a or k not in b:
                return f"{path}.{k}"
            got = _first_difference(a[k], b[k], f"{path}.{k}")
            if got:
                return got
        return None
    if isinstance(a, list) and isinstance(b, list):
        for i in range(max(len(a), len(b))):
            if i >= len(a) or i >= len(b):
                return f"{path}[{i}]"
            got = _first_difference(a[i], b[i], f"{path}[{i}]")
            if got:
                return got
        return None
    return None if json_equal(a, b) else path


def _without_spec(obj: Any) -> Any:
    if not isinstance(obj, dict):
        return obj
    return {k: v for k, v in obj.items() if k not in ("spec", "spec_version")}


def _backfill_kind(other: Any, keyword: str, winner: str, character: Character,
                   format_id: str) -> bool | None:
    """Whether ``other`` is the V2 backfill of the card read (and which kind), else None."""
    if keyword.lower() != "chara" or winner.lower() != "ccv3":
        return None
    for shaped in (True, False):
        if json_equal(other, v2_backfill(character, format_id, shaped)):
            return shaped
    return None

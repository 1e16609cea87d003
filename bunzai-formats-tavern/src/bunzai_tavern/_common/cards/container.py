"""Tavern character cards in their containers: JSON, PNG/APNG text chunks, EXIF UserComment.

Reading: the card JSON goes through :mod:`bunzai.cardspec`; this module adds what the container
holds (the avatar, ``chara-ext-asset_`` chunks) and remembers the container's layout in
``passthrough[format_id]``: which chunks held the card, their keyword spelling, chunk type,
encoding and position (:mod:`.png_read`, with the image's fingerprint of :mod:`.fingerprint`),
and the JSON layout of a ``.json`` file.

Writing: JSON with SillyTavern's 4-space indent, or a PNG built on the avatar with ``chara``
(V2, root duplicates regenerated from ``data``) then ``ccv3`` (V3) spliced in before ``IEND``
and every other chunk kept byte for byte.  When the card and the image are unchanged since
they were read, the original chunk layout is restored, so a round trip re-emits the same file.

The loss report names what the chosen container and spec cannot hold (the card codec reports
the spec's drops, this module what the container changes: an avatar converted to PNG, assets a
JSON card cannot carry); everything the format never holds is declared on the adapter.  A PNG
is written as parts (views of the avatar, asset chunks base64-encoded as the file is written),
so a large card never exists as one more copy next to its assets.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, cast

from bunzai.sdk import (
    AdapterInput,
    Issue,
    LossReport,
    MalformedInput,
    OutputFile,
    ReadResult,
    UsageError,
    WriteResult,
    dumps_layout,
    get_limits,
    json_as_read,
    setting_hint,
    sniff_layout,
    sniff_media,
    thaw,
    unfrozen,
)
from bunzai.sdk.base64 import encode_base64
from bunzai.sdk.cards import (
    ASSET_URI_PREFIX,
    asset_keyword,
    build_book,
    build_card,
    card_or_asset_offsets,
    completed_digest,
    digest_matches,
    parse_book,
    parse_card,
)
from bunzai.sdk.png import (
    Base64TextChunk,
    PngFile,
    make_text_chunk,
    splice,
    splice_parts,
)

from . import Found, find_card
from .avatar import Undecodable, default_avatar, to_png
from .fingerprint import image_unchanged
from .png_read import ORPHAN_TYPE, chunk_slot, read_png, v2_backfill

if TYPE_CHECKING:
    from bunzai.sdk import Asset, Character

__all__ = [
    "CardOptions",
    "card_text",
    "main_icon",
    "parse_options",
    "read_card",
    "read_character",
    "read_found",
    "write_card",
    "write_character",
]

_SPECS = ("v1", "v2", "v3")
Spec = Literal["v1", "v2", "v3"]
_SPEC_OF_LABEL: dict[str | None, Spec] = {"chara_card_v2": "v2", "chara_card_v3": "v3",
                                          None: "v1"}


# -- options ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CardOptions:
    """Writer options; ``None`` means "as the source was" (or the default)."""

    container: str | None = None
    chunks: str | None = None
    spec: str | None = None


def parse_options(options: Mapping[str, Any]) -> CardOptions:
    """The writer's options (checked and converted by core) with the one rule joining two of
    them: ``chunks`` means PNG output."""
    container, chunks, spec = (options.get(n) for n in ("container", "chunks", "spec"))
    if chunks is not None and container is None:
        container = "png"
    if chunks is not None and container == "json":
        raise UsageError("chunks applies to PNG output; drop it or use container=png")
    return CardOptions(container, chunks, spec)


# -- reading ---------------------------------------------------------------------------------------


def read_card(input: AdapterInput, options: Mapping[str, Any], format_id: str) -> ReadResult:
    """The character card in ``input``: the adapters' reader."""
    return read_character(input, format_id)


def write_card(character: Character, options: Mapping[str, Any], format_id: str
               ) -> WriteResult:
    """The card for ``character``: the adapters' writer."""
    return write_character(character, format_id, options)


def read_character(input: AdapterInput, format_id: str, *,
                   book_in_extensions: bool = False) -> ReadResult:
    """The character card in ``input`` (JSON, PNG or EXIF), with its container's assets."""
    return read_found(input, find_card(input), format_id, book_in_extensions=book_in_extensions)


def read_found(input: AdapterInput, found: Found, format_id: str, *,
               book_in_extensions: bool = False) -> ReadResult:
    """Read the card ``found`` located in ``input``."""
    if found.card is None:
        raise MalformedInput(found.problem or "no character card found in this "
                             f"{input.container} file")
    warnings: list[Issue] = []
    card = unfrozen(found.card)  # the parse detection shares: read here, never changed
    character = parse_card(card, format_id=format_id, warnings=warnings)  # copies what it keeps
    layout = character.passthrough[format_id]
    if book_in_extensions:
        _lift_extension_book(character, layout, format_id, warnings)
    if found.source == "json":
        layout["json"] = sniff_layout(input.data, 4)
    elif found.source == "png":
        read_png(input, found, card, character, layout, warnings, format_id)
    elif found.source == "exif":
        _read_exif(input, found, character, layout)
    return ReadResult([character], warnings)


def _lift_extension_book(character: Character, layout: dict[str, Any], format_id: str,
                         warnings: list[Issue]) -> None:
    """RoleCall's V2 export keeps the book in ``data.extensions.character_book``."""
    book = character.extensions.get("character_book")
    if character.lorebook is not None or not isinstance(book, Mapping):
        return
    layout["book_in_extensions"] = list(character.extensions).index("character_book")
    character.lorebook = parse_book(book, format_id=format_id, warnings=warnings,
                                    path="$.data.extensions.character_book")
    del character.extensions["character_book"]


def _beside_v3(character: Character, format_id: str) -> Character:
    """``character`` as a reader takes it from the ``ccv3`` chunk written of it: the V2
    ``chara`` copy is derived from that, so the two chunks never disagree (a V3 card fills in
    what the character leaves unset, such as an entry's ``use_regex``)."""
    v3 = build_card(character, spec="v3", format_id=format_id, loss=LossReport())
    return parse_card(v3, format_id=format_id)


def _read_exif(input: AdapterInput, found: Found, character: Character,
               layout: dict[str, Any]) -> None:
    from bunzai.sdk import Asset

    media, ext = sniff_media(input.data)
    layout["exif"] = {"container": input.container, "encoding": found.exif_encoding,
                  "image": hashlib.sha256(input.data).hexdigest(),
                  "digest": completed_digest(found.card, found.version)}
    character.assets.insert(0, Asset(type="icon", name="main", ext=ext, media_type=media,
                                     data=input.data, origin=input.container))


# -- writing ---------------------------------------------------------------------------------------


def _spec_of(layout: Mapping[str, Any]) -> Spec | None:
    if "spec" not in layout:
        return None
    return _SPEC_OF_LABEL.get(layout.get("spec"), "v3")


def main_icon(assets: Sequence[Asset]) -> int | None:
    """Index of the avatar: the ``main`` icon (or a ``ccdefault:`` one), else the first icon."""
    with_data = [(i, a) for i, a in enumerate(assets) if a.type == "icon" and a.data]
    for i, a in with_data:
        if a.name == "main" or (a.uri or "").startswith("ccdefault:"):
            return i
    return with_data[0][0] if with_data else None


def _image(character: Character, icon: int | None, loss: LossReport,
           warnings: list[str]) -> tuple[bytes, PngFile]:
    """The PNG the card is written onto (its own card chunks removed), with its chunk table
    (parsed once for everything the writer asks of the image)."""
    if icon is None:
        return _walked(default_avatar())
    asset = character.assets[icon]
    data = asset.data or b""
    if sniff_media(data)[0] != "image/png":
        try:
            converted = to_png(data)
        except Undecodable as exc:
            loss.dropped(f"assets[{icon}]", f"the avatar ({sniff_media(data)[0]}) does not decode "
                         f"({exc}); a placeholder image was used")
            warnings.append("the avatar does not decode; a placeholder was used")
            return _walked(default_avatar())
        loss.approximated(f"assets[{icon}]", f"converted from {sniff_media(data)[0]} to PNG to "
                          "carry the card")
        return _walked(converted)
    try:
        png = PngFile.parse(data)
    except MalformedInput:
        loss.dropped(f"assets[{icon}]", "the avatar is a broken PNG; a placeholder was used")
        return _walked(default_avatar())
    cards = card_or_asset_offsets(png)
    if png.cut is not None or png.truncated:  # rebuilt from its whole chunks, with an end
        where = f"inside its {png.cut[0]} chunk" if png.cut is not None else "before its end"
        loss.approximated(f"assets[{icon}]", f"the picture is cut short ({where}): written "
                          "with its whole chunks and a proper end")
        return _walked(splice(png, drop=cards))
    if cards:
        return _walked(splice(png, drop=cards))
    return data, png


def _walked(image: bytes) -> tuple[bytes, PngFile]:
    return image, PngFile.parse(image)


def card_text(obj: Any, encoding: str, style: Mapping[str, Any] | None = None,
              as_read: tuple[object, str] | None = None) -> bytes:
    """The chunk text for a JSON value: base64 (or raw) of compact JSON, or of ``style``; or
    of the text the chunk had when read (``as_read``: the entity and its slot) when that
    holds the same value."""
    raw = dumps_layout(obj, style)
    if as_read is not None:
        raw = json_as_read(*as_read, raw, obj)
    return raw if encoding == "raw" else encode_base64(raw)


PngPart = bytes | memoryview | Base64TextChunk
"""A piece of a PNG output: a chunk, a view of the avatar, or an asset chunk encoded as it is
written."""


def _text_chunk(keyword: str, text: bytes, kind: str) -> bytes:
    if kind not in ("tEXt", "zTXt", "iTXt"):
        kind = "tEXt"
    return make_text_chunk(keyword, text, kind)


def _asset_chunk(keyword: str, data: bytes, kind: str = "tEXt") -> PngPart:
    """An asset as a base64 text chunk; built as it is written unless it is compressed."""
    if kind == "zTXt":
        return make_text_chunk(keyword, encode_base64(data), kind)
    return Base64TextChunk(keyword, data, kind if kind == "iTXt" else "tEXt")


def write_character(character: Character, format_id: str, options: Mapping[str, Any], *,
                    book_in_extensions: bool = False) -> WriteResult:
    """Write a character as a Tavern card (PNG by default, or JSON) and report what it could
    not hold as it was."""
    opts = parse_options(options)
    raw_layout = character.passthrough.get(format_id)
    layout: Mapping[str, Any] = raw_layout if isinstance(raw_layout, Mapping) else {}
    container = opts.container or ("json" if "json" in layout else "png")
    loss = LossReport()
    warnings: list[str] = []
    # The writer only reassigns fields of ``work`` and sets ``uri`` on its assets: a shallow
    # copy with copied assets keeps the caller's entity as it was.
    work = character.model_copy(update={"assets": [a.model_copy() for a in character.assets]})
    if book_in_extensions and isinstance(layout.get("book_in_extensions"), int) and (
            work.lorebook is not None):
        items = list(work.extensions.items())
        book = build_book(work.lorebook, v3=False, format_id=format_id, loss=loss)
        items.insert(min(int(layout["book_in_extensions"]), len(items)), ("character_book",
                                                                           book))
        work.extensions = dict(items)
        work.lorebook = None
    exif = _unchanged_exif(work, format_id, opts, layout)
    data: bytes | list[PngPart]
    if exif is not None:
        data, suffix = exif
    elif container == "json":
        data = _write_json(work, format_id, opts, layout, loss, options, warnings)
        suffix = ".json"
    else:
        data = _write_png(work, format_id, opts, layout, loss, warnings, character)
        suffix = ".png"
    return WriteResult([OutputFile(data, suffix)], loss, warnings)


def _unchanged_exif(work: Character, format_id: str, opts: CardOptions,
                    layout: Mapping[str, Any]) -> tuple[bytes, str] | None:
    """A WebP/JPEG card whose card and image are unchanged is written back as it was.

    bunzai does not rewrite EXIF; a changed card becomes a PNG card (reported as such).
    """
    exif = layout.get("exif")
    if opts.container is not None or not isinstance(exif, Mapping):
        return None
    icon = main_icon(work.assets)
    if icon is None:
        return None
    data = work.assets[icon].data or b""
    if hashlib.sha256(data).hexdigest() != exif.get("image"):
        return None
    spec = _spec_of(layout) or "v1"
    lost = LossReport()
    card = build_card(work, spec=spec, format_id=format_id, loss=lost)
    if lost or not digest_matches(card, exif.get("digest")):  # e.g. a book added to a V1 card
        return None
    return data, "." + sniff_media(data)[1]


_REMOTE = ("http://", "https://", "data:")


def _write_json(work: Character, format_id: str, opts: CardOptions, layout: Mapping[str, Any],
                loss: LossReport, options: Mapping[str, Any], warnings: list[str]) -> bytes:
    spec = cast(Spec, opts.spec) or _spec_of(layout) or "v3"
    if opts.spec is None and spec == "v1" and _v1_cannot_hold(work, format_id):
        spec = "v2"
        warnings.append(_UPGRADED)
    own_json = "json" in layout and _spec_of(layout) == spec
    for i, asset in enumerate(work.assets):
        uri = asset.uri or ""
        if uri.startswith("data:"):
            continue
        if asset.data is None:
            if asset.uri is not None and not uri.startswith(_REMOTE) and not own_json:
                # a JSON card never points at bytes it does not carry
                loss.dropped(f"assets[{i}]", f"{uri[:40]} names a file in another container "
                             "and the asset has no bytes to write inline")
                asset.uri = None
            continue
        if asset.uri is None or asset.orphan:
            loss.dropped(f"assets[{i}]", "a JSON card cannot carry files; only assets with a "
                         "uri are listed")
        elif uri.startswith(_REMOTE):
            loss.approximated(f"assets[{i}]", "a JSON card keeps the asset's uri, not its bytes")
        elif spec == "v3":
            # __asset:, embeded://, ccdefault: name bytes of the container the card came in:
            # a V3 JSON card carries them itself, as RisuAI's own JSON export does
            media = asset.media_type or sniff_media(asset.data)[0]
            asset.uri = f"data:{media};base64,{encode_base64(asset.data).decode('ascii')}"
        else:
            loss.dropped(f"assets[{i}]", f"a {spec.upper()} card has no asset list")
    card = build_card(work, spec=spec, format_id=format_id, loss=loss, root_duplicates=True)
    return dumps_layout(card, layout.get("json"), 4, options)


def _write_png(work: Character, format_id: str, opts: CardOptions, layout: Mapping[str, Any],
               loss: LossReport, warnings: list[str], read: Character) -> list[PngPart]:
    """``read``: the entity as given (``work`` is the writer's copy), whose chunks' text is
    given back where a chunk holds what it held."""
    png_layout = layout.get("png") if isinstance(layout.get("png"), Mapping) else None
    icon = main_icon(work.assets)
    image, png = _image(work, icon, loss, warnings)

    # Assets with bytes travel as chara-ext-asset_ chunks, addressed by __asset:<key>.
    limits = get_limits()
    chunk_assets: dict[str, bytes] = {}
    used = {(a.uri or "")[len("__asset:"):] for a in work.assets
            if (a.uri or "").startswith("__asset:") and a.data is not None}
    next_key = 1
    for i, asset in enumerate(work.assets):
        uri = asset.uri or ""
        if i == icon:
            # the avatar is the PNG itself; a named one is listed so that its name is kept
            if (asset.uri is not None and not uri.startswith("ccdefault:")) or (
                    asset.uri is None and asset.name not in ("", "main")):
                asset.uri = "ccdefault:"
            continue
        if uri.startswith("ccdefault:") or asset.data is None or uri.startswith("data:"):
            continue
        if uri.startswith("__asset:"):
            key = uri[len("__asset:"):]
        else:
            while str(next_key) in used:
                next_key += 1
            key = str(next_key)
            used.add(key)
            asset.uri = f"{ASSET_URI_PREFIX}{key}"  # its address in this PNG
        chunk_assets.setdefault(key, asset.data)
        if asset.orphan and (asset.type, asset.name) != (ORPHAN_TYPE, key):
            loss.approximated(f"assets[{i}]", "an asset the card does not list: kept as a bare "
                              f"PNG chunk (asset {key}), without its type and name")
        if _base64_length(len(asset.data)) > limits.max_base64:
            loss.dropped(f"assets[{i}]", f"{len(asset.data):,} bytes: more base64 than the "
                         f"reading limit allows ({setting_hint('max_base64')}); written, but "
                         "skipped when read back with these limits")

    usable = _usable_layout(work, format_id, opts, layout, png_layout, image, png)
    if usable is None and _spec_of(layout) == "v1" and opts.chunks is None and _v1_cannot_hold(
            work, format_id):
        warnings.append(_UPGRADED + " (chara) with its V3 copy (ccv3)")
    placed: dict[int, list[PngPart]] = {}
    tail: list[PngPart] = []
    if usable is not None:
        chunk_layout, winner = usable
        written_assets: set[str] = set()
        backfills: dict[bool, dict[str, Any]] = {}

        def backfill(shaped: bool) -> dict[str, Any]:
            # built only when the layout has a backfill chunk
            if shaped not in backfills:
                backfills[shaped] = v2_backfill(_beside_v3(work, format_id), format_id, shaped)
            return backfills[shaped]

        for n, item in enumerate(chunk_layout):
            chunk = _layout_chunk(item, winner, backfill, chunk_assets, written_assets,
                                  (read, chunk_slot(n)))
            if chunk is not None:
                placed.setdefault(int(item.get("at", 0)), []).append(chunk)
        for key, data in chunk_assets.items():
            if key not in written_assets:
                tail.append(_asset_chunk(asset_keyword(key), data))
    else:
        chunks = opts.chunks or "both"
        ccv3 = (build_card(work, spec="v3", format_id=format_id, loss=loss)
                if chunks in ("both", "ccv3") else None)
        if ccv3 is not None and chunks == "both":
            # the V2 copy of what the ccv3 chunk reads as, so that the two always agree
            tail.append(make_text_chunk("chara", card_text(
                v2_backfill(parse_card(ccv3, format_id=format_id), format_id), "base64")))
        elif chunks == "chara":
            chara_loss = loss
            v2 = work
            if icon is not None:
                # the picture itself is the avatar: a V2 card loses its record, so its name
                v2 = work.model_copy(update={"assets": list(work.assets)})
                v2.assets[icon] = v2.assets[icon].model_copy(update={"uri": None})
                if v2.assets[icon].name not in ("", "main"):
                    loss.dropped(f"assets[{icon}].name", "a V2 card has no asset list; the "
                                 "avatar is the picture itself, without its name")
            chara = build_card(v2, spec="v2", format_id=format_id, loss=chara_loss,
                               root_duplicates=True)
            tail.append(make_text_chunk("chara", card_text(chara, "base64")))
        if ccv3 is not None:
            tail.append(make_text_chunk("ccv3", card_text(ccv3, "base64")))
        first_text = _first_text_at(png)
        if first_text is not None:  # Agnai and TavernAI read the first text chunk
            placed[first_text], tail = tail, []
        for key, data in chunk_assets.items():
            tail.append(_asset_chunk(asset_keyword(key), data))
    return _assemble(image, png, placed, tail)


def _first_text_at(png: PngFile) -> int | None:
    """Where (among the chunks :func:`_assemble` keeps) the image's first text chunk is: the
    card chunks go before it, so that an avatar's own ``Title`` or ``Author`` is not the
    first text chunk; None when the image keeps none."""
    cards = card_or_asset_offsets(png)
    kept = 0
    for type_, offset, _length, _crc in png.table():
        if offset in cards:
            continue
        if type_ in ("tEXt", "zTXt", "iTXt"):
            return kept
        kept += 1
    return None


def _base64_length(size: int) -> int:
    return 4 * ((size + 2) // 3)


_UPGRADED = ("the card was read as V1, which has no place for what the character now holds "
             "(a lorebook, tags, greetings ...): written as a V2 card")


def _v1_cannot_hold(work: Character, format_id: str) -> bool:
    """Whether writing ``work`` as the V1 card it was read as would lose something."""
    lost = LossReport()
    build_card(work, spec="v1", format_id=format_id, loss=lost)
    return bool(lost)


def _usable_layout(work: Character, format_id: str, opts: CardOptions, layout: Mapping[str, Any],
                   png_layout: Mapping[str, Any] | None, image: bytes, png: PngFile
                   ) -> tuple[list[Any], dict[str, Any]] | None:
    """The recorded chunk layout and the card as read, when nothing has changed since."""
    if png_layout is None or opts.chunks is not None:
        return None
    chunks = png_layout.get("layout")
    if not isinstance(chunks, list) or not image_unchanged(png_layout.get("image"), image,
                                                             png):
        return None
    spec = _spec_of(layout) or "v3"
    lost = LossReport()
    winner = build_card(work, spec=spec, format_id=format_id, loss=lost)
    if spec == "v1" and lost:
        return None  # a V1 card that cannot hold the character (a lorebook embedded since)
    if not digest_matches(winner, png_layout.get("digest")):
        return None
    return chunks, winner


def _layout_chunk(item: Any, winner: dict[str, Any],
                  backfill: Callable[[bool], dict[str, Any]], assets: Mapping[str, bytes],
                  written: set[str], as_read: tuple[Character, str]) -> PngPart | None:
    if not isinstance(item, Mapping):
        return None
    keyword = str(item.get("keyword") or "chara")
    kind = str(item.get("type") or "tEXt")
    role = item.get("role")
    if "asset" in item:
        key = str(item["asset"])
        if role == "duplicate" and isinstance(item.get("data"), str):
            return _text_chunk(keyword, item["data"].encode("ascii"), kind)
        if role == "broken" or key not in assets or key in written:
            return None
        written.add(key)
        return _asset_chunk(keyword, assets[key], kind)
    encoding = str(item.get("encoding") or "base64")
    if role == "winner":
        obj: Any = winner
    elif role == "mirror":
        obj = {**winner}
        for k in item.get("drop") or ():
            obj.pop(k, None)
        sets = item.get("set")
        if isinstance(sets, Mapping):
            for k, v in sets.items():
                obj[k] = thaw(v)
            order = list(winner)
            obj = {k: obj[k] for k in [*order, *obj] if k in obj}
    elif role == "other":
        obj = thaw(item.get("json"))
    elif role == "backfill":
        obj = backfill(bool(item.get("shaped", True)))
    else:
        return None
    style = item.get("style")
    return _text_chunk(keyword, card_text(obj, encoding, style if isinstance(style, Mapping)
                                           else None, as_read), kind)


def _assemble(image: bytes, png: PngFile, placed: Mapping[int, list[PngPart]],
              tail: list[PngPart]) -> list[PngPart]:
    """``image`` (parsed as ``png``) with ``placed`` chunks before the kept chunk at each index
    and ``tail`` before IEND, as parts: every chunk of the image is a view of it, kept byte
    for byte."""
    cards = card_or_asset_offsets(png)
    if not placed:
        return splice_parts(png, drop=cards, insert_before_iend=tail)
    view = memoryview(image)
    parts: list[PngPart] = [view[:8]]
    kept = 0
    late: list[PngPart] = []
    for i, (_type, offset, length, _crc) in enumerate(png.table()):
        if offset in cards:
            continue
        parts.extend(placed.get(kept, ()))
        if i == png.iend_index:
            parts.extend(tail)
        parts.append(view[offset:offset + 12 + length])
        kept += 1
    for at, chunks in placed.items():
        if at >= kept:
            late.extend(chunks)
    if png.iend_index is None:
        parts.extend(late)
        parts.extend(tail)
    elif late:
        # positions past the end (chunks that followed IEND): keep them after it
        parts.extend(late)
    if png.trailing:
        parts.append(view[png.trailing_offset:])
    return parts

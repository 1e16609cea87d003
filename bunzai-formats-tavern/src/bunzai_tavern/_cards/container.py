"""Tavern character cards in their containers: JSON, PNG/APNG text chunks, EXIF UserComment.

Reading: the card JSON goes through :mod:`bunzai.cardspec`; this module adds what the container
holds (the avatar, ``chara-ext-asset_`` chunks) and remembers the container's layout in
``passthrough[format_id]``: which chunks held the card, their keyword spelling, chunk type,
encoding and position, and the JSON layout of a ``.json`` file.

Writing: JSON with SillyTavern's 4-space indent, or a PNG built on the avatar with ``chara``
(V2, root duplicates regenerated from ``data``) then ``ccv3`` (V3) spliced in before ``IEND``
and every other chunk kept byte for byte.  When the card and the image are unchanged since
they were read, the original chunk layout is restored, so a round trip re-emits the same file.

Every write is read back and compared with the entity: whatever differs and was not already
reported goes into the loss report, so the report cannot forget anything.  A PNG is written as
parts (views of the avatar, asset chunks base64-encoded as the file is written) and read back
without its asset chunks' base64 (see :class:`_ReadBack`).
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Literal, cast

from bunzai.cardspec import (
    build_book,
    build_card,
    card_digest,
    digest_matches,
    parse_book,
    parse_card,
)
from bunzai.cardspec._shape import json_equal, plain
from bunzai.compare import diff_paths
from bunzai.containers.base64util import check_base64_length, decode_base64, encode_base64
from bunzai.containers.media import sniff_media
from bunzai.containers.png import (
    Base64TextChunk,
    PngFile,
    TextChunk,
    is_text_chunk_with_keyword,
    make_text_chunk,
    splice,
    splice_parts,
)
from bunzai.errors import BunzaiError, LimitExceeded, MalformedInput, UsageError
from bunzai.frozen import thaw
from bunzai.input import AdapterInput
from bunzai.jsonio import dumps
from bunzai.limits import get_limits, setting_hint
from bunzai.loss import LossReport
from bunzai.types import Issue, OutputFile, ReadResult, WriteResult

from .._options import layout_of, sniff_layout
from . import Found, find_card, is_asset_keyword
from .avatar import default_avatar, is_default_avatar, to_png

if TYPE_CHECKING:
    from bunzai.model import Asset, Character

__all__ = [
    "CardOptions",
    "card_text",
    "diff_paths",
    "json_style",
    "main_icon",
    "parse_options",
    "read_character",
    "read_found",
    "readback_loss",
    "rolled_up",
    "write_character",
]

CARD_KEYWORDS = frozenset({"chara", "ccv3"})
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
    card = thaw(found.card)
    character = parse_card(card, format_id=format_id, warnings=warnings)
    pt = character.passthrough[format_id]
    if book_in_extensions:
        _lift_extension_book(character, pt, format_id, warnings)
    if found.source == "json":
        layout = sniff_layout(input.data, 4)
        if input.data.isascii() and b"\\u" in input.data:
            layout["ascii"] = True
        pt["json"] = layout
    elif found.source == "png":
        _read_png(input, found, card, character, pt, warnings, format_id)
    elif found.source == "exif":
        _read_exif(input, found, character, pt)
    return ReadResult([character], warnings)


def _lift_extension_book(character: Character, pt: dict[str, Any], format_id: str,
                         warnings: list[Issue]) -> None:
    """RoleCall's V2 export keeps the book in ``data.extensions.character_book``."""
    book = character.extensions.get("character_book")
    if character.lorebook is not None or not isinstance(book, Mapping):
        return
    pt["book_in_extensions"] = list(character.extensions).index("character_book")
    character.lorebook = parse_book(book, format_id=format_id, warnings=warnings,
                                    path="$.data.extensions.character_book")
    del character.extensions["character_book"]


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


_NO_SHAPE = "\x00no-shape"


def _backfill(character: Character, format_id: str, shaped: bool = True) -> dict[str, Any]:
    """The ``chara`` chunk this module writes next to a ``ccv3`` one (V2, root duplicates):
    shaped like the card it was read from, or (``shaped=False``) as a fresh card."""
    return build_card(character, spec="v2", format_id=format_id if shaped else _NO_SHAPE,
                      loss=LossReport(), root_duplicates=True)


def _backfill_kind(other: Any, keyword: str, winner: str, character: Character,
                   format_id: str) -> bool | None:
    """Whether ``other`` is the V2 backfill of the card read (and which kind), else None."""
    if keyword.lower() != "chara" or winner.lower() != "ccv3":
        return None
    for shaped in (True, False):
        if json_equal(other, _backfill(character, format_id, shaped)):
            return shaped
    return None


def _read_png(input: AdapterInput, found: Found, card: Any, character: Character,
              pt: dict[str, Any], warnings: list[Issue], format_id: str) -> None:
    from bunzai.model import Asset

    png = input.png
    assert png is not None and found.payload is not None
    for problem in png.problems:
        warnings.append(Issue("$", f"PNG: {problem}"))
    winner = found.payload
    removed: dict[int, dict[str, Any]] = {}
    payloads = sorted([*input.png_json("ccv3"), *input.png_json("chara")],
                      key=lambda p: p.chunk.chunk.offset)
    for p in payloads:
        chunk = p.chunk.chunk
        where = f"{p.chunk.kind} {p.keyword!r} chunk at offset {chunk.offset}"
        item: dict[str, Any] = {"keyword": p.keyword, "type": p.chunk.kind,
                                "encoding": p.encoding}
        if p.error is None:
            style = _chunk_style(p, input)
            if style:
                item["style"] = style
        if not chunk.crc_ok():
            warnings.append(Issue("$", f"{where} has a bad CRC; read anyway, rewritten with "
                                  "a correct one"))
        if p is winner:
            item["role"] = "winner"
        elif p.error is not None:
            item["role"] = "broken"
            warnings.append(Issue("$", f"{where} cannot be read ({p.error}); the card comes "
                                  f"from the {winner.keyword!r} chunk and the broken chunk is "
                                  "not written back"))
        else:
            other = p.mutable()
            if json_equal(_without_spec(other), _without_spec(card)) and isinstance(other,
                                                                                  dict):
                item["role"] = "mirror"
                item["set"] = {k: other[k] for k in ("spec", "spec_version") if k in other}
                item["drop"] = [k for k in ("spec", "spec_version")
                                if k in card and k not in other]
            elif (shaped := _backfill_kind(other, p.keyword, winner.keyword, character,
                                           format_id)) is not None:
                item["role"] = "backfill"  # the V2 copy bunzai derives: nothing to keep
                item["shaped"] = shaped
            else:
                item["role"] = "other"
                item["json"] = other
                diff = _first_difference(other, card)
                same_kind = p.keyword.lower() == winner.keyword.lower()
                what = (f"two different {p.keyword!r} chunks: the first is read"
                        if same_kind else
                        f"the {p.keyword!r} and {winner.keyword!r} chunks disagree "
                        f"(first at {diff}): {winner.keyword!r} is read")
                warnings.append(Issue("$", f"{what}; the other is kept for a round trip"))
        removed[chunk.offset] = item

    chunk_assets: dict[str, bytes] = {}
    for tc in png.text_chunks():
        key = is_asset_keyword(tc.keyword)
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

    stripped = splice(png, remove=lambda c: c.offset in removed)
    kept = 0
    for chunk in png.chunks:
        if chunk.offset in removed:
            removed[chunk.offset]["at"] = kept
        else:
            kept += 1
    pt["png"] = {
        "layout": [removed[o] for o in sorted(removed)],
        "image": image_fingerprint(stripped),
        "digest": card_digest(card),
    }

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
                type="x-risu-asset", name=key, uri=f"__asset:{key}", ext=sniff_media(data)[1],
                media_type=sniff_media(data)[0], data=data,
                origin=f"png:chara-ext-asset_:{key}", orphan=True))
    if not image_used and not placeholder:
        character.assets.insert(0, Asset(type="icon", name="main", ext="png", media_type=media,
                                         data=stripped, origin="png"))


def _asset_bytes(tc: TextChunk, input: AdapterInput) -> bytes:
    """The bytes an asset chunk carries: its base64 decoded, or, when reading back an output
    this module is about to write, the bytes the chunk will be encoded from (see
    :class:`_ReadBack`), under the same base64 length limit."""
    text = tc.value_bytes(input.limits)
    if isinstance(input, _ReadBack):
        chunk = input.standins.get(text)
        if chunk is not None:
            check_base64_length(chunk.text_length, input.limits)
            return bytes(chunk.data)
    return decode_base64(text, limits=input.limits)


_FINGERPRINT = "png-chunks:"


def image_fingerprint(image: bytes) -> str:
    """What tells "the image is unchanged" on re-write, without hashing megabytes of pixels.

    Every chunk's type, length and stored CRC (the file already carries a checksum of each
    chunk), plus a hash of any bytes that do not form chunks: a chunk table walk instead of a
    SHA-256 over the whole image (~20 µs instead of 1.7 ms for 2.7 MB).  It only decides whether
    the recorded chunk layout is reused; the image itself is always written from the avatar.
    """
    try:
        png = PngFile.parse(image)
    except BunzaiError:
        return hashlib.sha256(image).hexdigest()
    h = hashlib.sha256(";".join(f"{c.type}:{c.length}:{c.crc}" for c in png.chunks)
                       .encode("latin-1"))
    h.update(b"\x00")
    h.update(image[png.trailing_offset:])
    return _FINGERPRINT + h.hexdigest()


def image_unchanged(recorded: Any, image: bytes) -> bool:
    """Whether ``image`` is the one a reader recorded (a fingerprint, or the SHA-256 of the
    whole image that earlier versions stored in passthrough)."""
    if not isinstance(recorded, str):
        return False
    if recorded.startswith(_FINGERPRINT):
        return recorded == image_fingerprint(image)
    return recorded == hashlib.sha256(image).hexdigest()


def _chunk_style(p: Any, input: AdapterInput) -> dict[str, Any]:
    try:
        raw = p.chunk.value_bytes(input.limits)
        if p.encoding == "base64":
            raw = decode_base64(raw, limits=input.limits)
    except BunzaiError:
        return {}
    return json_style(raw)


def _read_exif(input: AdapterInput, found: Found, character: Character,
               pt: dict[str, Any]) -> None:
    from bunzai.model import Asset

    media, ext = sniff_media(input.data)
    pt["exif"] = {"container": input.container, "encoding": found.exif_encoding,
                  "image": hashlib.sha256(input.data).hexdigest(),
                  "digest": card_digest(plain(found.card))}
    character.assets.insert(0, Asset(type="icon", name="main", ext=ext, media_type=media,
                                     data=input.data, origin=input.container))


# -- writing ---------------------------------------------------------------------------------------


def _spec_of(pt: Mapping[str, Any]) -> Spec | None:
    if "spec" not in pt:
        return None
    return _SPEC_OF_LABEL.get(pt.get("spec"), "v3")


def _is_card_or_asset_chunk(chunk: Any) -> bool:
    if chunk.type not in ("tEXt", "zTXt", "iTXt"):
        return False
    if is_text_chunk_with_keyword(chunk, CARD_KEYWORDS):
        return True
    head = bytes(chunk.data[:80])
    keyword = head.split(b"\x00", 1)[0].decode("latin-1")
    return is_asset_keyword(keyword) is not None


def main_icon(assets: Sequence[Asset]) -> int | None:
    """Index of the avatar: the ``main`` icon (or a ``ccdefault:`` one), else the first icon."""
    with_data = [(i, a) for i, a in enumerate(assets) if a.type == "icon" and a.data]
    for i, a in with_data:
        if a.name == "main" or (a.uri or "").startswith("ccdefault:"):
            return i
    return with_data[0][0] if with_data else None


def _image(character: Character, icon: int | None, loss: LossReport,
           warnings: list[str]) -> bytes:
    """The PNG the card is written onto (its own card chunks removed)."""
    if icon is None:
        return default_avatar()
    asset = character.assets[icon]
    data = asset.data or b""
    if sniff_media(data)[0] != "image/png":
        converted = to_png(data)
        if converted is None:
            loss.dropped(f"assets[{icon}]", f"the avatar ({sniff_media(data)[0]}) could not be "
                         "converted to PNG (not an image Pillow reads, or Pillow is not "
                         "installed); a placeholder image was used")
            warnings.append("the avatar could not be converted to PNG; a placeholder was used")
            return default_avatar()
        loss.approximated(f"assets[{icon}]", f"converted from {sniff_media(data)[0]} to PNG to "
                          "carry the card")
        return converted
    try:
        png = PngFile.parse(data)
    except MalformedInput:
        loss.dropped(f"assets[{icon}]", "the avatar is a broken PNG; a placeholder was used")
        return default_avatar()
    if any(_is_card_or_asset_chunk(c) for c in png.chunks):
        return splice(png, remove=_is_card_or_asset_chunk)
    return data


def json_style(raw: bytes) -> dict[str, Any]:
    """How a chunk's JSON text was laid out, when it is not compact JSON.stringify output
    (tab or space indent, Python's ``", "`` separators, ``\\u`` escapes, a final newline)."""
    style: dict[str, Any] = {}
    text = raw.lstrip(b"\xef\xbb\xbf")
    brace = text.find(b"{")
    if brace < 0:
        return style
    after = text[brace + 1:brace + 200]
    if after.startswith((b"\n", b"\r\n")):
        line = after.split(b"\n", 2)[1] if after.startswith(b"\n") else after[2:]
        pad = line[:len(line) - len(line.lstrip(b" \t"))]
        style["indent"] = "\t" if pad.startswith(b"\t") else len(pad)
    else:
        colon = text.find(b'":', brace)
        if colon > 0 and text[colon + 2:colon + 3] == b" ":
            style["sep"] = [", ", ": "]
    if text.isascii() and b"\\u" in text:
        style["ascii"] = True
    if text.endswith(b"\n"):
        style["newline"] = True
    return style


def card_text(obj: Any, encoding: str, style: Mapping[str, Any] | None = None) -> bytes:
    """The chunk text for a JSON value: base64 (or raw) of compact JSON, or of ``style``."""
    if style:
        import json

        indent = style.get("indent")
        sep = style.get("sep")
        separators = ((str(sep[0]), str(sep[1])) if isinstance(sep, list) and len(sep) == 2
                      else (",", ": ") if indent is not None else (",", ":"))
        raw = json.dumps(obj, indent=indent, separators=separators,
                         ensure_ascii=bool(style.get("ascii"))).encode("utf-8", "surrogatepass")
        if style.get("newline"):
            raw += b"\n"
    else:
        raw = dumps(obj)
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
                    reader: Callable[[AdapterInput], ReadResult],
                    book_in_extensions: bool = False, readback: bool = True) -> WriteResult:
    """Write a character as a Tavern card (PNG by default, or JSON) and report what was lost.

    ``reader`` reads the output back (the adapter's own reader); every canonical difference
    not already reported is added to the loss report.
    """
    opts = parse_options(options)
    raw_pt = character.passthrough.get(format_id)
    pt: Mapping[str, Any] = raw_pt if isinstance(raw_pt, Mapping) else {}
    container = opts.container or ("json" if "json" in pt else "png")
    loss = LossReport()
    warnings: list[str] = []
    # The writer only reassigns fields of ``work`` and sets ``uri`` on its assets: a shallow copy
    # with copied assets is enough (a deep copy was a quarter of a PNG write).
    work = character.model_copy(update={"assets": [a.model_copy() for a in character.assets]})
    if book_in_extensions and isinstance(pt.get("book_in_extensions"), int) and (
            work.lorebook is not None):
        items = list(work.extensions.items())
        book = build_book(work.lorebook, v3=False, format_id=format_id, loss=loss)
        items.insert(min(int(pt["book_in_extensions"]), len(items)), ("character_book", book))
        work.extensions = dict(items)
        work.lorebook = None
    exif = _unchanged_exif(work, format_id, opts, pt)
    data: bytes | list[PngPart]
    if exif is not None:
        data, suffix = exif
    elif container == "json":
        data = _write_json(work, format_id, opts, pt, loss, options, warnings)
        suffix = ".json"
    else:
        data = _write_png(work, format_id, opts, pt, loss, warnings)
        suffix = ".png"
    if readback:
        readback_loss(character, data, suffix, reader, loss,
                      f"the {'JSON' if container == 'json' else 'PNG'} card could not hold it "
                      "as it was")
    return WriteResult([OutputFile(data, suffix)], loss, warnings)


def readback_loss(entity: Any, data: bytes | Sequence[PngPart], suffix: str,
                  reader: Callable[[AdapterInput], ReadResult], loss: LossReport,
                  reason: str) -> None:
    """Read ``data`` (bytes, or the parts of a PNG) back and report every difference the loss
    report does not cover yet."""
    name = f"out{suffix}"
    try:
        inp = AdapterInput(data, name) if isinstance(data, bytes) else _ReadBack(data, name)
        back = reader(inp).entities[0]
    except BunzaiError as exc:  # pragma: no cover - a writer bug; say so rather than hide it
        loss.dropped("$", f"the output could not be read back ({exc.message})")
        return
    for path in rolled_up(back, [p for p in diff_paths(entity, back)
                                    if not loss.covers(p)]):
        if not loss.covers(path):
            loss.approximated(path, reason)


class _ReadBack(AdapterInput):
    """A PNG output in parts, as the reader sees it, without encoding or joining its assets.

    Each :class:`Base64TextChunk` becomes a chunk of the same type and keyword whose text is a
    short token; reading the asset chunk, :func:`_asset_bytes` takes the bytes the token stands
    for instead of decoding the base64 it would have found.  Base64 round-trips exactly, so the
    entity read back is the one the whole file gives, for megabytes less and no decoding: a
    30 MB CharX written as a PNG card no longer holds its assets, their base64 and the
    decoded copies at once.  The size limit is checked against the size of the real file.
    """

    __slots__ = ("standins",)

    def __init__(self, parts: Sequence[PngPart], filename: str) -> None:
        standins: dict[bytes, Base64TextChunk] = {}
        pieces: list[bytes | memoryview] = []
        size = 0
        for part in parts:
            size += len(part)
            if isinstance(part, Base64TextChunk):
                token = b"bunzai-readback:%d" % len(standins)
                standins[token] = part
                pieces.append(part.with_text(token))
            else:
                pieces.append(part)
        limits = get_limits()
        if size > limits.max_size:
            raise LimitExceeded("input", size, limits.max_size, setting_hint("max_size"),
                                path=filename)
        super().__init__(b"".join(pieces), filename, limits=limits)
        self.standins = standins


def rolled_up(back: Any, paths: list[str]) -> list[str]:
    """``paths``, with everything under a top-level field that came back empty reported as
    that field (``alternate_greetings``, not ``alternate_greetings[0]`` …)."""
    out: list[str] = []
    for path in paths:
        field = path.split(".", 1)[0].split("[", 1)[0]
        value = getattr(back, field, _MISSING)
        if value is not _MISSING and value in (None, "", [], {}):
            path = field
        if path not in out:
            out.append(path)
    return out


_MISSING: Any = object()


def _unchanged_exif(work: Character, format_id: str, opts: CardOptions,
                    pt: Mapping[str, Any]) -> tuple[bytes, str] | None:
    """A WebP/JPEG card whose card and image are unchanged is written back as it was.

    bunzai does not rewrite EXIF; a changed card becomes a PNG card (reported as such).
    """
    exif = pt.get("exif")
    if opts.container is not None or not isinstance(exif, Mapping):
        return None
    icon = main_icon(work.assets)
    if icon is None:
        return None
    data = work.assets[icon].data or b""
    if hashlib.sha256(data).hexdigest() != exif.get("image"):
        return None
    spec = _spec_of(pt) or "v1"
    card = build_card(work, spec=spec, format_id=format_id, loss=LossReport())
    if not digest_matches(card, exif.get("digest")):
        return None
    return data, "." + sniff_media(data)[1]


_REMOTE = ("http://", "https://", "data:")


def _write_json(work: Character, format_id: str, opts: CardOptions, pt: Mapping[str, Any],
                loss: LossReport, options: Mapping[str, Any], warnings: list[str]) -> bytes:
    spec = cast(Spec, opts.spec) or _spec_of(pt) or "v3"
    if opts.spec is None and spec == "v1" and _v1_cannot_hold(work, format_id):
        spec = "v2"
        warnings.append(_UPGRADED)
    own_json = "json" in pt and _spec_of(pt) == spec
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
            loss.approximated(f"assets[{i}]", f"written inline as a data: URI (was {uri[:40]}): "
                              "a JSON card carries no files")
        else:
            loss.dropped(f"assets[{i}]", f"a {spec.upper()} card has no asset list")
    card = build_card(work, spec=spec, format_id=format_id, loss=loss, root_duplicates=True)
    indent, newline = layout_of(options, pt.get("json"), 4)
    layout = pt.get("json")
    ascii_only = bool(layout.get("ascii")) if isinstance(layout, Mapping) else False
    out = dumps(card, indent=indent, ensure_ascii=ascii_only)
    return out + b"\n" if newline else out


def _write_png(work: Character, format_id: str, opts: CardOptions, pt: Mapping[str, Any],
               loss: LossReport, warnings: list[str]) -> list[PngPart]:
    png_pt = pt.get("png") if isinstance(pt.get("png"), Mapping) else None
    icon = main_icon(work.assets)
    image = _image(work, icon, loss, warnings)

    # Assets with bytes travel as chara-ext-asset_ chunks, addressed by __asset:<key>.
    chunk_assets: dict[str, bytes] = {}
    used = {(a.uri or "")[len("__asset:"):] for a in work.assets
            if (a.uri or "").startswith("__asset:") and a.data is not None}
    next_key = 1
    for i, asset in enumerate(work.assets):
        uri = asset.uri or ""
        if i == icon:
            if asset.uri is not None and not uri.startswith("ccdefault:"):
                loss.approximated(f"assets[{i}].uri", "the avatar is the PNG itself "
                                  "(ccdefault:)")
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
            loss.approximated(f"assets[{i}]", f"stored as PNG chunk chara-ext-asset_:{key} "
                              f"(uri __asset:{key})")
            asset.uri = f"__asset:{key}"
        chunk_assets.setdefault(key, asset.data)

    usable = _usable_layout(work, format_id, opts, pt, png_pt, image)
    if usable is None and _spec_of(pt) == "v1" and opts.chunks is None and _v1_cannot_hold(
            work, format_id):
        warnings.append(_UPGRADED + " (chara) with its V3 copy (ccv3)")
    placed: dict[int, list[PngPart]] = {}
    tail: list[PngPart] = []
    if usable is not None:
        layout, winner = usable
        written_assets: set[str] = set()
        backfills: dict[bool, dict[str, Any]] = {}

        def backfill(shaped: bool) -> dict[str, Any]:
            # built only if the layout has a backfill chunk: a card build is ~1 ms
            if shaped not in backfills:
                backfills[shaped] = _backfill(work, format_id, shaped)
            return backfills[shaped]

        for item in layout:
            chunk = _layout_chunk(item, winner, backfill, chunk_assets, written_assets)
            if chunk is not None:
                placed.setdefault(int(item.get("at", 0)), []).append(chunk)
        for key, data in chunk_assets.items():
            if key not in written_assets:
                tail.append(_asset_chunk(f"chara-ext-asset_:{key}", data))
    else:
        chunks = opts.chunks or "both"
        if chunks in ("both", "chara"):
            chara_loss = loss if chunks == "chara" else LossReport()
            chara = build_card(work, spec="v2", format_id=format_id, loss=chara_loss,
                               root_duplicates=True)
            tail.append(make_text_chunk("chara", card_text(chara, "base64")))
        if chunks in ("both", "ccv3"):
            ccv3 = build_card(work, spec="v3", format_id=format_id, loss=loss)
            tail.append(make_text_chunk("ccv3", card_text(ccv3, "base64")))
        for key, data in chunk_assets.items():
            tail.append(_asset_chunk(f"chara-ext-asset_:{key}", data))
    return _assemble(image, placed, tail)


_UPGRADED = ("the card was read as V1, which has no place for what the character now holds "
             "(a lorebook, tags, greetings ...): written as a V2 card")


def _v1_cannot_hold(work: Character, format_id: str) -> bool:
    """Whether writing ``work`` as the V1 card it was read as would lose something."""
    lost = LossReport()
    build_card(work, spec="v1", format_id=format_id, loss=lost)
    return bool(lost)


def _usable_layout(work: Character, format_id: str, opts: CardOptions, pt: Mapping[str, Any],
                   png_pt: Mapping[str, Any] | None, image: bytes
                   ) -> tuple[list[Any], dict[str, Any]] | None:
    """The recorded chunk layout and the card as read, when nothing has changed since."""
    if png_pt is None or opts.chunks is not None:
        return None
    layout = png_pt.get("layout")
    if not isinstance(layout, list) or not image_unchanged(png_pt.get("image"), image):
        return None
    spec = _spec_of(pt) or "v3"
    lost = LossReport()
    winner = build_card(work, spec=spec, format_id=format_id, loss=lost)
    if spec == "v1" and lost:
        return None  # a V1 card that cannot hold the character (a lorebook embedded since)
    if not digest_matches(winner, png_pt.get("digest")):
        return None
    return layout, winner


def _layout_chunk(item: Any, winner: dict[str, Any],
                  backfill: Callable[[bool], dict[str, Any]], assets: Mapping[str, bytes],
                  written: set[str]) -> PngPart | None:
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
                obj[k] = plain(v)
            order = list(winner)
            obj = {k: obj[k] for k in [*order, *obj] if k in obj}
    elif role == "other":
        obj = plain(item.get("json"))
    elif role == "backfill":
        obj = backfill(bool(item.get("shaped", True)))
    else:
        return None
    style = item.get("style")
    return _text_chunk(keyword, card_text(obj, encoding, style if isinstance(style, Mapping)
                                           else None), kind)


def _assemble(image: bytes, placed: Mapping[int, list[PngPart]],
              tail: list[PngPart]) -> list[PngPart]:
    """``image`` with ``placed`` chunks before the kept chunk at each index and ``tail`` before
    IEND, as parts: every chunk of the image is a view of it, kept byte for byte."""
    png = PngFile.parse(image)
    if not placed:
        return splice_parts(png, remove=_is_card_or_asset_chunk, insert_before_iend=tail)
    view = memoryview(image)
    parts: list[PngPart] = [view[:8]]
    kept = 0
    late: list[PngPart] = []
    for i, chunk in enumerate(png.chunks):
        if _is_card_or_asset_chunk(chunk):
            continue
        parts.extend(placed.get(kept, ()))
        if i == png.iend_index:
            parts.extend(tail)
        parts.append(chunk.raw)
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

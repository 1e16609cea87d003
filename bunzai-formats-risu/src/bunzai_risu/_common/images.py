"""Container images the RisuAI formats need: a PNG to carry chunks, a JPEG to carry a CharX.

Pillow (a dependency of this distribution) is imported only when a transcode is really needed
(an avatar in the wrong format).  An image Pillow cannot decode gives way to a small generated
one, and the writer reports the avatar dropped with Pillow's reason.
"""

from __future__ import annotations

import io
from typing import TYPE_CHECKING

from bunzai.sdk import sniff_media
from bunzai.sdk.cards import chunk_keyword, is_card_or_asset_chunk
from bunzai.sdk.png import minimal_png, splice

if TYPE_CHECKING:
    from bunzai.sdk import LossReport
    from bunzai.sdk.png import Chunk, PngFile

RISU_KEYWORDS = frozenset({"risuai", "persona"})
"""Text chunks RisuAI writes besides the card and asset chunks: the 2023 card data and a
persona."""

TINY_JPEG = bytes.fromhex(
    "ffd8ffe000104a46494600010100000100010000ffdb004300080606070605080707070909080a0c140d0c0b0b0c"
    "1912130f141d1a1f1e1d1a1c1c20242e2720222c231c1c2837292c30313434341f27393d38323c2e333432ffc0"
    "000b080001000101011100ffc4001f0000010501010101010100000000000000000102030405060708090a0bff"
    "c400b5100002010303020403050504040000017d01020300041105122131410613516107227114328191a10823"
    "42b1c11552d1f02433627282090a161718191a25262728292a3435363738393a434445464748494a5354555657"
    "58595a636465666768696a737475767778797a838485868788898a92939495969798999aa2a3a4a5a6a7a8a9aa"
    "b2b3b4b5b6b7b8b9bac2c3c4c5c6c7c8c9cad2d3d4d5d6d7d8d9dae1e2e3e4e5e6e7e8e9eaf1f2f3f4f5f6f7f8"
    "f9faffda0008010100003f002bffd9"
)
"""A valid 1x1 grey baseline JPEG (JFIF, no EXIF) for a JPEG-wrapped CharX without an avatar."""


UNDECODABLE = "the image does not decode"
"""How a reason for an image that could not be converted begins: it is dropped, not changed."""


def _pillow_convert(data: bytes, fmt: str) -> bytes | str:
    """``data`` re-encoded as ``fmt``, or why Pillow cannot decode it."""
    from PIL import Image

    try:
        with Image.open(io.BytesIO(data)) as opened:
            opened.load()
            im: Image.Image = opened
            if fmt == "JPEG" and im.mode not in ("RGB", "L"):
                im = im.convert("RGB")
            out = io.BytesIO()
            im.save(out, format=fmt)
            return out.getvalue()
    except Exception as exc:  # a damaged or unsupported image: the caller falls back
        return f"{UNDECODABLE} ({sniff_media(data)[0]}: {exc or type(exc).__name__})"


def as_png(data: bytes | None) -> tuple[bytes, str | None]:
    """(PNG bytes, None) for an image, or (a generated PNG, why) when it cannot be converted."""
    if not data:
        return minimal_png(), "no image: a 1x1 transparent PNG was generated"
    if sniff_media(data)[0] == "image/png":
        return data, None
    converted = _pillow_convert(data, "PNG")
    if isinstance(converted, str):
        return minimal_png(), f"{converted}; a 1x1 transparent PNG stands in"
    return converted, "the image was converted to PNG"


def as_jpeg(data: bytes | None) -> tuple[bytes, str | None]:
    """(JPEG bytes, None) for an image, or (a generated JPEG, why) when it cannot be converted."""
    if not data:
        return TINY_JPEG, "no image: a 1x1 JPEG was generated"
    if sniff_media(data)[0] == "image/jpeg":
        return data, None
    converted = _pillow_convert(data, "JPEG")
    if isinstance(converted, str):
        return TINY_JPEG, f"{converted}; a 1x1 JPEG stands in"
    return converted, "the image was converted to JPEG"


def report_image(loss: LossReport, path: str, why: str) -> None:
    """Report an image :func:`as_png` or :func:`as_jpeg` changed: dropped when it did not
    decode, approximated otherwise."""
    if why.startswith(UNDECODABLE):
        loss.dropped(path, why)
    else:
        loss.approximated(path, why)


def _replaced(chunk: Chunk) -> bool:
    if is_card_or_asset_chunk(chunk):
        return True
    keyword = chunk_keyword(chunk)
    return keyword is not None and keyword.lower() in RISU_KEYWORDS


def strip_chunks(png: PngFile, insert: list[bytes] | None = None) -> bytes:
    """The PNG without card, persona, legacy and asset chunks (what RisuAI's writers replace),
    with ``insert`` placed before IEND."""
    return splice(png, remove=_replaced, insert_before_iend=insert or [])

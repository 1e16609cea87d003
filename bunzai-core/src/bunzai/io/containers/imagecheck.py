"""Whether a PNG's picture can be shown whole: a card whose text chunks are intact may still
carry a picture cut short in its image data, which apps then show broken or replace with their
placeholder.  Readers name it on read; writers that carry the picture on say what the target
gets.  Pixels are never decoded: the chunk walk, then (for :func:`image_damage`, and only for
image data laid out as a cut file leaves it) the zlib stream, inflated in bounded pieces and
thrown away.
"""

from __future__ import annotations

import zlib

from bunzai.errors import MalformedInput

from .png import PngFile

__all__ = ["damaged_pictures", "image_damage", "picture_damage", "png_damage"]

_IMAGE_DATA = ("IDAT", "fdAT")
_PIECE = 1 << 20


def png_damage(png: PngFile) -> str | None:
    """What the chunk walk alone shows is wrong with the picture of ``png`` (cheap: no
    inflating), or None."""
    has_data = png.has_chunk(b"IDAT")
    if png.cut is not None and (png.cut[0] in _IMAGE_DATA or has_data):
        return "its image data is cut short (the file ends inside it)"
    if not has_data:
        return "it has no image data"
    return None


def image_damage(data: bytes | memoryview) -> str | None:
    """Why the PNG picture ``data`` cannot be shown whole, or None when it can: not a PNG,
    :func:`png_damage`, or image data whose compressed stream is corrupt or ends early (a
    picture cut short and then given a new end, as removing a card's chunks does)."""
    try:
        png = PngFile.parse(data)
    except MalformedInput as exc:
        return f"it is not a readable PNG ({exc.message})"
    found = png_damage(png)
    if found is not None:
        return found
    sizes = png.lengths_of(b"IDAT")
    if len(sizes) < 2 or sizes[-1] < max(sizes[:-1]):
        # encoders write image data in equal chunks and a shorter last one; a file cut short
        # and given a new end keeps only whole chunks.  Only that shape is inflated to check.
        return None
    stream = zlib.decompressobj()
    try:
        for chunk in png.chunks_of("IDAT"):
            pending = bytes(chunk.data)
            while pending and not stream.eof:
                stream.decompress(pending, _PIECE)
                pending = stream.unconsumed_tail
            if stream.eof:
                return None
    except zlib.error as exc:
        return f"its image data is corrupt ({exc})"
    return "its image data ends early (the picture is cut short)"


def picture_damage(data: bytes | memoryview) -> str | None:
    """Why a picture an archive or card carries cannot be shown whole, or None: a PNG as
    :func:`image_damage` finds, a JPEG whose end marker is missing, a WebP shorter than its
    header says.  Other data (and other media) is not judged."""
    head = bytes(data[:12])
    if head.startswith(b"\x89PNG\r\n\x1a\n"):
        return image_damage(data)
    if head.startswith(b"\xff\xd8\xff"):
        # coded data stuffs every 0xFF, so FF D9 near the end is the end marker (a trailer
        # some cameras add after it is allowed)
        if b"\xff\xd9" not in bytes(data[-4096:]):
            return "its JPEG data ends early (no end-of-image marker)"
        return None
    if head[:4] == b"RIFF" and head[8:12] == b"WEBP":
        declared = int.from_bytes(head[4:8], "little") + 8
        if declared > len(data):
            return (f"its WebP data ends early ({len(data):,} of the {declared:,} bytes its "
                    "header declares)")
    return None


def damaged_pictures(entities: list[object]) -> list[tuple[str, str]]:
    """``(path, message)`` for every picture the entities carry that cannot be shown whole (an
    asset, a persona's avatar): a damage a reader keeps without a word would otherwise travel
    on into every file written from it."""
    out: list[tuple[str, str]] = []
    many = len(entities) > 1
    for i, entity in enumerate(entities):
        base = f"entities[{i}]." if many else ""
        # the fields themselves: a model without the field would answer a miss slowly
        fields = getattr(entity, "__dict__", None) or {}
        items = [(f"assets[{k}]", a) for k, a in enumerate(fields.get("assets") or [])]
        avatar = fields.get("avatar")
        if avatar is not None and not isinstance(avatar, str):
            items.append(("avatar", avatar))
        for path, asset in items:
            data = getattr(asset, "data", None)
            if not data:
                continue
            reason = picture_damage(data)
            if reason is not None:
                name = getattr(asset, "name", None) or "?"
                out.append((base + path, f"the picture {name!r} is damaged: {reason}"))
    return out

"""PNG chunks for format adapters: walk without decoding pixels, text chunks, byte-exact splice."""

from ..io.containers.imagecheck import image_damage, picture_damage, png_damage
from ..io.containers.placeholder import default_avatar, is_default_avatar
from ..io.containers.png import (
    PNG_SIGNATURE,
    TEXT_CHUNK_TYPES,
    Base64TextChunk,
    Chunk,
    PngFile,
    TextChunk,
    is_text_chunk_with_keyword,
    make_chunk,
    make_text_chunk,
    minimal_png,
    splice,
    splice_parts,
)

__all__ = [
    "PNG_SIGNATURE",
    "TEXT_CHUNK_TYPES",
    "Base64TextChunk",
    "Chunk",
    "PngFile",
    "TextChunk",
    "default_avatar",
    "image_damage",
    "is_default_avatar",
    "is_text_chunk_with_keyword",
    "make_chunk",
    "make_text_chunk",
    "minimal_png",
    "picture_damage",
    "png_damage",
    "splice",
    "splice_parts",
]

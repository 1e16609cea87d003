"""Container handling shared by every format plugin: sniffing, PNG chunks, zips, EXIF, base64.

Each container idea is implemented once here so that every plugin gets the same limits, the
same tolerance for damaged files and the same byte-exact rewriting.  Pure stdlib; pixels are
never decoded.
"""

from __future__ import annotations

from bunzai.io.containers.base64util import decode_base64, looks_like_base64
from bunzai.io.containers.exif import build_exif_user_comment, find_exif, read_user_comment
from bunzai.io.containers.media import ext_is_plausible, sniff_media
from bunzai.io.containers.png import (
    PNG_SIGNATURE,
    Chunk,
    PngFile,
    TextChunk,
    is_text_chunk_with_keyword,
    make_chunk,
    make_text_chunk,
    minimal_png,
    splice,
)
from bunzai.io.containers.sniff import find_eocd, sniff_container, zip_start_offset
from bunzai.io.containers.zipsafe import SafeZip, ZipEntry, write_zip

__all__ = [
    "PNG_SIGNATURE",
    "Chunk",
    "PngFile",
    "SafeZip",
    "TextChunk",
    "ZipEntry",
    "build_exif_user_comment",
    "decode_base64",
    "ext_is_plausible",
    "find_eocd",
    "find_exif",
    "is_text_chunk_with_keyword",
    "looks_like_base64",
    "make_chunk",
    "make_text_chunk",
    "minimal_png",
    "read_user_comment",
    "sniff_container",
    "sniff_media",
    "splice",
    "write_zip",
    "zip_start_offset",
]

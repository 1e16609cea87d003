"""Asset helpers shared by the CharX, PNG-card and module adapters.

RisuAI names asset files after the asset's declared name and extension, but the declared
extension often lies (WebP bytes under ``.png``), so every asset's media type is sniffed from
its bytes, and paths are only ever used to look bytes up, never to guess what they are.
"""

from __future__ import annotations

import base64
import re

from bunzai.sdk import (
    Asset,
    ext_is_plausible,
    sniff_media,
)

# RisuAI's set, plus "/" (a name must not add folders or climb out with "..") and DEL, which
# zip readers refuse as a control character.
_UNSAFE = re.compile(r'[<>:"/\\|?*\x00-\x1f\x7f]')
_DEVICE = re.compile(r"^(con|prn|aux|nul|com[1-9]|lpt[1-9])(\..*)?$", re.IGNORECASE)

_ITYPES = {
    "image": ("png", "jpg", "jpeg", "gif", "webp", "avif"),
    "audio": ("mp3", "wav", "ogg", "flac"),
    "video": ("mp4", "webm", "mov", "avi", "mkv"),
    "model": ("mmd", "obj"),
    "ai": ("safetensors", "cpkt", "onnx"),
    "fonts": ("otf", "ttf", "woff", "woff2"),
    "code": ("js", "ts", "lua"),
}
_TYPE_DIRS = ("emotion", "background", "user_icon", "icon")
EMBEDDED_SCHEMES = ("embeded://", "embedded://")
"""How a CharX card points at a file in its archive (RisuAI's spelling first)."""


def embedded_path(uri: str) -> str | None:
    """The archive path an ``embeded://`` URI names, or None for other URIs."""
    for scheme in EMBEDDED_SCHEMES:
        if uri.startswith(scheme):
            return uri[len(scheme):]
    return None


def media_type(data: bytes | None) -> str | None:
    """Sniffed media type of ``data``, None when there are no bytes (an empty file is bytes:
    octet-stream, as every other reader says)."""
    return sniff_media(data)[0] if data is not None else None


def make_asset(*, type: str, name: str, uri: str | None = None, ext: str | None = None,
               data: bytes | None = None, origin: str | None = None,
               orphan: bool = False) -> Asset:
    """An :class:`Asset` whose media type comes from its bytes."""
    return Asset(type=type, name=name, uri=uri, ext=ext, data=data, media_type=media_type(data),
                 origin=origin, orphan=orphan)


def data_uri(data: bytes, mime: str | None = None) -> str:
    """A base64 ``data:`` URI for ``data``."""
    return f"data:{mime or media_type(data) or 'application/octet-stream'};base64," + \
        base64.b64encode(data).decode("ascii")


def ext_for(asset: Asset) -> str:
    """The extension to write: the declared one when plausible, else the sniffed one."""
    if asset.ext and ext_is_plausible(asset.ext):
        return asset.ext
    if asset.data:
        return sniff_media(asset.data)[1]
    return "png"


def sanitize(name: str) -> str:
    """RisuAI's entry-name sanitiser: unsafe characters to ``_``, trailing dots/spaces cut."""
    name = _UNSAFE.sub("_", name).rstrip(". ")
    if _DEVICE.match(name):
        name = "_" + name
    return name or "_"


def charx_path(asset_type: str, name: str, ext: str) -> str:
    """``assets/<type>/<itype>/<name>.<ext>`` as RisuAI's CharX writer builds it."""
    tdir = asset_type if asset_type in _TYPE_DIRS else "other"
    if ext == "unknown":
        itype, ext = "image", "png"
    else:
        itype = next((k for k, v in _ITYPES.items() if ext in v), "other")
    stem = sanitize(name[:100] if name else "asset")
    return f"assets/{tdir}/{itype}/{stem}.{ext}"


def dedupe(path: str, taken: set[str]) -> str:
    """``path``, or ``stem_1.ext``, ``stem_2.ext`` … when the name is taken (case-insensitive)."""
    if path.casefold() not in taken:
        return path
    stem, dot, ext = path.rpartition(".")
    if not dot:
        stem, ext = path, ""
    i = 1
    while True:
        cand = f"{stem}_{i}.{ext}" if dot else f"{stem}_{i}"
        if cand.casefold() not in taken:
            return cand
        i += 1

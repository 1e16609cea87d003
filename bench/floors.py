"""The floors: the least work that produces the same result, with the same libraries bunzai uses.

A ratio against a floor says how much bunzai adds on top of the unavoidable work (walking the
chunk headers, base64, JSON).  Each floor uses exactly the accelerators bunzai would pick in this
environment: orjson always, pybase64 when installed, else binascii.  They are deliberately
minimal (no limits, no error handling), which is what makes them floors.
"""

from __future__ import annotations

import base64
import binascii
import io
import struct
import zipfile
import zlib
from typing import Any

import orjson

try:
    import pybase64  # type: ignore[import-not-found,unused-ignore]

    def b64decode(data: bytes | memoryview) -> bytes:
        out: bytes = pybase64.b64decode(data, validate=True)
        return out

    def b64encode(data: bytes) -> bytes:
        out: bytes = pybase64.b64encode(data)
        return out

    BASE64_LIB = "pybase64"
except ImportError:  # the same fallback bunzai uses

    def b64decode(data: bytes | memoryview) -> bytes:
        return binascii.a2b_base64(data, strict_mode=True)

    def b64encode(data: bytes) -> bytes:
        return base64.b64encode(data)

    BASE64_LIB = "binascii"

_HEAD = struct.Struct(">I4s")
_U32 = struct.Struct(">I")
CARD_KEYS = (b"chara", b"ccv3")


def walk_text(buf: bytes, want: tuple[bytes, ...] = CARD_KEYS) -> dict[bytes, memoryview]:
    """Chunk walk over bytes in memory: the payload of each wanted tEXt, no copies of IDAT."""
    view = memoryview(buf)
    pos, n, found = 8, len(buf), {}
    unpack = _HEAD.unpack_from
    while pos + 12 <= n:
        length, ctype = unpack(buf, pos)
        start, end = pos + 8, pos + 8 + length
        if ctype == b"tEXt":
            sep = buf.find(b"\x00", start, end)
            key = buf[start:sep]
            if key in want:
                found[key] = view[sep + 1:end]
        elif ctype == b"IEND":
            break
        pos = end + 4
    return found


def read_png_card(buf: bytes) -> dict[bytes, Any]:
    """Floor of a lossless ST read: walk, then base64 + JSON of every card chunk present."""
    return {k: orjson.loads(b64decode(v)) for k, v in walk_text(buf).items()}


def read_png_card_file(path: str) -> dict[bytes, Any]:
    with open(path, "rb") as fh:
        return read_png_card(fh.read())


def make_chunk(ctype: bytes, payload: bytes) -> bytes:
    return b"".join((_U32.pack(len(payload)), ctype, payload,
                     _U32.pack(zlib.crc32(payload, zlib.crc32(ctype)))))


def write_png_card(src: bytes, v2: dict[str, Any], v3: dict[str, Any] | None) -> bytes:
    """Floor of a card write: serialize, base64, drop old card chunks, splice as memoryviews."""
    new = [make_chunk(b"tEXt", b"chara\x00" + b64encode(orjson.dumps(v2)))]
    if v3 is not None:
        new.append(make_chunk(b"tEXt", b"ccv3\x00" + b64encode(orjson.dumps(v3))))
    view = memoryview(src)
    parts: list[bytes | memoryview] = []
    pos, n, run = 8, len(src), 0
    unpack = _HEAD.unpack_from
    while pos + 12 <= n:
        length, ctype = unpack(src, pos)
        end = pos + 12 + length
        if ctype == b"tEXt":
            key = src[pos + 8:src.find(b"\x00", pos + 8, end)]
            if key in CARD_KEYS:
                parts.append(view[run:pos])
                run = end
        elif ctype == b"IEND":
            parts.append(view[run:pos])
            parts.extend(new)
            run = pos
            break
        pos = end
    parts.append(view[run:])
    return b"".join(parts)


def read_json(buf: bytes) -> Any:
    return orjson.loads(buf)


def read_charx(buf: bytes) -> tuple[Any, dict[str, bytes]]:
    """Floor of a CharX read: open the zip, parse ``card.json``, copy out every other member."""
    with zipfile.ZipFile(io.BytesIO(buf)) as z:
        card = orjson.loads(z.read("card.json"))
        return card, {n: z.read(n) for n in z.namelist() if n != "card.json"}


def charx_icon(card: Any, members: dict[str, bytes]) -> bytes | None:
    """The image a card's icon asset points at (``embeded://`` URI), else the first PNG."""
    data = card.get("data") if isinstance(card, dict) else None
    for asset in (data or {}).get("assets") or []:
        uri = asset.get("uri", "") if isinstance(asset, dict) else ""
        if asset.get("type") == "icon" and uri.startswith("embeded://"):
            found = members.get(uri.removeprefix("embeded://"))
            if found is not None:
                return found
    return next((v for v in members.values() if v.startswith(b"\x89PNG\r\n\x1a\n")), None)

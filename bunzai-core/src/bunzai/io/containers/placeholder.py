"""The placeholder image writers use when a character has no avatar of its own.

A PNG card needs an image to carry its chunks and a CharX needs a main icon before RisuAI
finishes importing it; when the character has none, every writer uses this one picture: a
soft two-colour gradient with a head-and-shoulders shape, drawn here row by row (no art is
copied).  Readers that recognise its exact bytes can treat it as "no avatar".
"""

from __future__ import annotations

import hashlib
import struct
import zlib
from functools import cache

from .png import PNG_SIGNATURE, make_chunk

__all__ = ["default_avatar", "is_default_avatar"]

_W, _H = 200, 300
_TOP = (236, 222, 250)
_BOTTOM = (148, 178, 226)
_FIGURE = (92, 104, 150)


@cache
def default_avatar() -> bytes:
    """The placeholder avatar: a deterministic 200x300 RGB PNG (drawn row by row as spans)."""
    import math

    rows = []
    cx, head_cy, head_r = _W / 2, _H * 0.38, _W * 0.18
    sh_cy, sh_rx, sh_ry = _H * 0.86, _W * 0.36, _H * 0.22
    fig = bytes(_FIGURE)
    for y in range(_H):
        t = y / (_H - 1)
        bg = bytes(round(a + (b - a) * t) for a, b in zip(_TOP, _BOTTOM, strict=True))
        half = 0.0  # half-width of the figure on this row
        if abs(y - head_cy) <= head_r:
            half = math.sqrt(head_r ** 2 - (y - head_cy) ** 2)
        if y > sh_cy:
            half = max(half, sh_rx)
        elif abs(y - sh_cy) <= sh_ry:
            half = max(half, sh_rx * math.sqrt(1 - ((y - sh_cy) / sh_ry) ** 2))
        x0 = max(0, math.ceil(cx - half)) if half else _W
        x1 = min(_W, math.floor(cx + half) + 1) if half else _W
        rows.append(b"\x00" + bg * x0 + fig * (x1 - x0) + bg * (_W - x1))
    ihdr = struct.pack(">IIBBBBB", _W, _H, 8, 2, 0, 0, 0)
    return b"".join((
        PNG_SIGNATURE,
        make_chunk(b"IHDR", ihdr),
        make_chunk(b"IDAT", zlib.compress(b"".join(rows), 9)),
        make_chunk(b"IEND", b""),
    ))


@cache
def _default_digest() -> str:
    return hashlib.sha256(default_avatar()).hexdigest()


def is_default_avatar(data: bytes) -> bool:
    """Whether ``data`` is exactly the placeholder :func:`default_avatar` draws."""
    return len(data) == len(default_avatar()) and (
        hashlib.sha256(data).hexdigest() == _default_digest())

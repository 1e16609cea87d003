"""RPack, RisuAI's byte obfuscation for ``.risum`` modules and ``.risup`` presets.

RPack is not compression: it is a fixed substitution of every byte value by another (a
permutation without fixed points), applied byte by byte, so the output has the input's length.
The table is a fact of the format, as fixed as a magic number, so it is a constant here rather
than a file loaded at run time.
"""

from __future__ import annotations

ENCODE_TABLE = bytes.fromhex(
    "c40d1e0bbd2b3f55fc456ef566534f1ae0bb309486ba6bbf41506f9befdeb710"
    "611720df3289a89d6dabc990000c5dafd2c156e516649182657497ca23d652d1"
    "ffb4a0e82f8a58385a60199649dbd7c83b3e434ba56347aa6a2992f415cf6234"
    "78d31d3ce2058e2a570e1bcd4c2df2402c2579480fb27ab5a76c37e69c7b547e"
    "fe87dc9a02e433a2ebb12e03dd99a6b0e7d58818837cf6bee15c9fc321461f08"
    "4ed076125feefd8f44eaa35e8b2809359e69cc0ac78507ad4af377e967d4da84"
    "8093b64d73fa27267f04c6fbf1723951c236a968acf8edc5b9cbce75a43d81d9"
    "42701c9511bcd88c98f959a113f7147db3ec71c0e38df001ae5b310624223ab8"
)
"""``ENCODE_TABLE[b]`` is the byte RPack writes for plain byte ``b``."""


def _invert(table: bytes) -> bytes:
    out = bytearray(256)
    for plain, packed in enumerate(table):
        out[packed] = plain
    return bytes(out)


DECODE_TABLE = _invert(ENCODE_TABLE)
"""``DECODE_TABLE[b]`` is the plain byte for packed byte ``b``."""


def encode(data: bytes | bytearray | memoryview) -> bytes:
    """RPack-encode ``data`` (same length)."""
    return bytes(data).translate(ENCODE_TABLE)


def decode(data: bytes | bytearray | memoryview) -> bytes:
    """RPack-decode ``data`` (same length)."""
    return bytes(data).translate(DECODE_TABLE)

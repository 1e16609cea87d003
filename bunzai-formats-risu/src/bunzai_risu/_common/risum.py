"""The ``.risum`` container: RisuAI's binary module file.

Layout (all integers little-endian)::

    0x6F  version(0x00)  u32 N  RPack(JSON {"module": …, "type": "risuModule"})[N]
    ( 0x01  u32 L  RPack(asset bytes)[L] )*   0x00

Every length is checked against the bytes that remain before anything is sliced, so a crafted
4 GiB length costs nothing.  Asset records are positional: record *i* belongs to
``module.assets[i]``.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field
from typing import Any

from bunzai.sdk import (
    LimitExceeded,
    Limits,
    MalformedInput,
    UnsupportedInput,
    get_limits,
    setting_hint,
)

from . import rpack

MAGIC = 0x6F
VERSION = 0
_U32 = struct.Struct("<I")
_JSON_START = (b"{\n", b"{\r", b"{ ", b'{"', b"{}")


def sniff(data: bytes) -> tuple[int, str] | None:
    """(version, reason) when ``data`` looks like a ``.risum`` of any version, else None.

    Cheap: reads the 6-byte header and RPack-decodes two bytes.
    """
    if len(data) < 8 or data[0] != MAGIC:
        return None
    n = _U32.unpack_from(data, 2)[0]
    if n < 2 or 6 + n > len(data):
        return None
    if rpack.decode(data[6:8]) not in _JSON_START:
        return None
    return data[1], f"RisuAI module header, format version {data[1]}"


@dataclass
class Risum:
    """A decoded ``.risum``: the main JSON object, its raw text and the asset records."""

    main: dict[str, Any]
    text: bytes
    assets: list[bytes]
    warnings: list[str] = field(default_factory=list)


def _too_many(limit: int) -> LimitExceeded:
    exc = LimitExceeded("RisuAI module asset count", limit + 1, limit, setting_hint("max_entries"))
    exc.message = (f"RisuAI module holds more than {limit:,} asset records "
                   f"(raise it with {setting_hint('max_entries')})")
    exc.args = (exc.message,)
    return exc


def decode(data: bytes, limits: Limits | None = None) -> Risum:
    """Parse a ``.risum``; raises MalformedInput (or UnsupportedInput for other versions)."""
    from bunzai.sdk import loads

    lim = limits or get_limits()
    if len(data) < 6 or data[0] != MAGIC:
        raise MalformedInput("not a RisuAI module (.risum): bad magic byte")
    if data[1] != VERSION:
        raise UnsupportedInput(
            f"RisuAI module format version {data[1]} is not supported "
            f"(bunzai reads version {VERSION}, the only one RisuAI writes)")
    n = _U32.unpack_from(data, 2)[0]
    if 6 + n > len(data):
        raise MalformedInput(
            f"RisuAI module is truncated: its main block declares {n:,} bytes but only "
            f"{len(data) - 6:,} follow")
    text = rpack.decode(data[6:6 + n])
    main = loads(text, limits=lim)
    if not isinstance(main, dict):
        raise MalformedInput("RisuAI module: the main block is not a JSON object")
    if main.get("type") != "risuModule":
        raise MalformedInput(
            f"RisuAI module: the main block has type {main.get('type')!r}, not 'risuModule'")
    if not isinstance(main.get("module"), dict):
        raise MalformedInput("RisuAI module: the main block has no 'module' object")
    assets: list[bytes] = []
    warnings: list[str] = []
    pos = 6 + n
    while True:
        if pos >= len(data):
            warnings.append("the module has no end marker (file cut short?)")
            break
        marker = data[pos]
        if marker == 0:
            if pos + 1 < len(data):
                warnings.append(f"{len(data) - pos - 1:,} bytes after the end marker ignored")
            break
        if marker != 1:
            raise MalformedInput(
                f"RisuAI module: unknown record marker 0x{marker:02x} at offset {pos}")
        if pos + 5 > len(data):
            raise MalformedInput(f"RisuAI module: asset record at offset {pos} is truncated")
        size = _U32.unpack_from(data, pos + 1)[0]
        if pos + 5 + size > len(data):
            raise MalformedInput(
                f"RisuAI module: asset record {len(assets)} declares {size:,} bytes but only "
                f"{len(data) - pos - 5:,} remain")
        if len(assets) >= lim.max_entries:
            raise _too_many(lim.max_entries)
        assets.append(rpack.decode(data[pos + 5:pos + 5 + size]))
        pos += 5 + size
    return Risum(main, text, assets, warnings)


def encode(text: bytes, assets: list[bytes]) -> bytes:
    """A ``.risum`` from the main block's UTF-8 JSON text and the asset files, in order."""
    parts = [bytes((MAGIC, VERSION)), _U32.pack(len(text)), rpack.encode(text)]
    for blob in assets:
        parts += [b"\x01", _U32.pack(len(blob)), rpack.encode(blob)]
    parts.append(b"\x00")
    return b"".join(parts)


def dump_main(module: dict[str, Any]) -> bytes:
    """The main block's JSON text as RisuAI writes it (2-space indent)."""
    from bunzai.sdk import dumps

    return dumps({"module": module, "type": "risuModule"}, indent=2)

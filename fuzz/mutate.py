"""Mutations that know the containers, so a fuzzer gets past checksums and encodings.

A byte flip inside a PNG's base64 card chunk or a zip's deflated ``card.json`` mostly yields a
"bad base64" or "bad CRC" error and never reaches a reader's field mapping.  These mutators open
the container with bunzai's own parsers, change the JSON (or bytes) inside, and rebuild a valid
container around it, so the readers see well-formed files with hostile content.  Everything is
driven by a ``random.Random``: the same seed gives the same inputs (the CI run relies on it).

``byte_mutate`` is the plain mutator (bit flips, interesting integers, inserts, deletes, copies);
under atheris, libFuzzer's own mutator takes its place.
"""

from __future__ import annotations

import base64
import contextlib
import copy
import io
import json
import random
import struct
import warnings
import zipfile
import zlib
from collections.abc import Callable
from typing import Any

ByteMutator = Callable[[bytes, int], bytes]

_INTERESTING_32 = (0, 1, 0x7F, 0x80, 0xFF, 0x7FFF, 0x8000, 0xFFFF, 0x7FFFFFFF, 0x80000000,
                   0xFFFFFFFF, 0xFFFFFFFE, 0x10000)
_NASTY_VALUES: tuple[Any, ...] = (
    None, True, False, 0, -1, 1.5, 2**63, 2**64 + 1, -(2**70), 1e308, "", " ", "0", "true",
    "null", "\ud800", "\u202e\u0000", "../../x", "{{char}}", "x" * 300, [], {}, [None], [[]],
    {"": None}, ["a", 1, None, {}], {"keys": "a"}, {"entries": None},
)
_KEYWORDS = ("chara", "ccv3", "CHARA", "persona", "chara_card_v3", "risu", "x")
_ZIP_NAMES = ("card.json", "manifest.json", "module.risum", "assets/icon/main.png",
              "characters/a/character.json", "scenarios/s1.json", "x/../card.json",
              "CARD.JSON", "assets/other/image/a.webp", "images/a.png")
_CHARSETS = (b"ASCII\x00\x00\x00", b"UNICODE\x00", b"\x00" * 8, b"JIS\x00\x00\x00\x00\x00")


def _nasty(rng: random.Random) -> Any:
    """A fresh copy of a hostile JSON value (the table's lists and dicts must never be shared)."""
    return copy.deepcopy(rng.choice(_NASTY_VALUES))


def byte_mutator(rng: random.Random) -> ByteMutator:
    """A libFuzzer-like byte mutator driven by ``rng`` (for runs without atheris)."""

    def mutate(data: bytes, max_size: int) -> bytes:
        buf = bytearray(data)
        for _ in range(rng.choice((1, 1, 2, 3, 6))):
            op = rng.randrange(9)
            n = len(buf)
            if n == 0 or op == 0:
                at = rng.randint(0, n)
                buf[at:at] = bytes(rng.randrange(256) for _ in range(rng.randint(1, 8)))
            elif op == 1:
                i = rng.randrange(n)
                buf[i] ^= 1 << rng.randrange(8)
            elif op == 2:
                buf[rng.randrange(n)] = rng.choice((0, 0xFF, 0x7F, 0x80, rng.randrange(256)))
            elif op == 3 and n >= 4:
                i = rng.randrange(n - 3)
                value = rng.choice(_INTERESTING_32) if rng.random() < 0.8 else n
                fmt = rng.choice(("<I", ">I"))
                struct.pack_into(fmt, buf, i, value & 0xFFFFFFFF)
            elif op == 4:
                i = rng.randrange(n)
                del buf[i:i + rng.randint(1, max(1, min(64, n - i)))]
            elif op == 5:
                i = rng.randrange(n)
                j = rng.randint(i, min(n, i + 64))
                at = rng.randint(0, n)
                buf[at:at] = buf[i:j]
            elif op == 6:
                del buf[rng.randint(0, n):]
            elif op == 7:
                i = rng.randrange(n)
                buf[i] = rng.choice(b'{}[]",:\\0 \n')
            else:
                i = rng.randrange(n)
                buf[i:i + 1] = rng.choice((b"\xff", b"\xc3", b"\xed\xa0\x80", b"\x00", b"="))
        return bytes(buf[:max_size])

    return mutate


# -- JSON ------------------------------------------------------------------------------------------


def _nodes(obj: Any, out: list[tuple[Any, Any]]) -> None:
    """(container, key) pairs for every value in a JSON document."""
    if isinstance(obj, dict):
        for k in list(obj):
            out.append((obj, k))
            _nodes(obj[k], out)
    elif isinstance(obj, list):
        for i in range(len(obj)):
            out.append((obj, i))
            _nodes(obj[i], out)


def mutate_json_value(doc: Any, rng: random.Random, mutate_bytes: ByteMutator) -> Any:
    """Change one node of a parsed JSON document in place (or the root); return the root."""
    nodes: list[tuple[Any, Any]] = []
    _nodes(doc, nodes)
    if not nodes:
        return _nasty(rng) if rng.random() < 0.5 else {"data": doc}
    parent, key = rng.choice(nodes)
    value = parent[key]
    op = rng.randrange(7)
    if op == 0:
        parent[key] = _nasty(rng)
    elif op == 1:
        del parent[key]
    elif op == 2 and isinstance(value, str):
        raw = mutate_bytes(value.encode("utf-8", "surrogatepass"), 4096)
        parent[key] = raw.decode("utf-8", "replace")
    elif op == 3:
        other_parent, other_key = rng.choice(nodes)
        parent[key] = json.loads(json.dumps(other_parent[other_key]))
    elif op == 4 and isinstance(parent, dict):
        parent[rng.choice([*list(parent), "spec", "data", "name", "entries", "extensions"])] = (
            json.loads(json.dumps(value)))
    elif op == 5:
        parent[key] = [value] if rng.random() < 0.5 else {"0": value}
    elif isinstance(value, bool | int | float) and not isinstance(value, bool):
        parent[key] = rng.choice((str(value), -value, value * 1000003, float(value), None))
    else:
        parent[key] = _nasty(rng)
    return doc


def mutate_json_bytes(text: bytes, rng: random.Random, mutate_bytes: ByteMutator,
                      max_size: int) -> bytes:
    """Parse, change one node, serialize (sometimes indented, sometimes ASCII-escaped)."""
    try:
        doc = json.loads(text.decode("utf-8-sig"))
    except (ValueError, UnicodeDecodeError, RecursionError):
        return mutate_bytes(text, max_size)
    for _ in range(rng.choice((1, 1, 2, 4))):
        doc = mutate_json_value(doc, rng, mutate_bytes)
    try:
        out = json.dumps(doc, ensure_ascii=rng.random() < 0.3,
                         indent=rng.choice((None, None, 2, 4)))
    except (ValueError, RecursionError):
        return mutate_bytes(text, max_size)
    return out.encode("utf-8", "surrogatepass")[:max_size]


# -- JSON lines (chat logs) ----------------------------------------------------------------------


def mutate_jsonl(data: bytes, rng: random.Random, mutate_bytes: ByteMutator, max_size: int
                 ) -> bytes:
    """Change a chat log the ways files get damaged or hand-edited: one line's JSON changed, a
    line dropped, repeated, moved, cut short or replaced with junk, blank lines, other endings."""
    eol = b"\r\n" if b"\r\n" in data[:4096] else b"\n"
    lines = data.splitlines()
    if not lines:
        return mutate_bytes(data, max_size)
    i = rng.randrange(len(lines))
    op = rng.randrange(10)
    if op < 4:
        lines[i] = mutate_json_bytes(lines[i], rng, mutate_bytes, max_size).replace(b"\n", b" ")
    elif op == 4:
        del lines[i]
    elif op == 5:
        lines.insert(rng.randrange(len(lines) + 1), lines[i])
    elif op == 6:
        j = rng.randrange(len(lines))
        lines[i], lines[j] = lines[j], lines[i]
    elif op == 7:
        lines[i] = lines[i][:rng.randint(0, len(lines[i]))]
    elif op == 8:
        lines.insert(rng.randrange(len(lines) + 1),
                     rng.choice((b"", b" ", b"\x00", b"[]", b"null", b"{}", b"{", b"\xff\xfe",
                                 json.dumps(_nasty(rng)).encode())))
    else:
        eol = rng.choice((b"\n", b"\r\n", b"\r", b"\n\n"))
    out = eol.join(lines)
    if rng.random() < 0.5:
        out += eol
    return out[:max_size]


# -- PNG -------------------------------------------------------------------------------------------


def _png_chunks(data: bytes) -> list[tuple[bytes, bytes]] | None:
    from bunzai.errors import BunzaiError
    from bunzai.io.containers.png import PngFile

    try:
        png = PngFile.parse(data)
    except BunzaiError:
        return None
    return [(bytes(c.type, "latin-1") if isinstance(c.type, str) else bytes(c.type),
             bytes(c.data)) for c in png.chunks]


def _payload(rng: random.Random, value: bytes, mutate_bytes: ByteMutator, max_size: int
             ) -> bytes:
    """Mutate a card payload that may be base64 of JSON, raw JSON, or anything."""
    stripped = value.strip()
    if stripped[:1] in (b"{", b"["):
        return mutate_json_bytes(stripped, rng, mutate_bytes, max_size)
    try:
        inner = base64.b64decode(stripped, validate=True)
    except ValueError:
        return mutate_bytes(value, max_size)
    if inner.strip()[:1] in (b"{", b"["):
        changed = mutate_json_bytes(inner, rng, mutate_bytes, max_size)
        if rng.random() < 0.15:
            return changed
        return base64.b64encode(changed)[:max_size]
    return base64.b64encode(mutate_bytes(inner, max_size))[:max_size]


def mutate_png(data: bytes, rng: random.Random, mutate_bytes: ByteMutator, max_size: int
               ) -> bytes | None:
    from bunzai.io.containers.png import PNG_SIGNATURE, make_chunk, make_text_chunk

    chunks = _png_chunks(data)
    if not chunks:
        return None
    texts = [i for i, (t, _) in enumerate(chunks) if t in (b"tEXt", b"zTXt", b"iTXt")]
    op = rng.randrange(6)
    if texts and op < 3:
        i = rng.choice(texts)
        ctype, body = chunks[i]
        keyword, _, rest = body.partition(b"\x00")
        if ctype == b"zTXt":
            try:
                value = zlib.decompress(rest[1:])
            except zlib.error:
                value = rest
        elif ctype == b"iTXt":
            parts = rest.split(b"\x00", 3)
            value = parts[3] if len(parts) == 4 else rest
            if len(parts) == 4 and parts[0][:1] == b"\x01":
                with contextlib.suppress(zlib.error):
                    value = zlib.decompress(value)
        else:
            value = rest
        new_value = _payload(rng, value, mutate_bytes, max_size)
        kw = keyword.decode("latin-1") or "chara"
        if rng.random() < 0.1:
            kw = rng.choice(_KEYWORDS)
        kind = rng.choice(("tEXt", "tEXt", "zTXt", "iTXt")) if rng.random() < 0.2 else (
            ctype.decode("latin-1"))
        try:
            chunks[i] = (b"", make_text_chunk(kw, new_value, kind))
        except Exception:  # an unencodable keyword: fall back to a plain tEXt
            chunks[i] = (b"", make_chunk(b"tEXt", keyword + b"\x00" + new_value))
    elif op == 3 and len(chunks) > 1:
        i = rng.randrange(1, len(chunks))
        if rng.random() < 0.5:
            del chunks[i]
        else:
            chunks.insert(rng.randrange(1, len(chunks) + 1), chunks[i])
    elif op == 4:
        i = rng.randrange(len(chunks))
        ctype, body = chunks[i]
        if ctype:
            chunks[i] = (ctype, mutate_bytes(body, max_size))
    else:
        kw = rng.choice(_KEYWORDS)
        value = base64.b64encode(json.dumps(_nasty(rng)).encode())
        chunks.insert(rng.randrange(1, len(chunks) + 1), (b"", make_text_chunk(kw, value)))
    out = [PNG_SIGNATURE]
    for ctype, body in chunks:
        out.append(make_chunk(ctype, body) if ctype else body)
    return b"".join(out)[:max_size]


# -- zip -------------------------------------------------------------------------------------------


def _zip_entries(data: bytes) -> tuple[bytes, list[tuple[str, bytes]]] | None:
    from bunzai.errors import BunzaiError
    from bunzai.io.containers.sniff import zip_start_offset
    from bunzai.io.containers.zipsafe import SafeZip

    try:
        z = SafeZip.open(data)
        entries = [(e.name, b"" if e.is_dir else z.read(e.name)) for e in z]
        prefix = data[:zip_start_offset(data)]
    except BunzaiError:
        return None
    return prefix, entries


def build_zip(entries: list[tuple[str, bytes]], *, prefix: bytes = b"",
              compress: bool = True) -> bytes:
    """A zip written with :mod:`zipfile` directly, so hostile names and duplicates survive."""
    buf = io.BytesIO()
    buf.write(prefix)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        with zipfile.ZipFile(buf, "w") as zf:
            for name, payload in entries:
                info = zipfile.ZipInfo(name)
                info.compress_type = zipfile.ZIP_DEFLATED if compress else zipfile.ZIP_STORED
                zf.writestr(info, payload)
    return buf.getvalue()


def mutate_zip(data: bytes, rng: random.Random, mutate_bytes: ByteMutator, max_size: int
               ) -> bytes | None:
    got = _zip_entries(data)
    if got is None:
        return None
    prefix, entries = got
    op = rng.randrange(6)
    files = [i for i, (n, _) in enumerate(entries) if not n.endswith("/")]
    if files and op < 3:
        i = rng.choice(files)
        name, payload = entries[i]
        if payload.strip()[:1] in (b"{", b"["):
            payload = mutate_json_bytes(payload, rng, mutate_bytes, max_size)
        elif name.endswith(".risum"):
            payload = mutate_risum(payload, rng, mutate_bytes, max_size) or payload
        else:
            payload = mutate_bytes(payload, max_size)
        entries[i] = (name, payload)
    elif op == 3 and entries:
        i = rng.randrange(len(entries))
        entries[i] = (rng.choice(_ZIP_NAMES), entries[i][1])
    elif op == 4 and entries:
        i = rng.randrange(len(entries))
        if rng.random() < 0.5:
            del entries[i]
        else:
            entries.append(entries[i])
    else:
        entries.append((rng.choice(_ZIP_NAMES), json.dumps(_nasty(rng)).encode()))
    return build_zip(entries, prefix=prefix, compress=rng.random() < 0.7)[:max_size]


# -- EXIF (JPEG, WebP, PNG eXIf) -------------------------------------------------------------------


def _jpeg_with_exif(tiff: bytes) -> bytes:
    body = b"Exif\x00\x00" + tiff
    return (b"\xff\xd8" + b"\xff\xe1" + struct.pack(">H", len(body) + 2) + body
            + b"\xff\xda\x00\x08\x01\x01\x00\x00\x3f\x00" + b"\x00" * 8 + b"\xff\xd9")


def _webp_with_exif(tiff: bytes) -> bytes:
    vp8 = b"VP8L" + struct.pack("<I", 5) + b"\x2f\x00\x00\x00\x00" + b"\x00"
    exif = b"EXIF" + struct.pack("<I", len(tiff)) + tiff + (b"\x00" if len(tiff) % 2 else b"")
    body = b"WEBP" + vp8 + exif
    return b"RIFF" + struct.pack("<I", len(body)) + body


def exif_container(tiff: bytes, container: str) -> bytes:
    """A minimal JPEG, WebP or PNG carrying ``tiff`` as its EXIF block."""
    if container == "webp":
        return _webp_with_exif(tiff)
    if container in ("png", "apng"):
        from bunzai.io.containers.png import PNG_SIGNATURE, make_chunk, minimal_png
        base = minimal_png(1, 1)
        return base[:33] + make_chunk(b"eXIf", tiff) + base[33:] if base.startswith(
            PNG_SIGNATURE) else base
    return _jpeg_with_exif(tiff)


def mutate_exif(data: bytes, rng: random.Random, mutate_bytes: ByteMutator, max_size: int
                ) -> bytes | None:
    from bunzai.errors import BunzaiError
    from bunzai.io.containers.exif import build_exif_user_comment, find_exif, read_user_comment
    from bunzai.io.containers.sniff import sniff_container

    container = sniff_container(data)
    try:
        tiff = find_exif(data, container)
        comment = read_user_comment(tiff) if tiff else None
    except BunzaiError:
        return None
    if comment is None:
        return None
    charset, payload = comment
    charset = charset[:8].ljust(8, b"\x00")
    if rng.random() < 0.8:
        payload = _payload(rng, payload, mutate_bytes, max_size)
    if rng.random() < 0.15:
        charset = rng.choice(_CHARSETS)
        if charset.startswith(b"UNICODE"):
            payload = payload.decode("utf-8", "replace").encode("utf-16-be")
    if rng.random() < 0.1:
        payload = ",".join(str(b) for b in payload).encode()  # Backyard's byte-list form
    tiff = build_exif_user_comment(payload, charset, rng.choice(("MM", "II")))
    if rng.random() < 0.2:
        tiff = mutate_bytes(tiff, max_size)
    return exif_container(tiff, container)[:max_size]


# -- RisuAI module ---------------------------------------------------------------------------------


def mutate_risum(data: bytes, rng: random.Random, mutate_bytes: ByteMutator, max_size: int
                 ) -> bytes | None:
    try:
        from bunzai_risu._common import risum
    except ImportError:
        return None
    from bunzai.errors import BunzaiError

    try:
        decoded = risum.decode(data)
    except BunzaiError:
        return None
    text = mutate_json_bytes(decoded.text, rng, mutate_bytes, max_size)
    assets = list(decoded.assets)
    if assets and rng.random() < 0.3:
        i = rng.randrange(len(assets))
        assets[i] = mutate_bytes(assets[i], max_size)
    elif rng.random() < 0.2:
        assets.append(rng.randbytes(rng.randint(0, 32)))
    return risum.encode(text, assets)[:max_size]


# -- dispatch --------------------------------------------------------------------------------------


def mutate(data: bytes, rng: random.Random, mutate_bytes: ByteMutator, max_size: int) -> bytes:
    """One structure-aware mutation when the container allows it, else a byte mutation."""
    from bunzai.io.containers.sniff import sniff_container

    if rng.random() < 0.6:
        container = sniff_container(data)
        out: bytes | None = None
        try:
            if container in ("png", "apng"):
                out = (mutate_exif(data, rng, mutate_bytes, max_size) if rng.random() < 0.15
                       else None) or mutate_png(data, rng, mutate_bytes, max_size)
            elif container in ("zip", "jpeg+zip"):
                out = mutate_zip(data, rng, mutate_bytes, max_size)
            elif container in ("jpeg", "webp"):
                out = mutate_exif(data, rng, mutate_bytes, max_size)
            elif container == "json" or container == "text":
                from .seeds import is_json_lines

                out = (mutate_jsonl(data, rng, mutate_bytes, max_size) if is_json_lines(data)
                       else mutate_json_bytes(data, rng, mutate_bytes, max_size))
            elif data[:1] == b"\x6f":
                out = mutate_risum(data, rng, mutate_bytes, max_size)
        except Exception:  # a mutator that trips over its own input falls back to bytes
            out = None
        if out is not None:
            return out
    return mutate_bytes(data, max_size)

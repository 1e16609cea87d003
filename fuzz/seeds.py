"""Seed inputs for the fuzzer, per container family, built fresh from what is on this machine.

Sources: the shared real-file corpus and samples (read in place, never copied into the repo),
the generated hostile cases (``tests/hostile``), and every writable format's output for the
generated canonical entities (:mod:`bunzai.testing.generated`).  Real files are shrunk before
use: pixel data, asset bytes and long strings make an execution slower without reaching more
code, so IDAT chunks are replaced by a tiny one, zip assets are cut to their first bytes, and
JSON strings and arrays are shortened.  The structure (keys, chunk order, entry names) stays.
"""

from __future__ import annotations

import base64
import contextlib
import hashlib
import json
import zlib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

FAMILIES = ("png", "json", "zip", "exif", "risum", "jsonl")
"""Container families a campaign is run per (see :func:`family_of`)."""

MAX_SEED = 96 * 1024
"""Seeds larger than this after shrinking are left out (they only slow the loop down)."""

_STRING_CAP = 200
_LIST_CAP = 12
_LINE_CAP = 10
"""Lines kept of a JSON-lines chat: a header, and enough messages to reach swipes and groups."""


def is_json_lines(data: bytes) -> bool:
    """Whether ``data`` is JSON lines (a chat log): two or more lines, the first a JSON object,
    and the whole not one JSON document."""
    lines = [ln for ln in data.splitlines() if ln.strip()]
    if len(lines) < 2:
        return False
    try:
        json.loads(data.decode("utf-8-sig"))
        return False
    except (ValueError, UnicodeDecodeError, RecursionError):
        pass
    try:
        first = json.loads(lines[0].decode("utf-8-sig"))
    except (ValueError, UnicodeDecodeError, RecursionError):
        return False
    return isinstance(first, dict)


def family_of(data: bytes) -> str:
    """The campaign family of an input, from its sniffed container."""
    from bunzai.io.containers.sniff import sniff_container

    container = sniff_container(data)
    if container in ("png", "apng"):
        return "png"
    if container in ("zip", "jpeg+zip"):
        return "zip"
    if container in ("jpeg", "webp", "gif"):
        return "exif"
    if container in ("json", "text"):
        return "jsonl" if is_json_lines(data) else "json"
    return "risum"


def shrink_json(obj: Any) -> Any:
    """Long strings cut, long arrays shortened; keys and nesting kept."""
    if isinstance(obj, str):
        return obj[:_STRING_CAP]
    if isinstance(obj, list):
        return [shrink_json(v) for v in obj[:_LIST_CAP]]
    if isinstance(obj, dict):
        return {k: shrink_json(v) for k, v in obj.items()}
    return obj


def _shrink_json_bytes(raw: bytes) -> bytes:
    try:
        doc = json.loads(raw.decode("utf-8-sig"))
    except (ValueError, UnicodeDecodeError, RecursionError):
        return raw
    return json.dumps(shrink_json(doc), ensure_ascii=False).encode("utf-8", "surrogatepass")


def _shrink_text_value(value: bytes) -> bytes:
    stripped = value.strip()
    if stripped[:1] in (b"{", b"["):
        return _shrink_json_bytes(stripped)
    try:
        inner = base64.b64decode(stripped, validate=True)
    except ValueError:
        return value[:4096]
    if inner.strip()[:1] in (b"{", b"["):
        return base64.b64encode(_shrink_json_bytes(inner))
    return value[:4096]


def shrink_jsonl(data: bytes) -> bytes:
    """The first lines of a chat log, each shrunk as JSON; line endings kept."""
    eol = b"\r\n" if b"\r\n" in data[:4096] else b"\n"
    lines = data.splitlines()[:_LINE_CAP]
    return eol.join(_shrink_json_bytes(ln) if ln.strip() else ln for ln in lines) + eol


def shrink_png(data: bytes) -> bytes:
    from bunzai.errors import BunzaiError
    from bunzai.io.containers.png import PNG_SIGNATURE, PngFile, make_chunk, make_text_chunk

    try:
        png = PngFile.parse(data)
        chunks = png.chunks
    except BunzaiError:
        return data[:MAX_SEED]
    out = [PNG_SIGNATURE]
    idat_done = False
    for c in chunks:
        if c.type == "IDAT":
            if not idat_done:
                out.append(make_chunk(b"IDAT", zlib.compress(b"\x00\x00\x00\x00\x00")))
                idat_done = True
            continue
        body = bytes(c.data)
        if c.type in ("tEXt", "zTXt", "iTXt"):
            keyword, _, _rest = body.partition(b"\x00")
            try:
                tc = next(t for t in png.text_chunks() if t.chunk.offset == c.offset)
                value = tc.value_bytes()
                out.append(make_text_chunk(keyword.decode("latin-1"),
                                           _shrink_text_value(value),
                                           "iTXt" if c.type == "iTXt" else "tEXt"))
                continue
            except (BunzaiError, StopIteration):
                pass
        if c.length > 8192 and c.type not in ("IHDR", "IEND", "eXIf"):
            body = body[:8192]
        out.append(make_chunk(c.type, body))
    return b"".join(out)


def shrink_zip(data: bytes) -> bytes:
    from bunzai.errors import BunzaiError
    from bunzai.io.containers.sniff import zip_start_offset
    from bunzai.io.containers.zipsafe import SafeZip

    from .mutate import build_zip

    try:
        z = SafeZip.open(data)
        entries = []
        for e in z:
            payload = b"" if e.is_dir else z.read(e.name)
            if payload.strip()[:1] in (b"{", b"["):
                payload = _shrink_json_bytes(payload)
            elif e.name.endswith(".risum"):
                payload = shrink_risum(payload)
            else:
                payload = payload[:256]
            entries.append((e.name, payload))
        prefix = data[:zip_start_offset(data)]
    except BunzaiError:
        return data[:MAX_SEED]
    if len(prefix) > 4096:
        prefix = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00\xff\xd9"
    return build_zip(entries, prefix=prefix)


def shrink_exif(data: bytes) -> bytes:
    from bunzai.errors import BunzaiError
    from bunzai.io.containers.exif import build_exif_user_comment, find_exif, read_user_comment
    from bunzai.io.containers.sniff import sniff_container

    from .mutate import exif_container

    container = sniff_container(data)
    try:
        tiff = find_exif(data, container)
        comment = read_user_comment(tiff) if tiff else None
    except BunzaiError:
        comment = None
    if comment is None:
        return data[:MAX_SEED]
    charset, payload = comment
    return exif_container(build_exif_user_comment(_shrink_text_value(payload), charset),
                          container)


def shrink_risum(data: bytes) -> bytes:
    try:
        from bunzai_risu._common import risum
    except ImportError:
        return data[:MAX_SEED]
    from bunzai.errors import BunzaiError

    try:
        decoded = risum.decode(data)
    except BunzaiError:
        return data[:MAX_SEED]
    return risum.encode(_shrink_json_bytes(decoded.text), [a[:256] for a in decoded.assets])


def shrink(data: bytes) -> bytes:
    """A smaller input that keeps the structure the readers care about."""
    fam = family_of(data)
    if fam == "png":
        return shrink_png(data)
    if fam == "zip":
        return shrink_zip(data)
    if fam == "exif":
        return shrink_exif(data)
    if fam == "json":
        return _shrink_json_bytes(data) if len(data) > MAX_SEED // 2 else data
    if fam == "jsonl":
        return shrink_jsonl(data)
    if data[:1] == b"\x6f":
        return shrink_risum(data)
    return data


def _real_files() -> Iterator[bytes]:
    from bunzai.testing import corpus_files, samples_dir

    for p in corpus_files():
        if p.is_file():
            yield p.read_bytes()
    root = samples_dir()
    if root.is_dir():
        for p in sorted(root.rglob("*")):
            if p.is_file():
                yield p.read_bytes()


def _hostile() -> Iterator[bytes]:
    """The hostile corpus: broken inputs, and files hiding active content (scripts, handlers,
    frames, remote loads) in every place an app runs or shows."""
    try:
        from tests.hostile.active import all_active_cases
        from tests.hostile.cases import all_cases
    except ImportError:  # run outside the checkout
        return
    for case in all_cases():
        if case.data is not None and len(case.data) <= MAX_SEED:
            yield case.data
    for active in all_active_cases():
        if len(active.data) <= MAX_SEED:
            yield active.data


def _written() -> Iterator[bytes]:
    """Every writable format's output for the generated entities of its kind."""
    from bunzai.errors import BunzaiError
    from bunzai.kinds import KINDS
    from bunzai.testing.generated import VARIANTS, canonical_examples

    from .harness import registry

    reg = registry()
    for info in reg.formats():
        if not info.can_write:
            continue
        for kind in [info.kind] if info.kind in KINDS else KINDS:
            for variant in VARIANTS:
                try:
                    result = reg.write(canonical_examples(kind, variant), info.id)
                except BunzaiError:
                    continue
                for f in result.files:
                    yield f.data


def exif_variants(png: bytes) -> Iterator[bytes]:
    """JPEG and WebP files carrying a PNG card's payload in EXIF, as TavernAI and Backyard do."""
    from bunzai.errors import BunzaiError
    from bunzai.io.containers.exif import build_exif_user_comment, png_exif, read_user_comment
    from bunzai.io.containers.png import PngFile

    from .mutate import exif_container

    try:
        parsed = PngFile.parse(png)
        tiff = png_exif(parsed)
        comments = [read_user_comment(tiff)] if tiff else []
        for tc in parsed.find_text("chara"):
            value = tc.value_bytes()
            with contextlib.suppress(ValueError):  # TavernAI stored the JSON, not base64
                value = base64.b64decode(value, validate=True)
            comments.append((b"ASCII\x00\x00\x00", value))
    except BunzaiError:
        return
    for comment in comments:
        if comment is None:
            continue
        charset, payload = comment
        for container in ("jpeg", "webp"):
            yield exif_container(build_exif_user_comment(payload, charset), container)


def all_seeds(*, real: bool = True) -> dict[str, list[bytes]]:
    """Seeds per family, deduplicated, in the order they were made (real files by path, the
    hostile cases, then each format's output), so a fixed-seed run picks the same seeds even
    when a writer stamps the current time into its output."""
    out: dict[str, dict[str, bytes]] = {f: {} for f in FAMILIES}
    sources = [_hostile(), _written()]
    if real:
        sources.insert(0, _real_files())
    for source in sources:
        for data in source:
            small = shrink(data)
            if not small or len(small) > MAX_SEED:
                continue
            fam = family_of(small)
            out[fam][hashlib.sha1(small).hexdigest()] = small
            if fam == "png":
                for derived in exif_variants(small):
                    out["exif"][hashlib.sha1(derived).hexdigest()] = derived
    return {f: list(d.values()) for f, d in out.items()}


def write_seeds(folder: Path, *, real: bool = True) -> dict[str, int]:
    """Write ``folder/<family>/<sha1>`` files; returns the count per family."""
    counts = {}
    for fam, seeds in all_seeds(real=real).items():
        d = folder / fam
        d.mkdir(parents=True, exist_ok=True)
        for data in seeds:
            (d / hashlib.sha1(data).hexdigest()[:16]).write_bytes(data)
        counts[fam] = len(seeds)
    return counts

"""Deterministic damage for tests: the same JSON with values swapped for wrong types or removed,
and whole files damaged the ways files get damaged on disk and on the way.

Format tests use :func:`damaged` to check that damaged files give a clear error or a tolerant
read, never a crash, and that whatever reads also writes back unchanged.  A format adds values
that matter to it (a macro string, a date, an object shaped like one of its own) through
``junk``.

:func:`file_damages` damages the bytes instead, by what the container is: a text file cut in
the middle of a line, or with a byte flipped so that it is no longer UTF-8; a PNG cut inside
each of its chunks, its picture cut short, its card chunk's text flipped; a zip cut short, with
an entry cut, or left out where another entry names it; a picture cut.  Each damage is
detectable in principle (a cut that leaves valid JSON, a number cut short, is not made), so a
reader must name it or refuse the file.
"""

from __future__ import annotations

import copy
import random
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..host.registry import Registry

JUNK: tuple[Any, ...] = (None, True, 0, -1, 1.5, "", "x", [], {}, [None], {"a": None}, [1, "a"])
"""Values of every JSON type, empty and not."""


def damage(rng: random.Random, doc: Any, junk: Sequence[Any] = JUNK) -> None:
    """One change somewhere in ``doc``, in place: a value replaced by junk, or a key removed."""
    x = doc
    while True:
        if isinstance(x, dict) and x:
            k = rng.choice(list(x))
            r = rng.random()
            if r < 0.3:
                x[k] = copy.deepcopy(rng.choice(junk))
                return
            if r < 0.45:
                del x[k]
                return
            x = x[k]
        elif isinstance(x, list) and x:
            i = rng.randrange(len(x))
            if rng.random() < 0.4:
                x[i] = copy.deepcopy(rng.choice(junk))
                return
            x = x[i]
        else:
            return


def damaged(docs: Sequence[Any], count: int, seed: int = 0,
            junk: Sequence[Any] = JUNK) -> Iterator[Any]:
    """``count`` damaged copies of ``docs`` (one to four changes each), reproducibly."""
    rng = random.Random(seed)
    for _ in range(count):
        doc = copy.deepcopy(rng.choice(list(docs)))
        for _ in range(rng.randint(1, 4)):
            damage(rng, doc, junk)
        yield doc


def check_damaged_round_trips(registry: Registry, format_id: str, docs: Sequence[Any],
                              count: int = 150, seed: int = 3,
                              exact: Callable[[Any], bool] = lambda doc: True) -> int:
    """Read ``count`` damaged copies of ``docs`` as ``format_id``: each read fails with a clean
    :class:`~bunzai.errors.BunzaiError` or gives entities that validate without raising and
    write back as the same JSON (for the documents ``exact`` accepts; a format that rewrites
    some containers says which).  Returns how many were read; raises AssertionError with the
    first document that breaks the rule."""
    import json

    from ..errors import BunzaiError
    from ..io.input import as_input

    handle = registry.get(format_id)
    read = 0
    for doc in damaged(docs, count, seed):
        data = json.dumps(doc).encode()
        try:
            _, res, _ = registry.read(as_input(data, "d.json"), format=format_id)
        except BunzaiError:
            continue
        read += 1
        out = registry.write(res.entities, format_id)
        registry.validate(handle, as_input(data, "d.json"), res.entities)
        if exact(doc) and json.loads(out.files[0].data) != doc:
            raise AssertionError(f"{format_id} did not write back what it read: "
                                 f"{json.dumps(doc)[:300]}")
    return read


# -- damaged files ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Damage:
    """One damaged copy of a file: how it was damaged, where, and the bytes."""

    kind: str
    """``cut-line``, ``flip``, ``cut-chunk``, ``cut-image``, ``cut-zip``, ``cut-entry`` or
    ``drop-entry``."""
    where: str
    data: bytes = field(repr=False)


def file_damages(data: bytes, *, most: int = 4) -> list[Damage]:
    """Damaged copies of ``data`` by its container, at most ``most`` of each kind, always the
    same for the same file."""
    from ..io.containers.sniff import sniff_container

    container = sniff_container(data)
    if container in ("png", "apng"):
        out = _png_damages(data, most)
    elif container in ("zip", "jpeg+zip"):
        out = _zip_damages(data, most)
    elif container in ("jpeg", "webp", "gif"):
        out = [Damage("cut-image", f"cut at {f:.0%}", data[:int(len(data) * f)])
               for f in (0.5, 0.9)]
    elif container in ("json", "text"):
        out = _text_damages(data, most)
    else:
        out = [Damage("cut-zip" if data[:2] == b"PK" else "cut-chunk", "cut at half",
                      data[:len(data) // 2]), _flip(data, len(data) // 2)]
    return [d for d in out if d.data != data]


def _flip(data: bytes, at: int) -> Damage:
    """The byte at ``at`` with its top bit flipped: valid UTF-8 never stays valid."""
    buf = bytearray(data)
    buf[at] ^= 0x80
    return Damage("flip", f"byte {at:,} flipped", bytes(buf))


def _text_damages(data: bytes, most: int) -> list[Damage]:
    lines = data.split(b"\n")
    out: list[Damage] = []
    full = [i for i, ln in enumerate(lines) if len(ln.strip()) > 4]
    picks = sorted({full[len(full) * k // (most + 1)] for k in range(1, most + 1)}) if full \
        else []
    whole = _parses(data)
    if not whole and not all(_parses(ln) for ln in lines if ln.strip()):
        # YAML or plain text: a line cut short is most often still a valid file (a shorter
        # value, a quoted one running on), which no reader can tell from the writer's own
        # choice; only a byte that breaks UTF-8 is a damage every reader must see
        picks = []
    for i in picks[:most]:
        cut = lines[i][:len(lines[i]) // 2]
        damaged = b"\n".join([*lines[:i], cut, *lines[i + 1:]])
        if not (_parses(damaged) if whole else _parses(cut)):  # a cut number still parses
            out.append(Damage("cut-line", f"line {i + 1} cut short", damaged))
    if picks:
        i = picks[len(picks) // 2]
        out.append(Damage("cut-line", f"file cut in line {i + 1}",
                          b"\n".join([*lines[:i], lines[i][:len(lines[i]) // 2]])))
    spots = [at for at in (len(data) * k // (most + 1) for k in range(1, most + 1))
             if data[at:at + 1].strip()]
    out += [_flip(data, at) for at in spots]
    return out


def _parses(data: bytes) -> bool:
    import json

    try:
        json.loads(data)
    except (ValueError, RecursionError):
        return False
    return True


def _png_damages(data: bytes, most: int) -> list[Damage]:
    from ..errors import BunzaiError
    from ..io.containers.png import PngFile, make_chunk

    try:
        png = PngFile.parse(data)
    except BunzaiError:
        return [Damage("cut-chunk", "cut at half", data[:len(data) // 2])]
    out: list[Damage] = []
    seen: set[str] = set()
    for c in png.chunks:
        if c.type in seen or c.type == "IHDR":
            continue
        seen.add(c.type)
        out.append(Damage("cut-chunk", f"cut inside the {c.type} chunk at {c.offset:,}",
                          data[:c.offset + 8 + c.length // 2]))
    idats = [c for c in png.chunks if c.type == "IDAT"]
    if len(idats) >= 2:  # cut short, then given a new end (as a tool removing chunks does)
        keep = idats[len(idats) // 2]
        out.append(Damage("cut-image", f"the image data cut after {len(idats) // 2} of "
                          f"{len(idats)} IDAT chunks, then ended",
                          data[:keep.offset] + make_chunk(b"IEND", b"")))
    for c in png.chunks:
        if c.type in ("tEXt", "zTXt", "iTXt") and c.length > 16:
            at = c.offset + 8 + c.length * 3 // 4
            flipped = _flip(data, at)
            out.append(Damage("flip", f"byte {at:,} of the {c.type} chunk flipped (CRC kept)",
                              flipped.data))
    return out


def _zip_damages(data: bytes, most: int) -> list[Damage]:
    import io
    import warnings
    import zipfile

    from ..errors import BunzaiError
    from ..io.containers.sniff import zip_start_offset
    from ..io.containers.zipsafe import SafeZip

    out = [Damage("cut-zip", "cut at half", data[:len(data) // 2]),
           Damage("cut-zip", "the end of the central directory cut", data[:-10])]
    try:
        z = SafeZip.open(data)
        entries = [(e.name, b"" if e.is_dir else z.read(e.name)) for e in z]
        prefix = data[:zip_start_offset(data)]
    except BunzaiError:
        return out

    def build(items: list[tuple[str, bytes]]) -> bytes:
        buf = io.BytesIO()
        buf.write(prefix)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
                for name, payload in items:
                    zf.writestr(name, payload)
        return buf.getvalue()

    files = [i for i, (n, b) in enumerate(entries) if not n.endswith("/") and len(b) > 8]
    for i in files[:most]:
        name, payload = entries[i]
        cut = [*entries[:i], (name, payload[:len(payload) // 2]), *entries[i + 1:]]
        out.append(Damage("cut-entry", f"entry {name!r} cut in half", build(cut)))
    named = [i for i in files if any(  # an entry nothing names could never be missed
        entries[i][0].rsplit("/", 1)[-1].encode() in b for j, (_, b) in enumerate(entries)
        if j != i)]
    for i in named[:most]:
        out.append(Damage("drop-entry", f"entry {entries[i][0]!r} left out",
                          build(entries[:i] + entries[i + 1:])))
    return out

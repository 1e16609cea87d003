"""Benchmark fixtures, generated on demand and cached outside the repository.

Every file is built from our own generated text with bunzai's own container helpers (PNG chunks,
zip writer), deterministically from a seed, so two machines benchmark the same bytes.  Pixel data
is filtered scanlines of seeded noise deflated into IDAT: nothing ever decodes it, but the image is
a valid PNG of the stated size and compresses about as well as a real portrait (~2.3x).

The generators are plain functions returning bytes (or writing a folder), so tests can build
small variants without touching the cache.
"""

from __future__ import annotations

import base64
import json
import os
import random
import shutil
import struct
import tempfile
import zlib
from functools import cached_property
from pathlib import Path
from typing import Any

from bunzai.io.containers.png import PNG_SIGNATURE, PngFile, make_chunk, make_text_chunk, splice
from bunzai.io.containers.zipsafe import write_zip

FIXTURE_VERSION = 1
"""Bump when a generator changes, so stale cached files are not reused."""

# -- text -------------------------------------------------------------------------------------

_VOCABULARY = (
    "lantern harbor quiet ember willow copper river tide archive cobble velvet meadow "
    "signal marrow thistle orchard beacon drift hollow saffron glacier murmur parlor "
    "ledger compass ribbon tinder quarry fable prism atlas juniper cinder bramble sable "
    "the a of and to in with under over softly never always {{char}} {{user}} "
    "灯台 港町 静かな 図書館 川辺 夜明け 約束 記憶 物語 風 "
    "🌙 ✨ 🕯️ 🌊 📜"
)
_WORDS = tuple(_VOCABULARY.split())


def _sentence(rng: random.Random, words: int) -> str:
    text = " ".join(rng.choice(_WORDS) for _ in range(words))
    return text[:1].upper() + text[1:] + "."


def _paragraphs(rng: random.Random, chars: int) -> str:
    """Roughly ``chars`` characters of sentences in paragraphs."""
    out: list[str] = []
    size = 0
    while size < chars:
        para = " ".join(_sentence(rng, rng.randint(6, 18)) for _ in range(rng.randint(2, 5)))
        out.append(para)
        size += len(para) + 2
    return "\n\n".join(out)


def _name(rng: random.Random) -> str:
    first = rng.choice(("Mira", "Odile", "Tamsin", "Kaito", "Rhea", "Bram", "Yuki", "Sol",
                        "Isolde", "Anwen", "Corvin", "Hana", "Lio", "Petra", "Wren"))
    last = rng.choice(("Vale", "Ashdown", "Mori", "Quill", "Thorne", "Aoki", "Fenwick",
                       "Marsh", "Okada", "Rook"))
    return f"{first} {last}"


# -- card JSON --------------------------------------------------------------------------------


def _st_entry_extensions(rng: random.Random, i: int) -> dict[str, Any]:
    """The per-entry block SillyTavern writes into a card's character_book entries."""
    return {
        "position": rng.choice((0, 1, 4)),
        "exclude_recursion": rng.random() < 0.2,
        "display_index": i,
        "probability": 100,
        "useProbability": True,
        "depth": 4,
        "selectiveLogic": rng.choice((0, 0, 1, 3)),
        "group": "",
        "group_override": False,
        "group_weight": 100,
        "prevent_recursion": False,
        "delay_until_recursion": False,
        "scan_depth": None,
        "match_whole_words": None,
        "use_group_scoring": False,
        "case_sensitive": None,
        "automation_id": "",
        "role": 0,
        "vectorized": False,
        "sticky": 0,
        "cooldown": 0,
        "delay": 0,
    }


def _book(rng: random.Random, name: str, entries: int, entry_chars: int) -> dict[str, Any]:
    items = []
    for i in range(entries):
        keys = sorted({rng.choice(_WORDS[:40]) for _ in range(rng.randint(1, 4))})
        ext = _st_entry_extensions(rng, i)
        items.append({
            "id": i,
            "keys": keys,
            "secondary_keys": [rng.choice(_WORDS[:40])] if ext["selectiveLogic"] else [],
            "comment": _sentence(rng, 3)[:-1],
            "content": _paragraphs(rng, entry_chars),
            "constant": i == 0,
            "selective": True,
            "insertion_order": 100 - i,
            "enabled": True,
            "position": "before_char" if ext["position"] == 0 else "after_char",
            "use_regex": True,
            "extensions": ext,
        })
    return {"name": f"{name}'s world", "entries": items}


def _size(obj: Any) -> int:
    return len(json_bytes(obj))


def card_v2(seed: int = 0, *, size: int = 20_000, entries: int = 12) -> dict[str, Any]:
    """A V2 card as SillyTavern saves it: V1 fields mirrored at the root, ST extensions, a book.

    ``size`` is the approximate length of the JSON (the description absorbs the difference).
    """
    rng = random.Random(seed)
    name = _name(rng)
    greetings = [_paragraphs(rng, 120) for _ in range(3)]
    data: dict[str, Any] = {
        "name": name,
        "description": "",
        "personality": _sentence(rng, 12),
        "scenario": _paragraphs(rng, 150),
        "first_mes": _paragraphs(rng, 300),
        "mes_example": "<START>\n{{user}}: " + _sentence(rng, 8) + "\n{{char}}: "
                       + _paragraphs(rng, 200),
        "creator_notes": _paragraphs(rng, 120),
        "system_prompt": "",
        "post_history_instructions": "",
        "tags": sorted({rng.choice(_WORDS[:40]) for _ in range(5)}),
        "creator": "bunzai-bench",
        "character_version": "1.0",
        "alternate_greetings": greetings,
        "extensions": {
            "talkativeness": "0.5",
            "fav": False,
            "world": f"{name}'s world",
            "depth_prompt": {"prompt": _sentence(rng, 10), "depth": 4, "role": "system"},
        },
        "group_only_greetings": [],
    }
    if entries:
        data["character_book"] = _book(rng, name, entries, 160)

    def build(description: str) -> dict[str, Any]:
        data["description"] = description
        return {
            "name": name,
            "description": description,
            "personality": data["personality"],
            "scenario": data["scenario"],
            "first_mes": data["first_mes"],
            "mes_example": data["mes_example"],
            "creatorcomment": data["creator_notes"],
            "avatar": "none",
            "chat": f"{name} - 2024-05-01@12h00m00s",
            "talkativeness": "0.5",
            "fav": False,
            "tags": data["tags"],
            "spec": "chara_card_v2",
            "spec_version": "2.0",
            "data": data,
            "create_date": "2024-05-01T12:00:00.000Z",
        }

    card = build("")
    # The description is stored twice (root mirror and data): grow it by half the gap, then trim.
    text = _paragraphs(rng, max(0, size - _size(card)) // 2) if _size(card) < size else ""
    card = build(text)
    while text and _size(card) > size:
        text = text[: max(0, len(text) - (_size(card) - size) // 2 - 1)]
        card = build(text)
    return card


def card_v3(v2: dict[str, Any]) -> dict[str, Any]:
    """The ccv3 twin of an ST card: same body and root mirror, spec chara_card_v3."""
    v3: dict[str, Any] = json.loads(json.dumps(v2))
    v3["spec"] = "chara_card_v3"
    v3["spec_version"] = "3.0"
    return v3


def card_v1(seed: int) -> dict[str, Any]:
    """A flat V1 (TavernAI) card: six fields at the root, nothing else."""
    rng = random.Random(seed)
    return {
        "name": _name(rng),
        "description": _paragraphs(rng, rng.randint(500, 3000)),
        "personality": _sentence(rng, 10),
        "scenario": _paragraphs(rng, 200),
        "first_mes": _paragraphs(rng, 300),
        "mes_example": "<START>\n{{user}}: " + _sentence(rng, 6) + "\n{{char}}: "
                       + _sentence(rng, 12),
    }


def world_book(seed: int, entries: int = 8) -> dict[str, Any]:
    """A SillyTavern World Info file: entries keyed by uid, ST's field names."""
    rng = random.Random(seed)
    out: dict[str, Any] = {}
    for uid in range(entries):
        out[str(uid)] = {
            "uid": uid,
            "key": sorted({rng.choice(_WORDS[:40]) for _ in range(rng.randint(1, 3))}),
            "keysecondary": [],
            "comment": _sentence(rng, 3)[:-1],
            "content": _paragraphs(rng, rng.randint(100, 800)),
            "constant": False,
            "vectorized": False,
            "selective": True,
            "selectiveLogic": 0,
            "addMemo": True,
            "order": 100,
            "position": rng.choice((0, 1)),
            "disable": False,
            "excludeRecursion": False,
            "preventRecursion": False,
            "delayUntilRecursion": False,
            "probability": 100,
            "useProbability": True,
            "depth": 4,
            "group": "",
            "groupOverride": False,
            "groupWeight": 100,
            "scanDepth": None,
            "caseSensitive": None,
            "matchWholeWords": None,
            "useGroupScoring": None,
            "automationId": "",
            "role": None,
            "sticky": 0,
            "cooldown": 0,
            "delay": 0,
            "displayIndex": uid,
        }
    return {"entries": out}


def json_bytes(obj: Any, indent: int | None = None) -> bytes:
    return json.dumps(obj, ensure_ascii=False, indent=indent).encode("utf-8")


# -- PNG --------------------------------------------------------------------------------------


def image_png(seed: int, width: int, height: int, *, entropy_bits: int = 3,
              idat_size: int = 65536) -> bytes:
    """A valid RGB PNG of seeded noise, split into ``idat_size`` IDATs (Pillow's layout).

    ``entropy_bits`` per sample sets how well it compresses: 3 gives ~2.3x like a photo,
    8 gives incompressible data (for multi-MB assets that must be generated quickly).
    """
    rng = random.Random(seed)
    row = width * 3
    raw = rng.randbytes(row * height)
    if entropy_bits < 8:
        mask = (1 << entropy_bits) - 1
        raw = raw.translate(bytes((b & mask) * (256 // (mask + 1)) for b in range(256)))
    lines = b"".join(b"\x00" + raw[i:i + row] for i in range(0, len(raw), row))
    idat = zlib.compress(lines, 6 if entropy_bits < 8 else 1)
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    parts = [PNG_SIGNATURE, make_chunk(b"IHDR", ihdr)]
    parts += [make_chunk(b"IDAT", idat[i:i + idat_size])
              for i in range(0, len(idat), idat_size)]
    parts.append(make_chunk(b"IEND", b""))
    return b"".join(parts)


def card_chunks(card: dict[str, Any], *, ccv3: bool = True) -> list[bytes]:
    """``tEXt chara`` (V2) then ``tEXt ccv3`` (V3), base64 of UTF-8 JSON, as SillyTavern writes."""
    chunks = [make_text_chunk("chara", base64.b64encode(json_bytes(card)))]
    if ccv3:
        chunks.append(make_text_chunk("ccv3", base64.b64encode(json_bytes(card_v3(card)))))
    return chunks


def png_card(image: bytes, card: dict[str, Any], *, early: bool = False,
             ccv3: bool = True) -> bytes:
    """``image`` carrying ``card``: before IEND (SillyTavern's layout) or right after IHDR."""
    chunks = card_chunks(card, ccv3=ccv3)
    if not early:
        return splice(PngFile.parse(image), insert_before_iend=chunks)
    png = PngFile.parse(image)
    ihdr = png.chunks[0]
    return b"".join((bytes(image[:ihdr.end]), *chunks, bytes(image[ihdr.end:])))


# -- CharX ------------------------------------------------------------------------------------


def charx(seed: int = 0, *, asset_sizes: tuple[int, ...] = (7_000_000, 6_000_000, 6_000_000,
                                                             5_500_000, 5_500_000),
          card_size: int = 20_000) -> bytes:
    """A module-less RisuAI CharX: ``card.json`` (V3 with an asset list), images, x_meta.

    The first asset is the icon (``main``); the rest are emotions.  Images are stored, JSON
    deflated, as RisuAI exports them.
    """
    v3 = card_v3(card_v2(seed, size=card_size))
    for key in ("name", "description", "personality", "scenario", "first_mes", "mes_example",
                "creatorcomment", "avatar", "chat", "talkativeness", "fav", "tags",
                "create_date"):
        v3.pop(key, None)  # CharX cards carry no V1 root mirror
    entries: list[tuple[str, bytes]] = []
    assets = []
    for i, size in enumerate(asset_sizes):
        side = max(1, int((size / 3) ** 0.5))
        name = "main" if i == 0 else f"mood{i}"
        folder = "icon" if i == 0 else "emotion"
        path = f"assets/{folder}/image/{name}.png"
        entries.append((f"x_meta/{name}.json", b'{"type":"image/png"}'))
        entries.append((path, image_png(seed * 100 + i, side, side, entropy_bits=8)))
        assets.append({"type": "icon" if i == 0 else "emotion", "uri": f"embeded://{path}",
                       "name": name, "ext": "png"})
    v3["data"]["assets"] = assets
    entries.append(("card.json", json_bytes(v3, indent=2)))
    return write_zip(entries, compress=lambda n: n.endswith(".json"))


# -- a folder of mixed cards ------------------------------------------------------------------

MIX = (("v2json", 30), ("v3json", 15), ("v1json", 10), ("png", 30), ("world", 15))
"""Kinds of files in the batch folder and their share in percent."""


def _pick_kind(pick: int) -> str:
    for kind, share in MIX:
        if pick < share:
            return kind
        pick -= share
    return MIX[-1][0]


def mixed_file(i: int, seed: int = 0) -> tuple[str, bytes]:
    """The ``i``-th file of the batch folder: (file name, bytes).  Depends only on (seed, i)."""
    rng = random.Random(seed * 1_000_003 + i)
    kind = _pick_kind(rng.randrange(100))
    base = f"{i:05d}"
    if kind == "v1json":
        return f"{base}-v1.json", json_bytes(card_v1(rng.randrange(2**32)), indent=4)
    if kind == "world":
        return f"{base}-world.json", json_bytes(world_book(rng.randrange(2**32),
                                                           rng.randint(3, 20)), indent=4)
    card = card_v2(rng.randrange(2**32), size=rng.randint(2_000, 20_000),
                   entries=rng.choice((0, 0, 3, 12)))
    if kind == "v2json":
        return f"{base}-v2.json", json_bytes(card, indent=4)
    if kind == "v3json":
        return f"{base}-v3.json", json_bytes(card_v3(card), indent=4)
    side = rng.choice((64, 96, 128))
    img = image_png(rng.randrange(2**32), side, side)
    return f"{base}-card.png", png_card(img, card, ccv3=rng.random() < 0.7)


def write_mixed_dir(target: Path, count: int, seed: int = 0) -> Path:
    target.mkdir(parents=True, exist_ok=True)
    for i in range(count):
        name, data = mixed_file(i, seed)
        (target / name).write_bytes(data)
    return target


# -- the cache --------------------------------------------------------------------------------


def cache_dir() -> Path:
    """``$BUNZAI_BENCH_CACHE`` or a versioned folder in the system temp directory."""
    env = os.environ.get("BUNZAI_BENCH_CACHE")
    base = Path(env) if env else Path(tempfile.gettempdir()) / "bunzai-bench"
    return base / f"v{FIXTURE_VERSION}"


def _cached_file(name: str, build: Any) -> Path:
    path = cache_dir() / name
    if not path.exists():
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(path.name + f".tmp{os.getpid()}")
        tmp.write_bytes(build())
        os.replace(tmp, path)
    return path


def _cached_dir(name: str, count: int, seed: int = 0) -> Path:
    path = cache_dir() / name
    if not (path / ".complete").exists():
        if path.exists():
            shutil.rmtree(path)
        write_mixed_dir(path, count, seed)
        (path / ".complete").write_text(str(count))
    return path


class Fixtures:
    """Paths of every benchmark fixture, built on first access and reused across runs."""

    def __init__(self, batch_count: int = 2000) -> None:
        self.batch_count = batch_count
        self._image: bytes | None = None

    def _portrait(self) -> bytes:
        # 1408x1480 noise at 3 bits per sample: ~2.7 MB in 64 KiB IDATs, like the peers' file.
        if self._image is None:
            self._image = image_png(7, 1408, 1480)
        return self._image

    @cached_property
    def card(self) -> dict[str, Any]:
        """The 20 KB V2 card every single-card fixture carries."""
        return card_v2(1, size=20_000)

    @property
    def png_st(self) -> Path:
        return _cached_file("card_st.png", lambda: png_card(self._portrait(), self.card))

    @property
    def png_early(self) -> Path:
        return _cached_file("card_early.png",
                            lambda: png_card(self._portrait(), self.card, early=True))

    @property
    def json_v2(self) -> Path:
        return _cached_file("card_v2.json", lambda: json_bytes(self.card))

    @property
    def charx_big(self) -> Path:
        return _cached_file("big.charx", lambda: charx(3))

    @property
    def charx_small(self) -> Path:
        """Same shape as ``charx_big`` with tiny assets: the baseline for memory per byte."""
        return _cached_file("small.charx", lambda: charx(3, asset_sizes=(3000, 3000)))

    def batch_dir(self, count: int | None = None) -> Path:
        """The first ``count`` files of the mixed folder (a prefix of the larger folder)."""
        n = count or self.batch_count
        return _cached_dir(f"mixed-{n}", n)

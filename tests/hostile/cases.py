"""The hostile corpus: broken and malicious inputs, each with the outcome it must give.

Every case is generated here from code (no hand-edited binaries) so it is reviewable and can be
regenerated: ``python -m tests.hostile.generate OUT_DIR`` writes them to disk for fuzz seeding.
A case's ``codes`` are the exit codes the CLI may give (0 only where the format is tolerant by
design, e.g. a truncated PNG whose card chunk is intact), and ``message`` is a regex the one-line
error must match.
"""

from __future__ import annotations

import base64
import io
import json
import struct
import zipfile
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass

from bunzai.io.containers.exif import build_exif_user_comment
from bunzai.io.containers.png import PNG_SIGNATURE, make_chunk, make_text_chunk, minimal_png
from bunzai.io.containers.zipsafe import write_zip

OK = frozenset({0})
NOPE = frozenset({3, 4})
BAD = frozenset({4})
USAGE = frozenset({2})
UNRECOGNIZED = frozenset({3})
TOLERANT = frozenset({0, 4})


@dataclass(frozen=True)
class Case:
    name: str
    data: bytes | None  # None: the path is a directory
    filename: str
    codes: frozenset[int]
    message: str = ""


def card_v2(**data: object) -> dict[str, object]:
    body: dict[str, object] = {
        "name": "Tidewatcher", "description": "Keeps the lighthouse on a cliff of slate.",
        "personality": "patient", "scenario": "A storm is coming.",
        "first_mes": "The lamp needs oil.", "mes_example": "", "creator_notes": "",
        "system_prompt": "", "post_history_instructions": "", "alternate_greetings": [],
        "tags": [], "creator": "bunzai tests", "character_version": "1", "extensions": {},
    }
    body.update(data)
    return {"spec": "chara_card_v2", "spec_version": "2.0", "data": body}


def b64json(obj: object) -> bytes:
    return base64.b64encode(json.dumps(obj).encode())


def png_parts(card: bytes | None = None, *, keyword: str = "chara") -> list[bytes]:
    """signature, IHDR, card tEXt, IDAT, IEND as separate byte strings."""
    base = minimal_png(2, 2)
    ihdr = base[8:8 + 25]
    idat = make_chunk(b"IDAT", zlib.compress(b"\x00" * 40))
    iend = make_chunk(b"IEND", b"")
    text = make_text_chunk(keyword, card if card is not None else b64json(card_v2()))
    return [PNG_SIGNATURE, ihdr, text, idat, iend]


def png_card(card: bytes | None = None, **kw: str) -> bytes:
    return b"".join(png_parts(card, **kw))


def charx(entries: list[tuple[str, bytes]]) -> bytes:
    return write_zip(entries)


def raw_zip(build: Callable[[zipfile.ZipFile], None]) -> bytes:
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        build(zf)
    return buf.getvalue()


CARD_JSON = json.dumps(card_v2()).encode()


def _png_cases() -> Iterator[Case]:
    parts = png_parts()
    whole = b"".join(parts)
    bounds = []
    pos = 0
    for p in parts:
        bounds.append((pos, pos + len(p)))
        pos += len(p)
    card_end = bounds[2][1]
    cuts = sorted({4, 8, 12, 16, 20, bounds[1][1], bounds[2][0] + 6, bounds[2][0] + 30,
                   card_end - 2, card_end, bounds[3][0] + 10, bounds[3][1], bounds[4][0] + 5,
                   len(whole) - 1})
    for cut in cuts:
        yield Case(f"png-truncated-at-{cut}", whole[:cut], "card.png",
                   TOLERANT if cut >= card_end else NOPE)
    sig, ihdr, text, idat, iend = parts
    huge = struct.pack(">I", 2**31 - 1) + b"IDAT" + b"\x00" * 16
    yield Case("png-chunk-length-2^31-1-after-card", sig + ihdr + text + huge, "card.png",
               TOLERANT)
    yield Case("png-chunk-length-2^31-1-before-card", sig + ihdr + huge + text, "card.png", NOPE)
    bad_crc = text[:-4] + bytes([text[-4] ^ 0xFF]) + text[-3:]
    yield Case("png-bad-crc-on-card-chunk", sig + ihdr + bad_crc + idat + iend, "card.png",
               TOLERANT)
    yield Case("png-card-after-iend", sig + ihdr + idat + iend + text, "card.png",
               frozenset({0, 3, 4}))
    yield Case("png-chunk-after-iend", whole + make_chunk(b"tEXt", b"note\x00hi"), "card.png",
               TOLERANT)
    yield Case("png-trailing-garbage", whole + b"\x00garbage" * 10, "card.png", TOLERANT)
    yield Case("png-no-card", minimal_png(4, 4), "card.png", UNRECOGNIZED, "unrecognized")
    yield Case("png-really-a-jpeg", b"\xff\xd8\xff\xe0\x00\x10JFIF\x00" + b"\x00" * 64
               + b"\xff\xd9", "card.png", UNRECOGNIZED, "unrecognized")
    yield Case("png-bad-signature", b"\x89PNX\r\n\x1a\n" + whole[8:], "card.png", NOPE)
    yield Case("png-ihdr-missing", sig + text + idat + iend, "card.png", NOPE)
    for name, payload in [
        ("garbage", b"!!!not base64 at all!!!"),
        ("padding-error", b64json(card_v2())[:-2] + b"="),
        ("missing-padding", b64json(card_v2()).rstrip(b"=")),
        ("whitespace", b"\n ".join(b64json(card_v2())[i:i + 60]
                                   for i in range(0, len(b64json(card_v2())), 60))),
        ("urlsafe", base64.urlsafe_b64encode(CARD_JSON)),
        ("raw-json", CARD_JSON),
        ("base64-of-garbage", base64.b64encode(b"\x00\xff" * 50)),
        ("base64-of-invalid-json", base64.b64encode(b'{"spec": "chara_card_v2", ')),
        ("empty", b""),
    ]:
        codes = NOPE if name in ("garbage", "base64-of-garbage", "base64-of-invalid-json",
                                 "empty") else TOLERANT
        yield Case(f"png-chara-{name}", png_card(payload), "card.png", codes)
    bomb = make_chunk(b"zTXt", b"chara\x00\x00" + zlib.compress(b"A" * (20 * 1024 * 1024), 9))
    yield Case("png-ztxt-bomb", sig + ihdr + bomb + idat + iend, "card.png", NOPE)
    yield Case("png-two-different-chara-chunks",
               sig + ihdr + text + make_text_chunk("chara", b64json(card_v2(name="Other")))
               + idat + iend, "card.png", OK)
    yield Case("png-ccv3-broken-chara-good",
               sig + ihdr + text + make_text_chunk("ccv3", b"!!broken!!") + idat + iend,
               "card.png", TOLERANT)


def _json_cases() -> Iterator[Case]:
    yield Case("json-empty-file", b"", "card.json", UNRECOGNIZED)
    yield Case("json-whitespace-only", b"   \n", "card.json", NOPE)
    for cut in (1, 10, len(CARD_JSON) // 2, len(CARD_JSON) - 1):
        yield Case(f"json-truncated-at-{cut}", CARD_JSON[:cut], "card.json", BAD, "JSON")
    yield Case("json-deep-nesting-100000", b"[" * 100_000 + b"]" * 100_000, "card.json", BAD,
               "deep|depth")
    yield Case("json-deep-object-nesting", b'{"a":' * 50_000 + b"1" + b"}" * 50_000,
               "card.json", BAD)
    yield Case("json-huge-number", json.dumps(card_v2()).replace('"1"', "1e400").encode(),
               "card.json", BAD, "range|infinity")
    yield Case("json-huge-integer", json.dumps(card_v2(extensions={"n": 10**40})).encode(),
               "card.json", OK)
    yield Case("json-nan", CARD_JSON.replace(b'"patient"', b"NaN"), "card.json", BAD)
    yield Case("json-infinity", CARD_JSON.replace(b'"patient"', b"-Infinity"), "card.json", BAD)
    yield Case("json-duplicate-keys", CARD_JSON[:-2] + b', "name": "Dup"}}', "card.json",
               TOLERANT)
    yield Case("json-invalid-utf8", CARD_JSON.replace(b"slate", b"sl\xffte"), "card.json", BAD)
    yield Case("json-lone-surrogate", CARD_JSON.replace(b"slate", b"sl\\ud800te"), "card.json",
               BAD, "surrogate")
    yield Case("json-utf16-bom", json.dumps(card_v2()).encode("utf-16"), "card.json", TOLERANT)
    yield Case("json-utf8-bom", b"\xef\xbb\xbf" + CARD_JSON, "card.json", OK)
    yield Case("json-top-level-string", b'"just a string"', "card.json", NOPE)
    yield Case("json-top-level-array-of-numbers", b"[1, 2, 3]", "card.json", UNRECOGNIZED)
    yield Case("json-null", b"null", "card.json", NOPE)
    wrong_types: dict[str, object] = {
        "name-number": {"name": 42},
        "name-null": {"name": None},
        "description-list": {"description": ["a", "b"]},
        "first-mes-object": {"first_mes": {"text": "hi"}},
        "greetings-string": {"alternate_greetings": "hello there"},
        "greetings-of-numbers": {"alternate_greetings": [1, 2]},
        "tags-string": {"tags": "a, b"},
        "tags-null": {"tags": None},
        "extensions-list": {"extensions": [1]},
        "extensions-null": {"extensions": None},
        "book-null": {"character_book": None},
        "book-string": {"character_book": "none"},
        "book-entries-null": {"character_book": {"entries": None}},
        "book-entries-object": {"character_book": {"entries": {"0": {}}}},
        "book-entry-keys-string": {"character_book": {"entries": [
            {"keys": "a,b", "content": "x", "enabled": True, "insertion_order": 1,
             "extensions": {}}]}},
        "book-entry-null": {"character_book": {"entries": [None]}},
        "character-version-number": {"character_version": 3},
        "creation-date-string": {"creation_date": "yesterday"},
    }
    for name, patch in wrong_types.items():
        yield Case(f"json-wrong-type-{name}", json.dumps(card_v2(**patch)).encode(),
                   "card.json", TOLERANT)
    yield Case("json-data-not-object", json.dumps({"spec": "chara_card_v2", "data": "x"})
               .encode(), "card.json", NOPE)
    yield Case("json-worldinfo-entries-null", b'{"entries": null}', "book.json", NOPE)
    yield Case("json-worldinfo-entry-wrong-types",
               json.dumps({"entries": {"0": {"uid": "zero", "key": "k", "content": 5,
                                            "disable": "no"}}}).encode(), "book.json",
               frozenset({0, 3, 4}))
    yield Case("json-regex-wrong-types", json.dumps({"scriptName": 5, "findRegex": ["x"],
                                                     "placement": "2"}).encode(),
               "regex.json", frozenset({0, 3, 4}))
    yield Case("json-persona-wrong-types",
               json.dumps({"personas": {"a.png": 5}, "persona_descriptions": []}).encode(),
               "personas.json", frozenset({0, 3, 4}))
    yield Case("json-very-long-string", json.dumps(card_v2(description="x" * 5_000_000))
               .encode(), "card.json", OK)


def _zip_cases() -> Iterator[Case]:
    card = CARD_JSON.replace(b"chara_card_v2", b"chara_card_v3").replace(b'"2.0"', b'"3.0"')
    good = charx([("card.json", card)])
    for cut in (10, 30, len(good) // 2, len(good) - 22, len(good) - 1):
        yield Case(f"zip-truncated-at-{cut}", good[:cut], "card.charx", NOPE)
    yield Case("charx-without-card-json", charx([("readme.txt", b"hello")]), "card.charx",
               NOPE)
    yield Case("charx-card-json-invalid", charx([("card.json", b"{nope")]), "card.charx",
               NOPE)
    yield Case("charx-card-json-not-a-card", charx([("card.json", b'{"a": 1}')]),
               "card.charx", NOPE)

    def entry(name: str) -> Callable[[zipfile.ZipFile], None]:
        def build(zf: zipfile.ZipFile) -> None:
            zf.writestr("card.json", card)
            zf.writestr(zipfile.ZipInfo(name), b"x")
        return build

    for label, name in [("dotdot", "../../etc/passwd"), ("absolute", "/etc/passwd"),
                        ("backslash", "assets\\..\\..\\x.png"), ("drive", "C:/x.png"),
                        ("dotdot-inner", "assets/../../x")]:
        yield Case(f"zip-entry-name-{label}", raw_zip(entry(name)), "card.charx", BAD,
                   "unsafe|name|path")
    # zipfile cuts names at NUL when writing, so put the NUL into the bytes afterwards
    nul = raw_zip(entry("assets/a#.png")).replace(b"assets/a#.png", b"assets/a\x00.png")
    yield Case("zip-entry-name-nul", nul, "card.charx", BAD, "unsafe|name|path|NUL")

    def symlink(zf: zipfile.ZipFile) -> None:
        zf.writestr("card.json", card)
        info = zipfile.ZipInfo("assets/link.png")
        info.external_attr = (0o120777 << 16)
        zf.writestr(info, "/etc/passwd")
    yield Case("zip-symlink-entry", raw_zip(symlink), "card.charx", BAD, "symlink|link")

    def dup(zf: zipfile.ZipFile) -> None:
        zf.writestr("card.json", card)
        zf.writestr("assets/a.png", b"1")
        zf.writestr("assets/a.png", b"2")
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield Case("zip-duplicate-entries", raw_zip(dup), "card.charx", BAD, "duplicate")

    def flat_bomb(zf: zipfile.ZipFile) -> None:
        zf.writestr("card.json", card)
        info = zipfile.ZipInfo("assets/bomb.png")
        info.compress_type = zipfile.ZIP_DEFLATED
        zf.writestr(info, b"\x00" * (50 * 1024 * 1024))
    yield Case("zip-flat-bomb", raw_zip(flat_bomb), "card.charx", BAD, "limit|ratio|raise")
    inner = raw_zip(flat_bomb)

    def nested(zf: zipfile.ZipFile) -> None:
        zf.writestr("card.json", card)
        for i in range(3):
            info = zipfile.ZipInfo(f"assets/inner{i}.zip")
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, inner)
    yield Case("zip-nested-bomb", raw_zip(nested), "card.charx", frozenset({0, 4}))
    lying = bytearray(raw_zip(lambda zf: (zf.writestr("card.json", card),
                                          zf.writestr(_deflated("assets/x.png"),
                                                      b"\x00" * 2_000_000))))
    _patch_declared_size(lying, b"assets/x.png", 100)
    yield Case("zip-declared-size-lies", bytes(lying), "card.charx", NOPE)

    def many(zf: zipfile.ZipFile) -> None:
        zf.writestr("card.json", card)
        for i in range(10_050):
            zf.writestr(f"a/{i}", b"")
    yield Case("zip-too-many-entries", raw_zip(many), "card.charx", BAD, "entries")
    yield Case("zip-encrypted-flag", _encrypted(card), "card.charx", NOPE)
    manifest = {"schemaVersion": 1, "characters": ["../outside/character.json"],
                "scenarios": ["scenarios/s1.json"]}
    yield Case("byaf-manifest-points-outside",
               write_zip([("manifest.json", json.dumps(manifest).encode())]), "x.byaf", NOPE)
    manifest2 = {"schemaVersion": 1, "characters": ["characters/a/character.json"],
                 "scenarios": ["scenarios/s1.json"]}
    yield Case("byaf-missing-character",
               write_zip([("manifest.json", json.dumps(manifest2).encode())]), "x.byaf", NOPE)
    yield Case("jpeg-with-zip-without-card",
               b"\xff\xd8\xff\xe0" + b"\x00" * 100 + b"\xff\xd9" + charx([("x.txt", b"1")]),
               "card.jpg", NOPE)
    yield Case("zip-empty", write_zip([]), "card.charx", NOPE)


def _deflated(name: str) -> zipfile.ZipInfo:
    info = zipfile.ZipInfo(name)
    info.compress_type = zipfile.ZIP_DEFLATED
    return info


def _patch_declared_size(buf: bytearray, name: str | bytes, size: int) -> None:
    """Make the local and central headers of ``name`` claim ``size`` uncompressed bytes."""
    nb = name if isinstance(name, bytes) else name.encode()
    pos = 0
    while True:
        pos = buf.find(nb, pos)
        if pos < 0:
            return
        for sig, off in ((b"PK\x03\x04", 30), (b"PK\x01\x02", 46)):
            start = pos - off
            if start >= 0 and buf[start:start + 4] == sig:
                field = 22 if sig == b"PK\x03\x04" else 24
                struct.pack_into("<I", buf, start + field, size)
        pos += len(nb)


def _encrypted(card: bytes) -> bytes:
    buf = bytearray(charx([("card.json", card)]))
    for sig, off in ((b"PK\x03\x04", 6), (b"PK\x01\x02", 8)):
        i = buf.find(sig)
        flags = struct.unpack_from("<H", buf, i + off)[0]
        struct.pack_into("<H", buf, i + off, flags | 1)
    return bytes(buf)


def _other_cases() -> Iterator[Case]:
    yield Case("zero-byte-file", b"", "card.png", UNRECOGNIZED)
    # a folder is read file by file (a batch): an empty one is a usage error naming it
    yield Case("directory-given-as-file", None, "adir", USAGE, "directory|folder")
    yield Case("random-binary", bytes(range(256)) * 40, "card.bin", UNRECOGNIZED)
    yield Case("plain-text", b"hello, this is not a card\n", "card.txt", UNRECOGNIZED)
    yield Case("risum-wrong-magic", b"\x70\x00" + b"\x00" * 32, "m.risum", NOPE)
    yield Case("risum-wrong-version", b"\x6f\x07" + struct.pack("<I", 2) + b"{}" + b"\x00",
               "m.risum", NOPE)
    yield Case("risum-length-beyond-file", b"\x6f\x00" + struct.pack("<I", 10**9) + b"{}",
               "m.risum", NOPE)
    yield Case("risum-truncated", b"\x6f\x00\x10", "m.risum", NOPE)
    yield Case("webp-exif-garbage", _webp(b"Exif\x00\x00" + b"MM\x00*garbage"), "card.webp",
               NOPE)
    yield Case("webp-exif-offset-loop", _webp(_tiff_loop()), "card.webp", NOPE)
    yield Case("webp-usercomment-not-json",
               _webp(build_exif_user_comment(b"not json at all")), "card.webp", NOPE)
    yield Case("webp-usercomment-byte-list-garbage",
               _webp(build_exif_user_comment(b"123,456,abc")), "card.webp", NOPE)
    yield Case("png-exif-backyard-garbage",
               PNG_SIGNATURE + minimal_png()[8:33] + make_chunk(
                   b"eXIf", build_exif_user_comment(b'{"character": 5, "version": 9}'))
               + make_chunk(b"IDAT", zlib.compress(b"\x00" * 8)) + make_chunk(b"IEND", b""),
               "card.png", NOPE)
    yield Case("png-persona-chunk-garbage", png_card(b"%%%", keyword="persona"), "p.png", NOPE)
    yield Case("png-risu-encrypted", png_card(b"rcc||rccv1||AAAA||hash||meta"), "card.png",
               NOPE)


def _chat_cases() -> Iterator[Case]:
    head = json.dumps({"user_name": "Ada", "character_name": "Wren", "chat_metadata": {}})
    one = json.dumps({"name": "Wren", "is_user": False, "mes": "a", "swipe_id": 0,
                      "swipes": ["a"] * 250_000}, separators=(",", ":"))
    # a quarter of a million one-letter swipes: 4 bytes each here, an object each in memory
    yield Case("chat-swipes-over-the-limit", f"{head}\n{one}".encode(), "chat.jsonl", BAD,
               r"line 2: 250,000 alternatives \(swipes\) in one message, over the limit")
    line = json.dumps({"name": "Wren", "is_user": False, "mes": "Rain again."})
    yield Case("chat-line-cut-mid-json", f"{head}\n{line}\n{line[:20]}\n{line}".encode(),
               "chat.jsonl", OK)
    yield Case("chat-last-line-cut", f"{head}\n{line}\n{line[:20]}".encode(), "chat.jsonl",
               OK)


def _webp(exif: bytes) -> bytes:
    vp8 = b"VP8L" + struct.pack("<I", 5) + b"\x2f\x00\x00\x00\x00" + b"\x00"
    ex = b"EXIF" + struct.pack("<I", len(exif)) + exif + (b"\x00" if len(exif) % 2 else b"")
    body = b"WEBP" + vp8 + ex
    return b"RIFF" + struct.pack("<I", len(body)) + body


def _tiff_loop() -> bytes:
    # IFD0 at 8 whose next-IFD pointer points back at itself.
    return b"MM\x00*" + struct.pack(">I", 8) + struct.pack(">H", 0) + struct.pack(">I", 8)


def all_cases() -> list[Case]:
    cases = [*_png_cases(), *_json_cases(), *_zip_cases(), *_other_cases(), *_chat_cases()]
    names = [c.name for c in cases]
    assert len(names) == len(set(names)), "duplicate case names"
    return cases

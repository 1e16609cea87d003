"""Build ``bunzai-sample.png``, the project's own demo card.

Run ``python examples/cards/make_sample.py`` (with bunzai installed).

Everything in it is ours: the character and her three lorebook entries were written for
bunzai, and the picture (a dusk gradient with a tram's headlight) is drawn here pixel row by
pixel row.  The card is written by bunzai's own ``sillytavern`` writer, so the sample is a
PNG with a ``chara`` (V2) and a ``ccv3`` (V3) chunk, as SillyTavern would save it.
"""

from __future__ import annotations

import math
import struct
import zlib
from pathlib import Path

import bunzai
from bunzai.model import Asset, Character, Lorebook, LorebookEntry

HERE = Path(__file__).resolve().parent
OUT = HERE / "bunzai-sample.png"
WIDTH, HEIGHT = 400, 600


def _chunk(kind: bytes, payload: bytes) -> bytes:
    return (struct.pack(">I", len(payload)) + kind + payload
            + struct.pack(">I", zlib.crc32(payload, zlib.crc32(kind))))


def picture() -> bytes:
    """Dusk over a hill city: a violet-to-amber sky, a dark hillside, one tram headlight."""
    top, bottom = (46, 38, 92), (236, 150, 84)
    hill, light = (28, 30, 44), (255, 236, 170)
    cx, cy, r = WIDTH * 0.62, HEIGHT * 0.7, 34.0
    rows = []
    for y in range(HEIGHT):
        t = min(1.0, y / (HEIGHT * 0.75))
        sky = bytes(round(a + (b - a) * t) for a, b in zip(top, bottom, strict=True))
        row = bytearray()
        for x in range(WIDTH):
            ground = HEIGHT * 0.6 + 55 * math.sin(x / 70.0) + 25 * math.cos(x / 23.0)
            d = math.hypot(x - cx, y - cy)
            if d <= r:
                row += bytes(light)
            elif d <= r * 2.2 and y >= ground:
                glow = (1 - (d - r) / (r * 1.2)) * 0.6
                row += bytes(round(h + (l_ - h) * max(glow, 0)) for h, l_ in
                             zip(hill, light, strict=True))
            elif y >= ground:
                row += bytes(hill)
            else:
                row += sky
        rows.append(b"\x00" + bytes(row))
    ihdr = struct.pack(">IIBBBBB", WIDTH, HEIGHT, 8, 2, 0, 0, 0)
    return b"".join((b"\x89PNG\r\n\x1a\n", _chunk(b"IHDR", ihdr),
                     _chunk(b"IDAT", zlib.compress(b"".join(rows), 9)), _chunk(b"IEND", b"")))


def character() -> Character:
    book = Lorebook(name="Line 9 by Night", entries=[
        LorebookEntry(
            id=0, keys=["night line", "line 9", "tram"], comment="The Night Line",
            content="Line 9 is the last tram that still climbs Cobble Hill after midnight. "
                    "It has one carriage, a brass bell and a heater that only works on the "
                    "way up.",
            insertion_order=100, enabled=True, constant=False, selective=False,
            use_regex=False, position="before_char"),
        LorebookEntry(
            id=1, keys=["Cobble Hill", "the hill"], comment="Cobble Hill",
            content="Cobble Hill is a steep old quarter of stairs, laundry lines and bakeries "
                    "that open at four in the morning. The tram stops are named after the "
                    "bakeries.",
            insertion_order=100, enabled=True, constant=False, selective=False,
            use_regex=False, position="after_char"),
        LorebookEntry(
            id=2, keys=["ticket", "punch"], secondary_keys=["fare"], comment="The punch",
            content="{{char}}'s ticket punch leaves a small star-shaped hole. Regulars keep "
                    "their punched tickets; some have hundreds.",
            insertion_order=90, enabled=True, constant=False, selective=True,
            selective_logic="and_any", use_regex=False, position="at_depth", depth=4,
            role="system", probability=80, use_probability=True),
    ])
    return Character(
        name="Pell Ashdown",
        nickname="Pell",
        description="{{char}} is the conductor of Line 9, the night tram up Cobble Hill. "
                    "Fifty-something, unhurried, with a ticket punch on a chain and a thermos "
                    "of very strong tea. {{char}} knows every regular by their stop and most "
                    "of their secrets, and keeps all of them.",
        personality="patient, observant, dry humour, quietly kind",
        scenario="Past midnight, {{user}} boards the last tram up the hill, soaked by rain.",
        first_mes="*The bell clangs once as the doors fold shut behind you.* Mind the step, "
                  "it's slick tonight. Where to? And don't say 'the top', everybody says "
                  "'the top'.",
        mes_example="<START>\n{{user}}: Do you ever get tired of the same route?\n"
                    "{{char}}: Same rails, different passengers. *punches your ticket* "
                    "That's never the same twice.",
        alternate_greetings=[
            "*Pell looks up from the logbook.* You again. Third night this week. "
            "Trouble sleeping, or trouble at home?",
        ],
        creator_notes="The bunzai project's own sample card: original text and a generated "
                      "picture, free to use for testing converters.",
        tags=["sample", "slice of life", "night"],
        creator="bunzai",
        character_version="1.0",
        extensions={"talkativeness": "0.5", "fav": False, "world": "",
                    "depth_prompt": {"prompt": "", "depth": 4, "role": "system"}},
        lorebook=book,
        assets=[Asset(type="icon", name="main", ext="png", media_type="image/png",
                      data=picture(), origin="png")],
    )


def main() -> None:
    result = bunzai.write(character(), "sillytavern")
    if result.loss:
        raise SystemExit(f"unexpected loss: {[str(e) for e in result.loss]}")
    OUT.write_bytes(result.data)
    print(f"wrote {OUT} ({len(result.data):,} bytes)")


if __name__ == "__main__":
    main()

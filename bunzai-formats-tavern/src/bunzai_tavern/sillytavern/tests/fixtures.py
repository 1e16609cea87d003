"""Card files built in memory, for tests: PNGs with chosen chunk kinds, keywords and places,
APNG frames, and TavernAI-style WebP/JPEG EXIF cards.  Everything here is generated."""

from __future__ import annotations

import base64
import json
import struct
import zlib
from typing import Any

from bunzai.sdk.exif import build_exif_user_comment
from bunzai.sdk.png import PNG_SIGNATURE, make_chunk, make_text_chunk

__all__ = ["card_chunk", "exif_image", "image_png", "png_with", "sample_card"]


def image_png(width: int = 4, height: int = 3, colour: tuple[int, int, int] = (200, 80, 40),
              *, extra: list[bytes] | None = None, apng: bool = False) -> bytes:
    """A small RGB PNG; ``extra`` chunks go after IHDR; ``apng`` adds two animation frames."""
    ihdr = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    raw = b"".join(b"\x00" + bytes(colour) * width for _ in range(height))
    parts = [PNG_SIGNATURE, make_chunk(b"IHDR", ihdr), *(extra or [])]
    if apng:
        parts.append(make_chunk(b"acTL", struct.pack(">II", 2, 0)))
        fctl = struct.pack(">IIIIIHHBB", 0, width, height, 0, 0, 1, 10, 0, 0)
        parts.append(make_chunk(b"fcTL", fctl))
    parts.append(make_chunk(b"IDAT", zlib.compress(raw)))
    if apng:
        fctl2 = struct.pack(">IIIIIHHBB", 1, width, height, 0, 0, 1, 10, 0, 0)
        parts.append(make_chunk(b"fcTL", fctl2))
        parts.append(make_chunk(b"fdAT", struct.pack(">I", 2) + zlib.compress(raw[::-1])))
    parts.append(make_chunk(b"IEND", b""))
    return b"".join(parts)


def card_chunk(keyword: str, card: Any, kind: str = "tEXt", *, raw: bool = False) -> bytes:
    """A text chunk holding ``card`` as compact JSON, base64-encoded unless ``raw``."""
    text = card if isinstance(card, bytes) else json.dumps(
        card, ensure_ascii=False, separators=(",", ":")).encode("utf-8")
    return make_text_chunk(keyword, text if raw else base64.b64encode(text), kind)


def png_with(before_idat: list[bytes] = (), before_iend: list[bytes] = (),  # type: ignore[assignment]
             *, apng: bool = False) -> bytes:
    """:func:`image_png` with chunks inserted after IHDR and before IEND."""
    base = image_png(extra=list(before_idat), apng=apng)
    return base[:-12] + b"".join(before_iend) + base[-12:]


def exif_image(fmt: str, payload: bytes) -> bytes:
    """A real WebP or JPEG (via Pillow) whose EXIF UserComment is ``payload`` (ASCII charset)."""
    from io import BytesIO

    from PIL import Image

    tiff = build_exif_user_comment(payload)
    out = BytesIO()
    Image.new("RGB", (8, 8), (30, 120, 200)).save(out, format=fmt, exif=b"Exif\x00\x00" + tiff)
    return out.getvalue()


def sample_card(**data: Any) -> dict[str, Any]:
    """A small V2 card with SillyTavern's root duplicates and extras (our own text)."""
    body: dict[str, Any] = {
        "name": "Wren", "description": "{{char}} keeps the lighthouse logbook.",
        "personality": "patient, dry humour", "scenario": "A storm night at the lighthouse.",
        "first_mes": "Shut the door, the wind bites.", "mes_example": "<START>\n{{char}}: Tea?",
        "creator_notes": "", "system_prompt": "", "post_history_instructions": "",
        "alternate_greetings": ["You're late."], "tags": ["test"], "creator": "bunzai tests",
        "character_version": "1", "extensions": {"talkativeness": "0.5", "fav": False,
                                                  "world": "", "depth_prompt": {
                                                      "prompt": "", "depth": 4,
                                                      "role": "system"}},
        "group_only_greetings": [],
    }
    body.update(data)
    root = {k: body[k] for k in ("name", "description", "personality", "scenario",
                                 "first_mes", "mes_example")}
    root.update(creatorcomment="", avatar="none", talkativeness="0.5", fav=False,
                tags=["test"], spec="chara_card_v2", spec_version="2.0", data=body,
                create_date="2024-5-12 @21h 32m 29s 228ms")
    return root

"""Regenerate the PNG samples: NovelAI's "export as image" stores the lorebook JSON, base64
encoded, in a ``naidata`` tEXt chunk.  Run ``python tests/make_png_samples.py`` after changing
``samples/harbour-town.lorebook``.
"""

from __future__ import annotations

import base64
from pathlib import Path

from bunzai.sdk.png import PngFile, make_chunk, make_text_chunk, minimal_png, splice

SAMPLES = Path(__file__).parent / "samples"


def lorebook_png(lorebook: bytes, *, keyword: str = "naidata") -> bytes:
    """A small cover image with a physical-size chunk, a Software note and the lorebook."""
    cover = PngFile.parse(minimal_png(4, 3, (40, 80, 120, 255)))
    phys = make_chunk(b"pHYs", bytes.fromhex("00000b1300000b1301"))
    note = make_text_chunk("Software", "bunzai example fixture")
    data = make_text_chunk(keyword, base64.b64encode(lorebook.strip()))
    return splice(cover, insert_before_iend=[phys, note, data])


def main() -> None:
    book = (SAMPLES / "harbour-town.lorebook").read_bytes()
    (SAMPLES / "harbour-town.png").write_bytes(lorebook_png(book))
    (SAMPLES / "malformed" / "naidata-not-json.png").write_bytes(
        splice(PngFile.parse(minimal_png(2, 2)),
               insert_before_iend=[make_text_chunk("naidata", b"not a lorebook at all")]))


if __name__ == "__main__":
    main()

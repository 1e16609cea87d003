"""PNG text-chunk keywords RisuAI uses, and stripping them off an image (import-light)."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from bunzai.containers.png import Chunk, PngFile

ASSET_PREFIX = "chara-ext-asset_"
CARD_KEYWORDS = frozenset({"chara", "ccv3"})
RISU_KEYWORDS = frozenset({"chara", "ccv3", "risuai", "persona"})


def asset_key(keyword: str) -> str | None:
    """``"1"`` for ``chara-ext-asset_:1`` or ``chara-ext-asset_1``; None for other keywords."""
    low = keyword.lower()
    if not low.startswith(ASSET_PREFIX):
        return None
    key = keyword[len(ASSET_PREFIX):]
    return key[1:] if key.startswith(":") else key


def chunk_keyword(chunk: Chunk) -> str | None:
    """The keyword of a text chunk, read without decoding its value."""
    if chunk.type not in ("tEXt", "zTXt", "iTXt"):
        return None
    head = chunk.data[:80].tobytes()
    nul = head.find(b"\x00")
    return head[:nul].decode("latin-1") if nul >= 0 else None


def is_risu_chunk(chunk: Chunk) -> bool:
    """A card, persona, legacy or asset text chunk (what RisuAI's writers replace)."""
    kw = chunk_keyword(chunk)
    if kw is None:
        return False
    low = kw.lower()
    return low in RISU_KEYWORDS or low.startswith(ASSET_PREFIX)


def strip_risu_chunks(png: PngFile, insert: list[bytes] | None = None) -> bytes:
    """The PNG without card/persona/asset chunks, with ``insert`` placed before IEND."""
    from bunzai.containers.png import splice

    return splice(png, remove=is_risu_chunk, insert_before_iend=insert or [])

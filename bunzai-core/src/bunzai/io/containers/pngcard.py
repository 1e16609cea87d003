"""The PNG card conventions every card format shares (import-light).

SillyTavern, RisuAI, RoleCall and the tools around them agree on these, so they live here once:

* the card rides in a ``chara`` (V2, or a V1 card) and/or a ``ccv3`` (V3) text chunk, its
  JSON base64-encoded (raw JSON is tolerated);
* a card's embedded assets ride in ``chara-ext-asset_:<key>`` text chunks (RisuAI; older
  files spell it ``chara-ext-asset_<key>``), addressed from the card as ``__asset:<key>``;
* RisuAI's password-protected export puts ``rcc||`` and a ciphertext where the base64 would be;
* a card imported from RisuRealm carries ``data.extensions.risuRealmImportId``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from .png import Chunk, PngFile

__all__ = [
    "ASSET_PREFIX",
    "ASSET_URI_PREFIX",
    "CARD_KEYWORDS",
    "ENCRYPTED_PREFIX",
    "REALM_KEY",
    "asset_key",
    "asset_keyword",
    "card_or_asset_offsets",
    "chunk_keyword",
    "has_encrypted_card",
    "is_card_or_asset_chunk",
    "realm_evidence",
]

CARD_KEYWORDS = frozenset({"chara", "ccv3"})
"""Text-chunk keywords that hold a card (compared case-insensitively)."""
ASSET_PREFIX = "chara-ext-asset_"
"""Keyword prefix of an embedded asset's text chunk."""
ASSET_URI_PREFIX = "__asset:"
"""How a card's ``assets[].uri`` points at such a chunk."""
ENCRYPTED_PREFIX = b"rcc||"
"""What a password-protected RisuAI card chunk starts with."""
REALM_KEY = "risuRealmImportId"
"""``data.extensions`` key RisuAI adds to cards imported from RisuRealm."""


def asset_key(keyword: str) -> str | None:
    """``"1"`` for ``chara-ext-asset_:1`` or ``chara-ext-asset_1``; None for other keywords."""
    if not keyword.lower().startswith(ASSET_PREFIX):
        return None
    key = keyword[len(ASSET_PREFIX):]
    return key[1:] if key.startswith(":") else key


def asset_keyword(key: str) -> str:
    """The keyword of the chunk that carries asset ``key`` (``chara-ext-asset_:key``)."""
    return f"{ASSET_PREFIX}:{key}"


def chunk_keyword(chunk: Chunk) -> str | None:
    """The keyword of a text chunk, read without decoding its value (None for other chunks)."""
    if chunk.type not in ("tEXt", "zTXt", "iTXt"):
        return None
    head = bytes(chunk.data[:80])
    nul = head.find(b"\x00")
    return head[:nul].decode("latin-1") if nul >= 0 else None


def is_card_or_asset_chunk(chunk: Chunk) -> bool:
    """A card (``chara``/``ccv3``) or asset text chunk: what a card writer replaces."""
    kw = chunk_keyword(chunk)
    if kw is None:
        return False
    return kw.lower() in CARD_KEYWORDS or kw.lower().startswith(ASSET_PREFIX)


def card_or_asset_offsets(png: PngFile) -> set[int]:
    """Offsets of the chunks :func:`is_card_or_asset_chunk` accepts, read from the chunk table
    and each text chunk's keyword only (no :class:`Chunk` per chunk of the image)."""
    data = png.data
    out = set()
    for ctype, offset, length, _crc in png.table():
        if ctype in ("tEXt", "zTXt", "iTXt"):
            head = bytes(data[offset + 8:offset + 8 + min(length, 80)])
            nul = head.find(b"\x00")
            if nul >= 0:
                kw = head[:nul].decode("latin-1").lower()
                if kw in CARD_KEYWORDS or kw.startswith(ASSET_PREFIX):
                    out.add(offset)
    return out


def has_encrypted_card(png: PngFile | None) -> bool:
    """Whether a ``chara``/``ccv3`` tEXt chunk holds a password-protected RisuAI card."""
    if png is None:
        return False
    for tc in png.find_text(*CARD_KEYWORDS):
        start = tc.text_offset
        if tc.kind == "tEXt" and bytes(tc.chunk.data[start:start + 5]) == ENCRYPTED_PREFIX:
            return True
    return False


def realm_evidence(extensions: Mapping[str, Any]) -> list[str]:
    """Labeler evidence that a card came from RisuRealm (empty when there is none)."""
    if REALM_KEY in extensions:
        return [f"data.extensions.{REALM_KEY} (imported from RisuRealm)"]
    return []

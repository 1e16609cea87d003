"""Finding the Tavern character card in an input: JSON, PNG text chunks or EXIF UserComment.

Shared by the ``sillytavern``, ``rolecall``, ``rolecall-persona`` and ``pygmalion`` adapters
so the card is located once per input (memoized on the input) and every detector scores the
same finding.  Import-light: no pydantic here; reading and writing live in
:mod:`bunzai_tavern._common.cards.container`.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from bunzai.sdk.cards import CARD_KEYWORDS, ENCRYPTED_PREFIX, card_body, card_version

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput, ChunkPayload
    from bunzai.sdk.png import PngFile

__all__ = [
    "Found",
    "find_card",
    "rolecall_block",
]

CARD_CARRIES: tuple[str, ...] = (
    "*", "!triggers", "regex_scripts[*].*", "!regex_scripts[*].extensions",
)
"""What a Character Card V3 holds: every canonical field but RisuAI's triggers and the regex
scripts' extensions (a V2 or V1 card holds less: the codec reports that)."""

CARD_REASONS: tuple[tuple[str, str], ...] = (
    ("triggers", "character cards have no trigger scripts: RisuAI's automation will not run"),
    ("regex_scripts[*].extensions", "SillyTavern regex scripts have no extensions"),
)

_MEMO_KEY = "bunzai_tavern._common.cards.find"
_EXIF_CONTAINERS = ("webp", "jpeg")

@dataclass
class Found:
    """Where the card is and what it looks like; ``card`` is a read-only JSON view."""

    source: str = "none"
    """``json``, ``png``, ``exif`` or ``none``."""
    card: Any = None
    version: str | None = None
    payload: ChunkPayload | None = None
    """The winning PNG chunk."""
    exif_encoding: str | None = None
    """``json`` or ``bytes`` (comma-separated decimal byte values) for EXIF cards."""
    wrapper: str | None = None
    """``character``/``card`` when the JSON is a pygmalion.chat export wrapping a card."""
    card_chunks: int = 0
    """How many ``chara``/``ccv3`` chunks the PNG has (readable or not)."""
    problem: str | None = None
    """Why no card could be read although the file looked like it should hold one."""
    rcpersona: Any = None
    """A RoleCall ``rcpersona`` chunk's JSON (``{spec: "rolecall_persona", data}``)."""
    notes: list[str] = field(default_factory=list)
    _looked: dict[str, Any] = field(default_factory=dict, repr=False, compare=False)
    """What :attr:`body` and :func:`rolecall_block` found (several detectors ask)."""

    @property
    def body(self) -> Mapping[str, Any] | None:
        try:
            return self._looked["body"]  # type: ignore[no-any-return]
        except KeyError:
            # the version found says where the fields are: the card is not examined again
            card = self.card
            if self.version == "v1":
                body = card
            elif self.version is None:
                body = card_body(card)
            else:
                inner = card.get("data")
                body = inner if isinstance(inner, Mapping) else None
            self._looked["body"] = body
            return body


def rolecall_block(found: Found) -> Mapping[str, Any] | None:
    """The card's ``extensions.rolecall`` object, if any."""
    try:
        return found._looked["rolecall"]  # type: ignore[no-any-return]
    except KeyError:
        pass
    body = found.body
    ext = body.get("extensions") if body is not None else None
    block = ext.get("rolecall") if isinstance(ext, Mapping) else None
    found._looked["rolecall"] = block = block if isinstance(block, Mapping) else None
    return block


def find_card(input: AdapterInput) -> Found:
    """The card in ``input`` (memoized; never raises)."""
    return input.memo(_MEMO_KEY, lambda: _find(input))


def _find(input: AdapterInput) -> Found:
    try:
        container = input.container
        if container == "json":
            return _find_json(input.json)
        if container in ("png", "apng"):
            return _find_png(input)
        if container in _EXIF_CONTAINERS:
            return _find_exif(input)
    except Exception as exc:  # detection must never fail; the reader reports properly
        return Found(problem=f"{type(exc).__name__}: {exc}")
    return Found()


def _find_json(obj: Any) -> Found:
    version = card_version(obj)
    if version is not None:
        return Found("json", obj, version)
    if isinstance(obj, Mapping):
        for key in ("character", "card"):
            inner = obj.get(key)
            if card_version(inner) in ("v2", "v3"):
                return Found("json", inner, card_version(inner), wrapper=key)
        if obj.get("spec") == "rolecall_persona" and isinstance(obj.get("data"), Mapping):
            return Found("json", rcpersona=obj)
    return Found()


def _find_png(input: AdapterInput) -> Found:
    png = input.png
    if png is None:
        return Found()
    found = Found("png")
    ccv3 = input.png_json("ccv3")
    chara = input.png_json("chara")
    found.card_chunks = len(ccv3) + len(chara)
    for payload in [*ccv3, *chara]:
        version = card_version(payload.value) if payload.error is None else None
        if version is not None:
            found.card = payload.value
            found.version = version
            found.payload = payload
            break
    for payload in input.png_json("rcpersona"):
        value = payload.value
        if isinstance(value, Mapping) and value.get("spec") == "rolecall_persona":
            found.rcpersona = value
            break
    if found.card is None and found.card_chunks:
        found.problem = _why_unreadable([*ccv3, *chara])
    elif found.card is None:
        cut = cut_card_chunk(png)
        if cut is not None:
            found.card_chunks, found.problem = 1, cut
    return found


def cut_card_chunk(png: PngFile) -> str | None:
    """What a PNG that ends inside a card text chunk is: ``truncated PNG: the chara chunk is
    cut at byte N of M``; None when the file is whole or cut elsewhere.  Without this the cut
    chunk is simply not there, and the file reads as a PNG with no card at all."""
    if png.cut is None or (png.cut[3] or "").lower() not in CARD_KEYWORDS:
        return None
    _, offset, length, keyword = png.cut
    present = len(png.data) - offset - 8
    if present >= length:  # every byte of it is there; the checksum after it is not
        return (f"truncated PNG: the {keyword} chunk is cut in its checksum, after all "
                f"{length} bytes of it")
    return f"truncated PNG: the {keyword} chunk is cut at byte {present} of {length}"


def _why_unreadable(payloads: Sequence[ChunkPayload]) -> str:
    parts = []
    for p in payloads:
        where = f"{p.chunk.kind} {p.keyword!r} chunk"
        if p.error is not None:
            try:
                head = p.chunk.value_bytes()[:6]
            except Exception:
                head = b""
            if head.startswith(ENCRYPTED_PREFIX):
                parts.append(f"{where} holds a password-protected RisuAI card")
            else:
                parts.append(f"{where}: {p.error}")
        else:
            parts.append(f"{where} holds JSON that is not a character card")
    return "; ".join(parts)


def decode_exif_payload(payload: bytes) -> tuple[Any, str] | None:
    """The JSON in a TavernAI EXIF UserComment: JSON text, or comma-separated byte values."""
    from bunzai.sdk import BunzaiError, loads

    text = payload.rstrip(b"\x00").strip()
    if not text:
        return None
    if text[:1] in (b"{", b"["):
        try:
            return loads(text), "json"
        except BunzaiError:
            return None
    if text[:1].isdigit() and b"," in text[:8]:
        try:
            raw = bytes(int(x) for x in text.split(b","))
        except ValueError:
            return None
        try:
            return loads(raw), "bytes"
        except BunzaiError:
            return None
    return None


def _exif_text(charset: bytes, payload: bytes) -> bytes:
    """UserComment payload as UTF-8 bytes (UNICODE means UTF-16; TavernAI wrote ASCII)."""
    if charset.startswith(b"UNICODE"):
        for enc in ("utf-16-be", "utf-16-le"):
            try:
                return payload.decode(enc).encode("utf-8")
            except UnicodeDecodeError:
                continue
    return payload


def _find_exif(input: AdapterInput) -> Found:
    got = input.exif_user_comment
    if got is None:
        return Found()
    charset, payload = got
    decoded = decode_exif_payload(_exif_text(charset, payload))
    if decoded is None:
        return Found()
    from bunzai.sdk import freeze

    value, encoding = decoded
    version = card_version(value)
    if version is None:
        return Found()
    return Found("exif", freeze(value), version, exif_encoding=encoding)

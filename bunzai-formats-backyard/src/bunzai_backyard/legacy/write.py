"""Writing a canonical character as a legacy Backyard / Faraday card (PNG or JSON).

PNG: the card's main image (a PNG) gets an ``eXIf`` chunk whose EXIF UserComment is
``ASCII\\0\\0\\0`` + the JSON (base64 by default, as Backyard's library and Ginger write it).
Every other chunk of the image is kept byte for byte; the new ``eXIf`` goes where the source had
it, else right before the first ``IDAT`` (EXIF must precede the image data).  A card that was
read from a Backyard PNG and not changed is written back bit for bit, EXIF block included.

New cards get version 4 and Backyard's defaults for a new character (samplers, an empty chat
list); cards read from Backyard get their own values back from passthrough.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Mapping
from functools import cache
from typing import TYPE_CHECKING, Any

from bunzai.sdk import (
    BunzaiError,
    LossReport,
    OutputFile,
    WriteResult,
    dumps,
    dumps_layout,
    sniff_media,
)
from bunzai.sdk.cards import CARD_KEYWORDS
from bunzai.sdk.exif import build_exif_user_comment
from bunzai.sdk.fields import kept, reorder, same
from bunzai.sdk.png import PngFile, is_text_chunk_with_keyword, make_chunk, minimal_png, splice

from .._common.character import character_values, report_character, write_lore
from .._common.util import record, stable_id
from .read import CARD_SHAPES, LAYOUT_KEYS, SHAPE_KEYS, sha, table_of

if TYPE_CHECKING:
    from bunzai.sdk import Asset, Character, Neutrality

NEW_CHARACTER: dict[str, Any] = {
    "Chat": [],
    "grammar": None,
    "model": "",
    "repeatLastN": 256,
    "repeatPenalty": 1.05,
    "temperature": 1.2,
    "topK": 30,
    "minP": 0.1,
    "minPEnabled": True,
    "topP": 0.9,
    "promptTemplate": None,
    "canDeleteCustomDialogue": True,
}
"""Backyard's settings for a new character (as Ginger mirrors them); version 4 fields."""
CHARACTER_ORDER = ("id", "aiDisplayName", "aiName", "aiPersona", "scenario", "basePrompt",
                   "customDialogue", "firstMessage", "createdAt", "updatedAt", "Chat", "grammar",
                   "isNSFW", "model", "repeatLastN", "repeatPenalty", "temperature", "topK",
                   "minP", "minPEnabled", "topP", "promptTemplate", "canDeleteCustomDialogue",
                   "loreItems")


@cache
def neutral_values() -> Neutrality:
    """Core's neutral values and this format's own (Backyard's settings for a new character)."""
    from bunzai.sdk import Neutrality

    from . import BackyardLegacyAdapter
    return Neutrality(BackyardLegacyAdapter.neutral)


def write_legacy(ch: Character, options: Mapping[str, Any], format_id: str) -> WriteResult:
    layout, data = kept(ch, format_id)
    layout, data = layout or {}, data or {}
    source = layout.get("container")
    container = options.get("container") or ("json" if source == "json" else "png")
    chats = options.get("chats", "keep")
    personality = options.get("personality", "append")
    encoding = options.get("encoding") or ""
    shape = str(layout["shape"]) if layout.get("shape") in SHAPE_KEYS else "card"
    if container == "png" and shape not in ("card", "card?"):
        shape = "card"
    own = layout if layout.get("shape") == shape else {}
    loss = LossReport()
    warnings: list[str] = []
    inner = _inner(ch, shape, own, data, loss, personality, format_id)
    if chats == "drop" and inner.get("Chat"):
        inner["Chat"] = []
        loss.dropped(f"app_data.{format_id}.Chat", "chats=drop empties the chat history")
    root_data = {k[len("root."):]: v for k, v in data.items() if k.startswith("root.")}
    if shape in ("card", "card?"):
        rec = record(own, "root")
        root = {"character": inner, **root_data}
        if rec is None or "version" in rec:
            root["version"] = rec.get("version", 4) if rec else 4
        root = reorder(root, rec.get("order") if rec else ("character", "version"))
    else:
        root = inner
        for key in root_data:
            loss.dropped(f"app_data.{format_id}.root.{key}", "a bare Backyard character object "
                         "has no card around it")
    if container == "json":
        # as the file was; a card from elsewhere two-space indented with a final newline
        json_layout = own.get("json") if source == "json" else {"newline": True}
        out = OutputFile(dumps_layout(root, json_layout, 2), ".json")
        for i in range(len(ch.assets)):
            loss.dropped(f"assets[{i}]", "a JSON Backyard card holds no image")
    else:
        out = OutputFile(_png(ch, root, own, loss, warnings, encoding), ".png")
    if source in ("jpeg", "webp") and container == "png":
        warnings.append(f"the card came from a {source}; it is written as a PNG")
    return WriteResult([out], loss, warnings)


def _inner(ch: Character, shape: str, layout: Mapping[str, Any], data: Mapping[str, Any],
           loss: LossReport, personality: str, fmt: str) -> dict[str, Any]:
    keys = SHAPE_KEYS[shape]
    table = table_of(shape)
    legacy = shape in CARD_SHAPES
    own = {k: v for k, v in data.items() if not k.startswith("root.")}
    values = character_values(ch, table, layout, own, personality)
    keep = record(layout, "keep") or {}
    missing = layout.get("missing") if isinstance(layout.get("missing"), list) else []
    tail: dict[str, Any] = {k: keep[k] for k in LAYOUT_KEYS if k in keep}
    if not layout:
        tail["id"] = stable_id(ch.name, ch.description)
        new = NEW_CHARACTER if legacy else {"schemaVersion": 1}
        tail.update((k, v) for k, v in new.items() if k not in own)
    lore = write_lore(ch.lorebook, fmt, loss, neutral_values())
    if ch.lorebook is not None or not (keys.lore in own or keys.lore in missing):
        tail[keys.lore] = lore
    obj = table.write(values.get, layout, own, tail=tail)
    if not layout.get("order"):
        obj = reorder(obj, CHARACTER_ORDER if legacy else None)
    report_character(ch, table, keys, obj, loss, personality)
    if not legacy:
        for field in ("scenario", "system_prompt", "first_mes", "mes_example"):
            if getattr(ch, field):
                loss.dropped(field, "a bare Backyard character object has no chat settings")
    for key, value in own.items():
        if key not in obj or not same(obj[key], value):
            loss.dropped(f"app_data.{fmt}.{key}", "replaced by what the card itself says")
    return obj


# -- PNG ---------------------------------------------------------------------------------------


def _payload(root: Any, exif: Mapping[str, Any]) -> bytes:
    """The UserComment payload (after the charset prefix), encoded as the source was."""
    if exif.get("ascii"):
        text = json.dumps(root, ensure_ascii=True, separators=(",", ":")).encode("ascii")
    else:
        text = dumps(root)  # orjson, with a fallback for integers beyond 64 bits
    if exif.get("encoding", "base64") == "base64":
        text = base64.b64encode(text)
    return text + b"\x00" * int(exif.get("nuls") or 0)


def _tiff(root: Any, exif: Mapping[str, Any]) -> bytes:
    charset = str(exif.get("charset") or "ASCII\x00\x00\x00").encode("latin-1")
    if len(charset) != 8:
        charset = b"ASCII\x00\x00\x00"
    payload = _payload(root, exif)
    head, tail = exif.get("head"), exif.get("tail")
    if isinstance(head, str) and isinstance(tail, str) and exif.get("sha") == sha(
            charset + payload):
        return base64.b64decode(head) + charset + payload + base64.b64decode(tail)
    order = "II" if exif.get("order") == "II" else "MM"
    return build_exif_user_comment(payload, charset, order)


def _main_icon(assets: list[Asset]) -> int | None:
    icons = [i for i, a in enumerate(assets) if a.type == "icon"]
    main = [i for i in icons if assets[i].name == "main"]
    picked = main or icons
    return picked[0] if picked else None


def _png(ch: Character, root: Any, layout: Mapping[str, Any], loss: LossReport,
         warnings: list[str], encoding: str) -> bytes:
    """The card's image with the card in its ``eXIf`` chunk; reports what the image reads back
    as: the main icon, with the card chunks of other apps and its own EXIF removed."""
    exif = record(layout, "exif") or {}
    settings = {**exif, "encoding": encoding or exif.get("encoding", "base64")}
    chunk = make_chunk(b"eXIf", _tiff(root, settings))
    index = _main_icon(ch.assets)
    base: PngFile | None = None
    if index is not None:
        data = ch.assets[index].data
        media = sniff_media(data)[0] if data is not None else None
        if data is None:
            loss.dropped(f"assets[{index}]", "a remote image; the card PNG embeds its image")
        elif media != "image/png":
            loss.dropped(f"assets[{index}]", f"a Backyard card is a PNG; this image is {media} "
                         "(a blank PNG carries the card)")
        else:
            try:
                base = PngFile.parse(data)
            except BunzaiError as exc:
                loss.dropped(f"assets[{index}]", f"the image is not a usable PNG ({exc})")
    for i in range(len(ch.assets)):
        if i != index:
            loss.dropped(f"assets[{i}]", "a Backyard card PNG holds one image")
    if base is None:
        if not ch.assets:
            loss.approximated("assets[0]", "a Backyard card is a PNG: a blank image carries it")
        base = PngFile.parse(minimal_png())
        index = None
    stripped = [c for c in base.chunks if not layout and
                is_text_chunk_with_keyword(c, CARD_KEYWORDS)]
    if base.chunks_of("eXIf"):
        warnings.append("the image's own EXIF block was replaced by the card's")
    drop = {c.offset for c in stripped}
    clean = splice(base, remove=lambda c: c.type == "eXIf" or c.offset in drop)
    if index is not None:
        _report_image(ch.assets[index], index, clean, bool(stripped), loss)
    png = PngFile.parse(clean)
    types = png.chunk_types
    limit = types.index("IDAT") if "IDAT" in types else (
        png.iend_index if png.iend_index is not None else len(types))
    stored = record(layout, "png")
    at = stored.get("index") if stored else None
    at = at if isinstance(at, int) and 1 <= at <= limit else limit
    offset = png.chunks[at].offset if at < len(png.chunks) else png.trailing_offset
    return clean[:offset] + chunk + clean[offset:]


def _report_image(asset: Asset, index: int, clean: bytes, stripped: bool,
                  loss: LossReport) -> None:
    """The card's image reads back as the ``main`` icon, with the bytes written (first, as
    the only asset: its place is layout)."""
    if clean != asset.data:
        loss.approximated(f"assets[{index}].data", "the image's Tavern card chunks were removed "
                          "so the PNG holds one card" if stripped else "the image's own EXIF "
                          "block was replaced by the card's")
    if asset.name != "main":
        loss.approximated(f"assets[{index}].name", "a Backyard card's image is its main icon")

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
from typing import TYPE_CHECKING, Any

from bunzai.containers.exif import build_exif_user_comment
from bunzai.containers.media import sniff_media
from bunzai.containers.png import (
    PngFile,
    is_text_chunk_with_keyword,
    make_chunk,
    minimal_png,
    splice,
)
from bunzai.errors import BunzaiError
from bunzai.jsonio import dumps
from bunzai.loss import LossReport
from bunzai.types import OutputFile, WriteResult

from .._common.character import LEGACY_KEYS, MACRO_CLASH, report_card_only, write_fields
from .._common.macros import card_survives, join_examples, split_examples, to_backyard
from .._common.util import lookup, ordered, put, stable_id
from . import FMT
from .read import SHAPE_KEYS, custom_dialogue, sha

if TYPE_CHECKING:
    from bunzai.model import Asset, Character

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
TAVERN_KEYWORDS = frozenset({"chara", "ccv3"})


def write_legacy(ch: Character, options: Mapping[str, Any]) -> WriteResult:
    raw_pt = ch.passthrough.get(FMT)
    pt: dict[str, Any] = raw_pt if isinstance(raw_pt, dict) else {}
    source = pt.get("container")
    container = options.get("container") or ("json" if source == "json" else "png")
    chats = options.get("chats", "keep")
    personality = options.get("personality", "append")
    encoding = options.get("encoding")
    shape = str(pt["shape"]) if pt.get("shape") in SHAPE_KEYS else "card"
    if container == "png" and shape not in ("card", "card?"):
        shape = "card"
    loss = LossReport()
    warnings: list[str] = []
    inner = _inner(ch, shape, pt, loss, personality)
    if chats == "drop" and "Chat" in inner:
        inner["Chat"] = []
    if shape in ("card", "card?"):
        root_rest: dict[str, Any] = pt["root"] if isinstance(pt.get("root"), dict) else {
            "version": 4}
        root = ordered({**root_rest, "character": inner}, pt.get("root_order") or
                       ("character", "version"))
    else:
        root = inner
    if container == "json":
        indent = pt.get("indent") if source == "json" else 2
        data = dumps(root, indent=indent if indent in (2, 4) else None)
        if indent in (2, 4):
            data += b"\n"
        out = OutputFile(data, ".json")
    else:
        out = OutputFile(_png(ch, root, pt, loss, warnings, encoding), ".png")
    if source in ("jpeg", "webp") and container == "png":
        warnings.append(f"the card came from a {source}; it is written as a PNG")
    _check(ch, out, loss)
    return WriteResult([out], loss, warnings)


def _inner(ch: Character, shape: str, pt: dict[str, Any], loss: LossReport,
           personality: str) -> dict[str, Any]:
    keys = SHAPE_KEYS[shape]
    guards = pt.get("guards") if isinstance(pt.get("guards"), dict) else None
    rest = pt.get("rest") if isinstance(pt.get("rest"), dict) else None
    legacy = keys is LEGACY_KEYS
    if rest is None:
        obj: dict[str, Any] = {"id": stable_id(ch.name, ch.description)}
        if legacy:
            obj.update(NEW_CHARACTER)
        else:
            obj["schemaVersion"] = 1
    else:
        obj = dict(rest)
    obj.update(write_fields(ch, keys, FMT, guards, loss, personality=personality))
    if legacy:
        _card_text(ch, obj, guards, loss)
    else:
        for field in ("scenario", "system_prompt", "first_mes", "mes_example"):
            if getattr(ch, field):
                loss.dropped(field, "a bare Backyard character object has no chat settings")
    if ch.alternate_greetings:
        loss.dropped("alternate_greetings", "a legacy Backyard card has one first message")
    report_card_only(ch, loss, extra=(("creator", "a legacy Backyard card names no author"),),
                     extensions_why="a Backyard card has no place for app extension data")
    return ordered(obj, pt.get("order") or (CHARACTER_ORDER if legacy else None))


def _card_text(ch: Character, obj: dict[str, Any], guards: Mapping[str, Any] | None,
               loss: LossReport) -> None:
    for key, value, field in (("scenario", ch.scenario, "scenario"),
                              ("basePrompt", ch.system_prompt, "system_prompt")):
        hit, raw = lookup(guards, key, value)
        if not hit:
            raw = to_backyard(value)
            if not card_survives(value):
                loss.approximated(field, MACRO_CLASH)
        put(obj, key, raw)
    hit, raw = lookup(guards, "customDialogue", ch.mes_example)
    if not hit:
        raw = custom_dialogue(ch.mes_example)
        blocks = split_examples(ch.mes_example)
        if ch.mes_example and (len(blocks) > 1 or join_examples(blocks) != ch.mes_example
                               or not all(card_survives(b, True) for b in blocks)):
            loss.approximated("mes_example", "Backyard keeps one customDialogue text: example "
                              "blocks are joined and <START> markers dropped")
    put(obj, "customDialogue", raw)
    hit, raw = lookup(guards, "firstMessage", ch.first_mes)
    if not hit:
        raw = to_backyard(ch.first_mes, True)
        if not card_survives(ch.first_mes, True):
            loss.approximated("first_mes", MACRO_CLASH)
    put(obj, "firstMessage", raw)


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


def _png(ch: Character, root: Any, pt: dict[str, Any], loss: LossReport,
         warnings: list[str], encoding: str | None) -> bytes:
    exif: dict[str, Any] = pt["exif"] if isinstance(pt.get("exif"), dict) else {}
    settings = {**exif, "encoding": encoding or exif.get("encoding", "base64")}
    chunk = make_chunk(b"eXIf", _tiff(root, settings))
    index = _main_icon(ch.assets)
    base: PngFile | None = None
    if index is not None:
        asset = ch.assets[index]
        data = asset.data
        if data is None:
            loss.dropped(f"assets[{index}]", "a remote image; the card PNG embeds its image")
        elif sniff_media(data)[0] != "image/png":
            loss.dropped(f"assets[{index}]", "a Backyard card is a PNG; this image is "
                         f"{sniff_media(data)[0]} (a blank PNG carries the card)")
        else:
            try:
                base = PngFile.parse(data)
            except BunzaiError as exc:
                loss.dropped(f"assets[{index}]", f"the image is not a usable PNG ({exc})")
    for i in range(len(ch.assets)):
        if i != index:
            loss.dropped(f"assets[{i}]", "a Backyard card PNG holds one image")
    if base is None:
        base = PngFile.parse(minimal_png())
    own = bool(pt)
    stripped = [c for c in base.chunks if not own and
                is_text_chunk_with_keyword(c, TAVERN_KEYWORDS)]
    if base.chunks_of("eXIf"):
        warnings.append("the image's own EXIF block was replaced by the card's")
    if stripped and index is not None:
        loss.approximated(f"assets[{index}]", "the image's Tavern card chunks were removed so "
                          "the PNG holds one card")
    drop = {c.offset for c in stripped}
    clean = splice(base, remove=lambda c: c.type == "eXIf" or c.offset in drop)
    png = PngFile.parse(clean)
    types = png.chunk_types
    limit = types.index("IDAT") if "IDAT" in types else (
        png.iend_index if png.iend_index is not None else len(types))
    stored = pt.get("png", {}).get("index") if isinstance(pt.get("png"), dict) else None
    at = stored if isinstance(stored, int) and 1 <= stored <= limit else limit
    offset = png.chunks[at].offset if at < len(png.chunks) else png.trailing_offset
    return clean[:offset] + chunk + clean[offset:]


def _check(ch: Character, out: OutputFile, loss: LossReport) -> None:
    """Read the file back and report every canonical difference not reported yet."""
    from bunzai.compare import diff_paths
    from bunzai.input import AdapterInput

    from .read import read_legacy

    back = read_legacy(AdapterInput(out.data, f"check{out.suffix}"), {}).entities[0]
    for path in diff_paths(ch, back):
        if not loss.covers(path):
            loss.approximated(path, "a Backyard card cannot hold this value exactly")

"""Reading legacy Faraday / Backyard characters (EXIF PNG or JSON) into the canonical model.

Mapping (shared with BYAF through ``_common``): ``aiName`` -> name, ``aiDisplayName`` ->
``extensions.display_name`` (when it differs), ``aiPersona`` -> description, ``scenario``,
``basePrompt`` -> system_prompt, ``customDialogue`` -> mes_example (one ``<START>`` block),
``firstMessage`` -> first_mes, ``loreItems`` -> lorebook, ``isNSFW`` -> tag ``nsfw``.  Macros
are translated (see ``_common/macros.py``).  What a card cannot hold is user data in
``app_data["backyard"]``: the model and samplers, prompt template, grammar, the ``Chat`` history
(private data: another format's writer never writes it, it reports it), unknown keys.  Ids, key
order, raw spellings and how the JSON sat in the image are layout (``passthrough``).

A PNG's image becomes the ``main`` icon asset: the file minus its ``eXIf`` chunk, every other
chunk byte for byte, so writing it back reproduces the original file.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from bunzai.sdk import BunzaiError, Issue, MalformedInput, ReadResult, sniff_layout, thaw
from bunzai.sdk.fields import Table, type_name

from .._common.character import read_character, read_lore
from .._common.tables import API_KEYS, BYAF_KEYS, LEGACY_CARD, LEGACY_KEYS, Keys, character_table
from .._common.util import is_z_time
from . import IMAGE_CONTAINERS, ExifCard, classify, exif_card

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput, Asset, Entity

SHAPE_KEYS: dict[str, Keys] = {
    "card": LEGACY_KEYS, "card?": LEGACY_KEYS, "legacy-inner": LEGACY_KEYS,
    "byaf-character": BYAF_KEYS, "api": API_KEYS,
}
CARD_SHAPES = ("card", "card?", "legacy-inner")
"""Shapes whose character object also holds a chat's text (scenario, greeting, …)."""
LAYOUT_KEYS = ("id", "schemaVersion", "$schema")
"""Keys of a character object that identify it rather than say something (layout)."""


def table_of(shape: str) -> Table:
    return LEGACY_CARD if shape in CARD_SHAPES else character_table(SHAPE_KEYS[shape])


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def _load(input: AdapterInput) -> tuple[Any, ExifCard | None]:
    """The JSON value and, for images, the decoded UserComment."""
    if input.container == "json":
        return input.json_mutable(), None
    if input.container not in IMAGE_CONTAINERS:
        raise MalformedInput(f"not a Backyard character: a {input.container} file carries no "
                             "EXIF UserComment")
    card = exif_card(input)
    if card is None:
        raise MalformedInput(_exif_problem(input))
    if card.error is not None:
        raise MalformedInput(f"EXIF UserComment is not a Backyard character: {card.error}")
    return thaw(card.value), card


def _exif_problem(input: AdapterInput) -> str:
    """Why there is no UserComment: say what is broken when the EXIF block itself is."""
    from bunzai.sdk.exif import find_exif, read_user_comment
    try:
        tiff = find_exif(input.data, input.container)
        if tiff is None:
            return f"this {input.container} has no EXIF block, so no Backyard character"
        read_user_comment(tiff)
    except BunzaiError as exc:
        return f"cannot read the EXIF block: {exc.message}"
    return f"this {input.container}'s EXIF has no UserComment, so no Backyard character"


def read_legacy(input: AdapterInput, options: Mapping[str, Any], format_id: str
                ) -> ReadResult:
    from bunzai.sdk import Character

    value, card = _load(input)
    found = classify(value)
    if found is None:
        raise MalformedInput("not a Backyard character: expected {character: {aiName, "
                             "aiPersona, …}, version} or a Backyard character object")
    shape = found[0]
    warnings: list[Issue] = []
    data: dict[str, Any] = {}
    root: dict[str, Any] = {}
    if shape in ("card", "card?"):
        inner = value["character"]
        root = {"order": list(value)}
        if "version" in value:
            root["version"] = value["version"]
        data.update((f"root.{k}", v) for k, v in value.items()
                    if k not in ("character", "version"))
        w = "$.character"
        if shape == "card?":
            warnings.append(Issue("$.version", f"version {value.get('version')!r} is not one "
                                  "of 1-4; read as version 4"))
    else:
        inner = value
        w = "$"
    keys = SHAPE_KEYS[shape]
    fields, layout, own = read_character(inner, table_of(shape), w, warnings,
                                         (*LAYOUT_KEYS, keys.lore))
    data.update(own)
    layout.update(shape=shape, container=_container(input),
                  keep={k: inner[k] for k in LAYOUT_KEYS if k in inner},
                  missing=[k for k in (*LAYOUT_KEYS, keys.lore) if k not in inner])
    if root:
        layout["root"] = root
    lore = inner.get(keys.lore)
    book = None
    if isinstance(lore, list):
        book = read_lore(lore, format_id, f"{w}.{keys.lore}", warnings)
    elif keys.lore in inner:
        warnings.append(Issue(f"{w}.{keys.lore}", f"lore items are {type_name(lore)}, not an "
                              "array; kept as they were"))
        data[keys.lore] = lore
    chats = inner.get("Chat")
    if isinstance(chats, list) and chats:
        items = sum(len(got) for c in chats if isinstance(c, Mapping)
                    and isinstance(got := c.get("ChatItems"), list))
        warnings.append(Issue(f"{w}.Chat", f"{len(chats)} chat(s) with {items} message(s): "
                              "private data, kept only for Backyard"))
    if shape in ("byaf-character", "api"):
        images = inner.get("images", inner.get("Images"))
        if isinstance(images, list) and images:
            warnings.append(Issue(f"{w}.images", "image paths point outside this file; the "
                                  "images are not read"))

    assets: list[Asset] = []
    if card is not None:
        layout["exif"] = _exif_layout(input, card)
        image = _image(input, layout, warnings)
        if image is not None:
            assets.append(image)
    elif input.container == "json":
        layout["json"] = sniff_layout(input.data, 2)
    ch: Character = Character(**fields, lorebook=book, assets=assets,
                              app_data={format_id: data} if data else {},
                              passthrough={format_id: layout})
    return ReadResult([ch], warnings)


def _container(input: AdapterInput) -> str:
    return "png" if input.container == "apng" else input.container


def _exif_layout(input: AdapterInput, card: ExifCard) -> dict[str, Any]:
    """How the JSON sat in the EXIF block, so an unchanged card is written back bit for bit."""
    import base64

    from bunzai.sdk.exif import find_exif

    payload = card.payload
    body = payload.rstrip(b"\x00")
    out: dict[str, Any] = {
        "charset": card.charset.decode("latin-1"),
        "encoding": card.encoding,
        "nuls": len(payload) - len(body),
        "ascii": card.text.isascii() and b"\\u" in card.text,
        "sha": sha(card.charset + payload),
    }
    tiff = find_exif(input.data, input.container) or b""
    out["order"] = "II" if tiff[:2] == b"II" else "MM"
    at = tiff.rfind(card.charset + payload)
    if at >= 0:
        out["head"] = base64.b64encode(tiff[:at]).decode("ascii")
        out["tail"] = base64.b64encode(tiff[at + 8 + len(payload):]).decode("ascii")
    return out


def _image(input: AdapterInput, layout: dict[str, Any], warnings: list[Issue]
           ) -> Asset | None:
    """The card's own picture: the PNG minus the ``eXIf`` chunk that held the card."""
    from bunzai.sdk import Asset
    from bunzai.sdk.png import splice

    png = input.png
    if png is None:
        warnings.append(Issue("$", f"the {input.container} image itself is not kept (bunzai "
                              "removes EXIF only from PNG); writing gives a PNG"))
        return None
    exif = png.chunks_of("eXIf")[0]
    index = next(i for i, c in enumerate(png.chunks) if c.offset == exif.offset)
    layout["png"] = {"index": index}
    data = splice(png, remove=lambda c: c.offset == exif.offset)
    return Asset(type="icon", name="main", ext="png", media_type="image/png", data=data)


def validate_legacy(input: AdapterInput, entities: Sequence[Entity], format_id: str
                    ) -> list[Issue]:
    """Backyard's expectations of a legacy card, with JSON paths into the card JSON."""
    try:
        value, _ = _load(input)
    except BunzaiError as exc:
        return [Issue("$", exc.message, "error")]
    found = classify(value)
    if found is None:
        return [Issue("$", "not a Backyard character", "error")]
    issues: list[Issue] = []
    shape = found[0]
    if shape in ("card", "card?"):
        inner, w = value["character"], "$.character"
        if shape == "card?":
            issues.append(Issue("$.version", "version must be 1, 2, 3 or 4", "error"))
        required: tuple[str, ...] = ("id", "aiName", "aiDisplayName")
    else:
        inner, w = value, "$"
        required = ("id",)
    for key in required:
        if not isinstance(inner.get(key), str):
            issues.append(Issue(f"{w}.{key}", f"{key} must be a string "
                                f"(is {type_name(inner.get(key, None))})", "error"))
    for key in ("createdAt", "updatedAt"):
        if key in inner and not is_z_time(inner[key]):
            issues.append(Issue(f"{w}.{key}", f"{inner[key]!r} is not a UTC timestamp ending "
                                "in Z"))
    lore = inner.get("loreItems", inner.get("LoreItems"))
    if isinstance(lore, Sequence) and not isinstance(lore, str):
        for i, item in enumerate(lore):
            if not isinstance(item, Mapping) or not isinstance(item.get("key"), str) \
                    or not isinstance(item.get("value"), str):
                issues.append(Issue(f"{w}.loreItems[{i}]", "a lore item needs string key and "
                                    "value", "error"))
    return issues

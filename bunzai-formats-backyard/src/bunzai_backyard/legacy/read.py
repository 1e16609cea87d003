"""Reading legacy Faraday / Backyard characters (EXIF PNG or JSON) into the canonical model.

Mapping (shared with BYAF through ``_common.character``): ``aiName`` -> name, ``aiDisplayName``
-> ``extensions.display_name`` (when it differs), ``aiPersona`` -> description, ``scenario``,
``basePrompt`` -> system_prompt, ``customDialogue`` -> mes_example (one ``<START>`` block),
``firstMessage`` -> first_mes, ``loreItems`` -> lorebook, ``isNSFW`` -> tag ``nsfw``.  Macros
are translated (see ``_common.macros``).  Everything else (ids, model and samplers, prompt
template, grammar, lore ordering ids, and the ``Chat`` history) stays in
``passthrough["backyard"]`` so a Backyard round trip gives the same JSON; the chat history is
private data, so no other format's writer ever sees it.

A PNG's image becomes the ``main`` icon asset: the file minus its ``eXIf`` chunk, every other
chunk byte for byte, so writing it back reproduces the original file.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from bunzai.errors import BunzaiError, MalformedInput
from bunzai.frozen import thaw
from bunzai.types import Issue, ReadResult

from .._common.character import API_KEYS, BYAF_KEYS, LEGACY_KEYS, Keys, read_fields
from .._common.macros import join_examples, split_examples, to_backyard, to_card
from .._common.util import ABSENT, guard, is_z_time, text_field, type_name
from . import FMT, IMAGE_CONTAINERS, ExifCard, classify, exif_card

if TYPE_CHECKING:
    from bunzai.input import AdapterInput
    from bunzai.model import Asset, Character

SHAPE_KEYS: dict[str, Keys] = {
    "card": LEGACY_KEYS, "card?": LEGACY_KEYS, "legacy-inner": LEGACY_KEYS,
    "byaf-character": BYAF_KEYS, "api": API_KEYS,
}
CARD_TEXT = ("scenario", "basePrompt", "customDialogue", "firstMessage")
"""Legacy card fields beyond the shared ones; BYAF keeps these per scenario."""


def dialogue_text(custom: str) -> str:
    """``customDialogue`` as a card's ``mes_example`` (one block)."""
    return join_examples([to_card(custom, True)]) if custom else ""


def custom_dialogue(mes: str) -> str:
    """A card's ``mes_example`` as one ``customDialogue`` string (blocks joined by newlines)."""
    return "\n".join(to_backyard(b, True) for b in split_examples(mes))


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
    from bunzai.containers.exif import find_exif, read_user_comment
    try:
        tiff = find_exif(input.data, input.container)
        if tiff is None:
            return f"this {input.container} has no EXIF block, so no Backyard character"
        read_user_comment(tiff)
    except BunzaiError as exc:
        return f"cannot read the EXIF block: {exc.message}"
    return f"this {input.container}'s EXIF has no UserComment, so no Backyard character"


def read_legacy(input: AdapterInput, options: Mapping[str, Any]) -> ReadResult:
    from bunzai.model import Character

    value, card = _load(input)
    found = classify(value)
    if found is None:
        raise MalformedInput("not a Backyard character: expected {character: {aiName, "
                             "aiPersona, …}, version} or a Backyard character object")
    shape = found[0]
    warnings: list[Issue] = []
    pt: dict[str, Any] = {"shape": shape, "container": _container(input)}
    if shape in ("card", "card?"):
        root = value
        inner = root["character"]
        pt["root"] = {k: v for k, v in root.items() if k != "character"}
        pt["root_order"] = list(root)
        w = "$.character"
        if shape == "card?":
            warnings.append(Issue("$.version", f"version {root.get('version')!r} is not one of "
                                  "1-4; read as version 4"))
    else:
        inner = value
        w = "$"
    keys = SHAPE_KEYS[shape]
    guards: dict[str, Any] = {}
    fields = read_fields(inner, keys, FMT, w, warnings, guards)
    mapped = set(keys.mapped)
    if shape in ("card", "card?", "legacy-inner"):
        fields.update(_card_text(inner, w, warnings, guards))
        mapped.update(CARD_TEXT)
    pt["rest"] = {k: v for k, v in inner.items() if k not in mapped}
    pt["order"] = list(inner)
    if guards:
        pt["guards"] = guards
    chats = inner.get("Chat")
    if isinstance(chats, list) and chats:
        items = sum(len(got) for c in chats if isinstance(c, Mapping)
                    and isinstance(got := c.get("ChatItems"), list))
        warnings.append(Issue(f"{w}.Chat", f"{len(chats)} chat(s) with {items} message(s): "
                              "private data, kept only for Backyard round trips"))
    if shape in ("byaf-character", "api"):
        images = inner.get("images", inner.get("Images"))
        if isinstance(images, list) and images:
            warnings.append(Issue(f"{w}.images", "image paths point outside this file; the "
                                  "images are not read"))

    assets: list[Asset] = []
    if card is not None:
        pt["exif"] = _exif_passthrough(input, card)
        image = _image(input, pt, warnings)
        if image is not None:
            assets.append(image)
    elif input.container == "json":
        pt["indent"] = _indent(input.data)
    ch: Character = Character(**fields, assets=assets, passthrough={FMT: pt})
    return ReadResult([ch], warnings)


def _container(input: AdapterInput) -> str:
    return "png" if input.container == "apng" else input.container


def _card_text(inner: Mapping[str, Any], w: str, warnings: list[Issue],
               guards: dict[str, Any]) -> dict[str, str]:
    out: dict[str, str] = {}
    for key, field in (("scenario", "scenario"), ("basePrompt", "system_prompt")):
        value = to_card(text_field(inner, key, w, warnings))
        guard(guards, key, inner.get(key, ABSENT), value, to_backyard(value))
        out[field] = value
    custom = text_field(inner, "customDialogue", w, warnings)
    out["mes_example"] = dialogue_text(custom)
    guard(guards, "customDialogue", inner.get("customDialogue", ABSENT), out["mes_example"],
          custom_dialogue(out["mes_example"]))
    greeting = to_card(text_field(inner, "firstMessage", w, warnings), True)
    guard(guards, "firstMessage", inner.get("firstMessage", ABSENT), greeting,
          to_backyard(greeting, True))
    out["first_mes"] = greeting
    return out


def _exif_passthrough(input: AdapterInput, card: ExifCard) -> dict[str, Any]:
    """How the JSON sat in the EXIF block, so an unchanged card is written back bit for bit."""
    import base64

    from bunzai.containers.exif import find_exif

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


def _image(input: AdapterInput, pt: dict[str, Any], warnings: list[Issue]) -> Asset | None:
    """The card's own picture: the PNG minus the ``eXIf`` chunk that held the card."""
    from bunzai.containers.png import splice
    from bunzai.model import Asset

    png = input.png
    if png is None:
        warnings.append(Issue("$", f"the {input.container} image itself is not kept (bunzai "
                              "removes EXIF only from PNG); writing gives a PNG"))
        return None
    exif = png.chunks_of("eXIf")[0]
    index = next(i for i, c in enumerate(png.chunks) if c.offset == exif.offset)
    pt["png"] = {"index": index}
    data = splice(png, remove=lambda c: c.offset == exif.offset)
    return Asset(type="icon", name="main", ext="png", media_type="image/png", data=data)


def _indent(data: bytes) -> int | None:
    """The indentation of a JSON file, so a rewrite diffs cleanly against it."""
    head = data[:4096]
    nl = head.find(b"\n")
    if nl < 0:
        return None
    line = head[nl + 1:]
    spaces = len(line) - len(line.lstrip(b" "))
    return spaces if spaces in (2, 4) else 2


def validate_legacy(input: AdapterInput) -> list[Issue]:
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

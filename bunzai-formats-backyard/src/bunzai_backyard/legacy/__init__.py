"""``backyard``: legacy Faraday / Backyard character exports (pre-BYAF), read and written.

The card is ``{character: {aiName, aiDisplayName, aiPersona, …}, version: 1..4}``, stored as
the EXIF UserComment of a PNG's ``eXIf`` chunk (``ASCII\\0\\0\\0`` + raw or base64 JSON) or as a
plain JSON file.  Bare Backyard character objects (a BYAF ``character.json``, hub/app API rows,
an unwrapped legacy ``character``) are read too, on weaker evidence.

Import-light: detection decodes the UserComment once per input (shared through ``input.memo``)
and never builds models.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from bunzai.sdk import BunzaiError, Detection, FormatAdapter, Option

from .._common.declared import CARRIES, REASONS

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput, Entity

IMAGE_CONTAINERS = ("png", "apng", "jpeg", "webp")
_LEGACY_TEXT = ("aiName", "aiDisplayName", "aiPersona", "basePrompt", "customDialogue",
                "scenario")


@dataclass(frozen=True)
class ExifCard:
    """The decoded UserComment: frozen JSON value (or an error) and how it was stored."""

    value: Any
    error: str | None
    charset: bytes
    encoding: str
    """``raw`` (JSON text) or ``base64``."""
    payload: bytes
    """The UserComment payload exactly as stored (after the 8-byte charset prefix)."""
    text: bytes
    """The JSON text itself (decoded from base64 when needed)."""


def exif_card(input: AdapterInput) -> ExifCard | None:
    """The input's EXIF UserComment decoded as Backyard JSON, computed once per input."""
    def build() -> ExifCard | None:
        if input.container not in IMAGE_CONTAINERS:
            return None
        found = input.exif_user_comment
        if found is None:
            return None
        charset, payload = found
        from bunzai.sdk import freeze, loads
        from bunzai.sdk.base64 import decode_base64, looks_like_base64

        body = payload.rstrip(b"\x00").strip()
        encoding = "raw"
        text = body
        try:
            if body[:1] != b"{":
                if not looks_like_base64(body):
                    return ExifCard(None, "the UserComment holds neither JSON nor base64",
                                    charset, "unknown", payload, b"")
                encoding = "base64"
                text = decode_base64(body, limits=input.limits)
            return ExifCard(freeze(loads(text, limits=input.limits)), None, charset, encoding,
                            payload, text)
        except BunzaiError as exc:
            why = exc.message if encoding == "raw" else f"base64, but not JSON ({exc.message})"
            return ExifCard(None, why, charset, encoding, payload, b"")
    return input.memo("backyard:exif", build)


def _str_or_none(value: Any) -> bool:
    return value is None or isinstance(value, str)


def _lore_like(value: Any) -> bool:
    return (isinstance(value, Sequence) and not isinstance(value, str)
            and all(isinstance(i, Mapping) and "key" in i and "value" in i for i in value))


def classify(value: Any) -> tuple[str, str] | None:
    """(shape, evidence) of a Backyard character JSON value, or None.

    Shapes: ``card`` ({character, version 1..4}), ``card?`` (that shape, unknown version),
    ``byaf-character``, ``api``, ``legacy-inner`` (bare objects, spec §6.3).
    """
    if not isinstance(value, Mapping):
        return None
    inner = value.get("character")
    if isinstance(inner, Mapping):
        hits = [k for k in _LEGACY_TEXT if isinstance(inner.get(k), str)]
        if isinstance(inner.get("loreItems"), Sequence) and not isinstance(
                inner.get("loreItems"), str):
            hits.append("loreItems")
        if "firstMessage" in inner and _str_or_none(inner.get("firstMessage")):
            hits.append("firstMessage")
        version = value.get("version")
        ok_version = isinstance(version, int) and not isinstance(version, bool) \
            and 1 <= version <= 4
        if len(hits) >= 2 and ok_version:
            return "card", f"Faraday/Backyard character export, version {version}"
        if len(hits) >= 3:
            return "card?", f"Faraday/Backyard character export, version {version!r}"
        return None
    legacy = isinstance(value.get("aiPersona"), str)
    persona = legacy or isinstance(value.get("persona"), str)
    if not persona:
        return None
    signals = ["persona"]
    if isinstance(value.get("displayName"), str) or isinstance(value.get("aiDisplayName"), str):
        signals.append("displayName")
    if isinstance(value.get("isNSFW"), bool):
        signals.append("isNSFW")
    if _lore_like(value.get("loreItems")) or _lore_like(value.get("LoreItems")):
        signals.append("lore items")
    if value.get("schemaVersion") == 1 and not isinstance(value.get("schemaVersion"), bool):
        signals.append("schemaVersion 1")
    if len(signals) < 3:
        return None
    if legacy:
        shape = "legacy-inner"
    elif "LoreItems" in value or "Images" in value:
        shape = "api"
    else:
        shape = "byaf-character"
    return shape, f"bare Backyard character object ({', '.join(signals)})"


def _mirostat_off(value: Any, owner: Any) -> bool:
    return not (isinstance(owner, Mapping) and owner.get("mirostatEnabled") is True)


def has_tavern_card(input: AdapterInput) -> bool:
    png = input.png
    return png is not None and bool(png.find_text("chara", "ccv3"))


class BackyardLegacyAdapter(FormatAdapter):
    """Faraday / Backyard character cards: JSON in a PNG's EXIF UserComment, or as a file."""

    format_id = "backyard"
    kind = "character"
    label = "Backyard / Faraday character (legacy PNG or JSON)"
    suffix = ".png"
    aliases = ("faraday",)
    options = (
        Option("container", choices=("png", "json"), default="as read, else png",
               help="the output file"),
        Option("encoding", choices=("base64", "raw"), default="as read, else base64",
               help="how the JSON sits in the UserComment (base64 as Backyard's library and "
                    "Ginger write it)"),
        Option("chats", choices=("keep", "drop"), default="keep",
               help="drop empties every chat log (private data)"),
        Option("personality", choices=("append", "drop"), default="append",
               help="where a card's personality goes, since Backyard has no such field"),
    )
    # an image scores only on its EXIF (a PNG's eXIf chunk), JSON only with a character
    # object or a persona string at the top
    signature = {"png": ("exif",), "apng": ("exif",), "jpeg": (), "webp": (),
                 "json": ("character", "aiPersona", "persona")}
    detection = (
        ("PNG/JPEG/WebP whose EXIF UserComment holds {character, version 1..4}", 0.9),
        ("JSON file {character: {aiName, aiPersona, …}, version 1..4}", 0.9),
        ("the same shape with an unknown version", 0.6),
        ("a PNG that also has a Tavern chara/ccv3 chunk (Ginger's hybrid): sillytavern wins",
         0.6),
        ("bare Backyard character object: string persona plus 2 more signals (spec §6.3)", 0.55),
        ("anything else (a lone persona key, Agnai/Risu personas, BYAF archives)", 0.0),
    )
    losses = (
        ("mes_example", "one customDialogue string; `<START>` blocks are joined"),
        ("personality", "appended to aiPersona (option personality=drop drops it)"),
        ("tags", "only the NSFW flag (tag 'nsfw')"),
        ("nickname", "becomes aiName; the card name becomes aiDisplayName"),
        ("lorebook.entries[]", "disabled and folder entries are dropped"),
        ("assets", "the main image only, and only a PNG (else a blank PNG)"),
    )
    carries = (*CARRIES, "scenario", "first_mes", "mes_example", "system_prompt",
               "assets[*].type", "assets[*].name", "assets[*].data", "assets[*].uri")
    reasons = (*REASONS,
               ("alternate_greetings", "a legacy Backyard card has one first message"),
               ("creator", "a legacy Backyard card names no author"))
    neutral = (
        *((f"app_data.backyard.{key}", (value,))
          for key, value in (("temperature", 1.2), ("topK", 30), ("topP", 0.9), ("minP", 0.1),
                             ("minPEnabled", True), ("repeatPenalty", 1.05),
                             ("repeatLastN", 256), ("canDeleteCustomDialogue", True),
                             ("mirostatEnabled", False))),
        *((f"app_data.backyard.{key}", _mirostat_off)
          for key in ("mirostatLearningRate", "mirostatEntropy")),
    )
    """Backyard's settings for a new character (the writer's ``NEW_CHARACTER``); mirostat's
    parameters ask nothing while it is off."""
    reader = "read:read_legacy"
    writer = "write:write_legacy"
    validator = "read:validate_legacy"

    def detect(self, input: AdapterInput) -> Detection:
        container = input.container
        if container in IMAGE_CONTAINERS:
            card = exif_card(input)
            if card is None or card.value is None:
                return Detection(0.0)
            found = classify(card.value)
            if found is None or found[0] not in ("card", "card?"):
                return Detection(0.0)
            if has_tavern_card(input):
                return Detection(0.6, f"{found[1]} in EXIF, beside a Tavern card chunk "
                                      "(hybrid PNG: the Tavern card takes precedence)")
            score = 0.9 if found[0] == "card" else 0.6
            return Detection(score, f"{found[1]} in the EXIF UserComment")
        if container != "json":
            return Detection(0.0)
        found = classify(input.json)
        if found is None:
            return Detection(0.0)
        shape, why = found
        score = {"card": 0.9, "card?": 0.6}.get(shape, 0.55)
        return Detection(score, why)

    def chats(self, entity: Entity) -> list[Entity] | None:
        if entity.kind != "character":
            return None
        from .chats import card_chats
        return card_chats(entity, self.format_id)  # type: ignore[arg-type,return-value]

    def embed_chat(self, entity: Entity, chat: Entity) -> Entity:
        raise NotImplementedError("bunzai cannot take a chat into a Faraday card (it reads "
                                  "their chats only); embed it into a Backyard archive (.byaf)")

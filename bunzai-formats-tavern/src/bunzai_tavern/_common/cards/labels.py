"""Origin-labeler rules for Tavern character cards (specs: tavern-formats §13).

Each rule names the app, a weight, whether the evidence shows who *made* the card (``origin``:
chub, risuai, pygmalion_id, …) or who *saved it last* (``last_writer``: SillyTavern's trio and
root extras), and returns human-readable evidence.  Rules look at the card JSON the input holds
(PNG chunk, JSON, EXIF); for other containers they fall back to the entities read.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from typing import Any

from bunzai.sdk import LabelRule
from bunzai.sdk.cards import asset_key, is_really_v3, realm_evidence

from . import find_card

__all__ = ["rules"]

Test = Callable[[Any, Sequence[Any]], list[str]]

_HUMAN_DATE = re.compile(r"^\d{4}-\d{1,2}-\d{1,2} @\d{1,2}h \d{1,2}m \d{1,2}s \d{1,3}ms$")
_MS_STAMP = re.compile(r"^\d{12,14}$")
_WYVERN_BOOK_KEYS = ("lexicon", "gallery", "visibility", "status", "approval_status",
                     "approved_at", "approval_notes")
_WYVERN_ENTRY_KEYS = ("entry_id", "key_logic", "scan_persona")


def _card(input: Any) -> Any:
    try:
        return find_card(input).card
    except Exception:
        return None


def _body(input: Any) -> Mapping[str, Any] | None:
    try:
        return find_card(input).body
    except Exception:
        return None


def _ext(input: Any, entities: Sequence[Any]) -> Mapping[str, Any]:
    """The card's ``extensions`` (from the file, else from the canonical character)."""
    body = _body(input)
    if body is not None:
        ext = body.get("extensions")
        return ext if isinstance(ext, Mapping) else {}
    for e in entities:
        ext = getattr(e, "extensions", None)
        if getattr(e, "kind", None) == "character" and isinstance(ext, Mapping):
            return ext
    return {}


def _book(input: Any, entities: Sequence[Any]) -> Mapping[str, Any] | None:
    book = _dig(_body(input), "character_book")
    return book if isinstance(book, Mapping) else None


def _dig(obj: Any, *keys: str) -> Any:
    """``obj[k1][k2]…`` through objects, None where a key or an object is missing: the cards
    rules look at are any JSON at all."""
    for key in keys:
        if not isinstance(obj, Mapping):
            return None
        obj = obj.get(key)
    return obj


def _items(value: Any) -> Sequence[Any]:
    """A JSON array's items; none for anything else."""
    return value if isinstance(value, Sequence) and not isinstance(value, str) else ()


def _keys(block: Any, limit: int = 5) -> str:
    if not isinstance(block, Mapping):
        return ""
    keys = list(block)[:limit]
    return f" ({', '.join(map(str, keys))}{', …' if len(block) > limit else ''})"


def _ext_mark(ext: Mapping[str, Any], name: str, what: str = "") -> list[str]:
    """The evidence of an app's own block in the card's extensions: its name, its first keys
    and ``what`` it shows; none when the card has no such block."""
    return [f"data.extensions.{name}{_keys(ext[name])}{what}"] if name in ext else []


def _ext_block(name: str, what: str) -> Test:
    def test(input: Any, entities: Sequence[Any]) -> list[str]:
        return _ext_mark(_ext(input, entities), name, f": {what}")
    return test


def _st_trio(input: Any, entities: Sequence[Any]) -> list[str]:
    ext = _ext(input, entities)
    if all(k in ext for k in ("talkativeness", "fav", "world")):
        return ["data.extensions talkativeness + fav + world: SillyTavern writes all three on "
                "every save"]
    return []


def _st_root_extras(input: Any, entities: Sequence[Any]) -> list[str]:
    card = _card(input)
    if not isinstance(card, Mapping):
        return []
    out = []
    if "creatorcomment" in card:
        out.append("root creatorcomment (SillyTavern's name for creator notes)")
    if card.get("avatar") == "none":
        out.append('root avatar: "none"')
    date = card.get("create_date")
    if isinstance(date, str) and _HUMAN_DATE.match(date):
        out.append(f"root create_date {date!r} in SillyTavern's humanized format")
    return out


def _st_chunks(input: Any, entities: Sequence[Any]) -> list[str]:
    png = getattr(input, "png", None)
    if png is None:
        return []
    kws = [tc.keyword.lower() for tc in png.find_text("chara", "ccv3")]
    if "chara" not in kws or "ccv3" not in kws:
        return []
    ccv3 = next((p.value for p in input.png_json("ccv3") if p.error is None), None)
    if ccv3 is not None and not is_really_v3(ccv3):
        return ["chara + ccv3 chunks where ccv3 is the same card relabelled V3 "
                "(SillyTavern's PNG writer)"]
    return []


def _st_regex(input: Any, entities: Sequence[Any]) -> list[str]:
    scripts = _items(_ext(input, entities).get("regex_scripts"))
    if scripts:
        return [f"data.extensions.regex_scripts ({len(scripts)} SillyTavern regex script(s))"]
    return []


def _st_minor(input: Any, entities: Sequence[Any]) -> list[str]:
    ext = _ext(input, entities)
    out = []
    if isinstance(_dig(ext, "depth_prompt", "role"), str):
        out.append("data.extensions.depth_prompt with a role string (SillyTavern's "
                   "character's note)")
    if "sd_character_prompt" in ext:
        out.append("data.extensions.sd_character_prompt (SillyTavern image generation)")
    if "group_greetings" in ext or "group_greetings_mode" in ext:
        out.append("data.extensions.group_greetings (a SillyTavern extension)")
    return out


def _chub(input: Any, entities: Sequence[Any]) -> list[str]:
    ext = _ext(input, entities)
    path = _dig(ext, "chub", "full_path")
    out = _ext_mark(ext, "chub", f": {path}" if path else "")
    avatar = _dig(_body(input), "avatar")
    if isinstance(avatar, str) and "charhub.io" in avatar:
        out.append(f"data.avatar on {avatar.split('/')[2] if '//' in avatar else avatar}")
    bext = _dig(_book(input, entities), "extensions")
    if isinstance(bext, Mapping) and "chub" in bext:
        out.append("character_book.extensions.chub")
    return out


def _risu(input: Any, entities: Sequence[Any]) -> list[str]:
    ext = _ext(input, entities)
    out = _ext_mark(ext, "risuai") + realm_evidence(ext)
    entries = _items(_dig(_book(input, entities), "entries"))
    keys = sorted({k for e in entries if isinstance(e, Mapping)
                   for k in (e.get("extensions") or {}) if str(k).startswith("risu_")})
    if keys:
        out.append(f"book entry extensions {', '.join(keys)}")
    assets = [a for a in _items(_dig(_body(input), "assets")) if isinstance(a, Mapping)]
    if "x-risu-asset" in {a.get("type") for a in assets}:
        out.append("assets of type x-risu-asset")
    uris = [a.get("uri") for a in assets]
    if any(isinstance(u, str) and u.startswith("__asset:") for u in uris):
        out.append("asset uris __asset:N (RisuAI PNG asset chunks)")
    png = getattr(input, "png", None)
    if png is not None:
        n = sum(1 for tc in png.text_chunks() if asset_key(tc.keyword) is not None)
        if n:
            out.append(f"{n} chara-ext-asset_ chunk(s)")
        if png.find_text("risuai"):
            out.append("a risuai text chunk (RisuAI's 2023 msgpack card)")
    return out


def _pygmalion(input: Any, entities: Sequence[Any]) -> list[str]:
    out = []
    ext = _ext(input, entities)
    if "pygmalion_id" in ext:
        out.append(f"data.extensions.pygmalion_id {ext['pygmalion_id']!r}")
    data = getattr(input, "json", None)
    if isinstance(data, Mapping) and isinstance(data.get("char_name"), str) and not _aichar(
            input, entities):  # aichar writes these keys too: its own stamp says who it was
        out.append("char_name / char_persona / char_greeting keys (Pygmalion / TextGen shape)")
    return out


def _aichar(input: Any, entities: Sequence[Any]) -> list[str]:
    """aichar (the Python library character-factory uses) stamps ``metadata.tool`` into the
    flat card it writes, in a JSON file or a PNG's ``chara`` chunk alike."""
    card = _card(input)
    tool = _dig(card if isinstance(card, Mapping) else getattr(input, "json", None),
                "metadata", "tool")
    name = _dig(tool, "name")
    if isinstance(name, str) and "aichar" in name.lower():
        version = tool.get("version")
        return [f"metadata.tool.name {name!r}" + (f" {version}" if isinstance(version, str)
                                                  else "")]
    return []


def _tavern_helper(input: Any, entities: Sequence[Any]) -> list[str]:
    ext = _ext(input, entities)
    found = [k for k in ("tavern_helper", "TavernHelper_scripts") if k in ext]
    return [f"data.extensions.{k} (TavernHelper / JS-Slash-Runner)" for k in found]


def _wyvern(input: Any, entities: Sequence[Any]) -> list[str]:
    out = []
    book = _book(input, entities)
    if book is not None:
        keys = [k for k in _WYVERN_BOOK_KEYS if k in book]
        creator = book.get("creator")
        if isinstance(creator, Mapping) and "vanityUrl" in creator:
            keys.append("creator.vanityUrl")
        ekeys = {k for e in _items(book.get("entries")) if isinstance(e, Mapping)
                 for k in _WYVERN_ENTRY_KEYS if k in e}
        keys += sorted(f"entries[].{k}" for k in ekeys)
        if keys:
            out.append(f"character_book Wyvern fields: {', '.join(keys)}")
    if out and "visual_description" in _ext(input, entities):
        out.append("data.extensions.visual_description")
    return out


def _wyvern_hybrid(input: Any, entities: Sequence[Any]) -> list[str]:
    """Wyvern's PNG export copies every ``data`` field to the card's root (other hybrid V2
    writers copy only the V1 fields)."""
    card = _card(input)
    data = _dig(card, "data")
    if not isinstance(data, Mapping) or len(data) < 10:
        return []
    if not all(k in card for k in data) or "alternate_greetings" not in data:
        return []
    return [f"every data field copied at the card's root ({len(data)} keys): Wyvern's hybrid "
            "V2 export"]


def _wyvern_weak(input: Any, entities: Sequence[Any]) -> list[str]:
    ext = _dig(_body(input), "extensions")  # the file's card: Voxta's Description maps here too
    if isinstance(ext, Mapping) and "visual_description" in ext and not (
            _wyvern(input, entities) or _wyvern_hybrid(input, entities)):
        return ["data.extensions.visual_description (alone: weak)"]
    return []


def _zoltan(input: Any, entities: Sequence[Any]) -> list[str]:
    if _aichar(input, entities):
        return []  # aichar writes the editor's metadata block, with its own name in it
    for obj in (_card(input), getattr(input, "json", None)):
        name = _dig(obj, "metadata", "tool", "name")
        if name:
            return [f"metadata.tool.name {name!r} (ZoltanAI's AI Character Editor)"]
    return []


def _ztxt_card(input: Any, entities: Sequence[Any]) -> list[str]:
    png = getattr(input, "png", None)
    if png is None:
        return []
    kinds = sorted({f"{tc.kind} {tc.keyword}" for tc in png.find_text("chara", "ccv3")
                    if tc.kind == "zTXt"})
    return [f"card in a {k} chunk (Character Tavern or a custom tool)" for k in kinds]


def _ginger(input: Any, entities: Sequence[Any]) -> list[str]:
    out = _ext_block("ginger", "Ginger editor")(input, entities)
    png = getattr(input, "png", None)
    if png is not None and any(tc.kind == "zTXt" for tc in png.find_text("ginger")):
        out.append("zTXt ginger chunk (Ginger's own XML)")
    return out


def _rolecall(input: Any, entities: Sequence[Any]) -> list[str]:
    ext = _ext(input, entities)
    block = ext.get("rolecall")
    if isinstance(block, Mapping):
        kind = "persona" if block.get("type") == "persona" else "character"
        return _ext_mark(ext, "rolecall", f" (RoleCall {kind})")
    try:
        if find_card(input).rcpersona is not None:
            return ["rcpersona chunk (RoleCall persona)"]
    except Exception:
        return []
    return []


def _tavernai(input: Any, entities: Sequence[Any]) -> list[str]:
    try:
        found = find_card(input)
    except Exception:
        return []
    if found.source == "exif":
        return [f"card JSON in the EXIF UserComment of a {input.container} "
                f"({'decimal byte list' if found.exif_encoding == 'bytes' else 'JSON text'})"]
    card = found.card
    if found.version == "v1" and isinstance(card, Mapping):
        chat = card.get("chat")
        date = card.get("create_date")
        if (isinstance(chat, str) and _MS_STAMP.match(chat)) or (
                isinstance(date, str) and _MS_STAMP.match(date)):
            return ["V1 card with millisecond timestamps in chat/create_date (TavernAI)"]
    return []


def _cc_extractor(input: Any, entities: Sequence[Any]) -> list[str]:
    ext = _ext(input, entities)
    keys = [k for k in ext if str(k).startswith("cc_extractor")]
    return [f"data.extensions.{k} (V3 fields stashed in a V2 card by an extractor tool)"
            for k in keys]


def rules() -> list[LabelRule]:
    """Every Tavern-card label rule."""
    return [
        LabelRule("SillyTavern", 0.9, _st_trio, "last_writer", "st-trio"),
        LabelRule("SillyTavern", 0.8, _st_root_extras, "last_writer", "st-root-extras"),
        LabelRule("SillyTavern", 0.7, _st_chunks, "last_writer", "st-both-chunks"),
        LabelRule("SillyTavern", 0.6, _st_regex, "last_writer", "st-regex-scripts"),
        LabelRule("SillyTavern", 0.5, _st_minor, "last_writer", "st-extension-keys"),
        LabelRule("Chub", 0.9, _chub, "origin", "chub"),
        LabelRule("RisuAI", 0.9, _risu, "origin", "risuai"),
        LabelRule("Agnai", 0.9, _ext_block("agnai", "Agnaistic export"), "origin", "agnai"),
        LabelRule("Ginger", 0.9, _ginger, "origin", "ginger"),
        LabelRule("Voxta", 0.9, _ext_block("voxta", "Voxta"), "origin", "voxta"),
        LabelRule("RoleCall", 0.9, _rolecall, "origin", "rolecall"),
        LabelRule("Pygmalion", 0.9, _pygmalion, "origin", "pygmalion"),
        LabelRule("aichar", 0.95, _aichar, "origin", "aichar"),
        LabelRule("TavernHelper", 0.6, _tavern_helper, "origin", "tavern-helper"),
        LabelRule("Wyvern", 0.8, _wyvern, "origin", "wyvern"),
        LabelRule("Wyvern", 0.75, _wyvern_hybrid, "origin", "wyvern-hybrid"),
        LabelRule("Wyvern", 0.3, _wyvern_weak, "origin", "wyvern-weak"),
        LabelRule("AI Character Editor (ZoltanAI)", 0.8, _zoltan, "origin", "zoltanai"),
        LabelRule("Character Tavern", 0.5, _ztxt_card, "origin", "character-tavern"),
        LabelRule("TavernAI", 0.7, _tavernai, "origin", "tavernai"),
        LabelRule("cc_extractor (unidentified tool)", 0.3, _cc_extractor, "last_writer",
                  "cc-extractor"),
    ]

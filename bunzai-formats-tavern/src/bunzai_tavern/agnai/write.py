"""Writing a canonical Character as a native Agnai character.

The persona follows Agnai's own card import: the structured persona in
``extensions.agnai.persona`` is used while it still renders to the description; otherwise the
description (and personality) become a text persona.
"""

from __future__ import annotations

import base64
import copy
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from bunzai.errors import UsageError
from bunzai.jsonio import dumps
from bunzai.loss import LossReport
from bunzai.types import OutputFile, WriteResult

from .._agnai.memory import write_memory_book
from .._agnai.persona import render, text_persona
from .._fieldmap import unwritable
from .._options import layout_of
from .fields import AGNAI_BLOCK, CHARACTER
from .read import GENERATED

if TYPE_CHECKING:
    from bunzai.model import Asset, Character, Entity

FOREIGN_ORDER = ("kind", "name", "description", "appearance", "avatar", "tags", "persona",
                 "greeting", "scenario", "sampleChat", "voice", "systemPrompt",
                 "postHistoryInstructions", "insert", "alternateGreetings", "creator",
                 "characterVersion", "characterBook", "extensions", "json", "sprite",
                 "createdAt", "updatedAt")
"""Key order for characters that did not come from Agnai (the order of Agnai's schema)."""

_HANDLED = ("passthrough", "description", "personality", "extensions", "assets", "lorebook",
            "kind", "schema_version")


def write_character(entity: Entity, options: Mapping[str, Any], *,
                    format_id: str) -> WriteResult:
    if entity.kind != "character":
        raise UsageError(f"{format_id} writes characters, not a {entity.kind}")
    char: Character = entity
    loss = LossReport()
    raw_mine = char.passthrough.get(format_id)
    mine: dict[str, Any] | None = raw_mine if isinstance(raw_mine, dict) else None
    fields_rec = (mine or {}).get("fields")

    tail: dict[str, Any] = {}
    ext = copy.deepcopy(char.extensions)
    block = ext.pop("agnai") if isinstance(ext.get("agnai"), dict) else {}
    for key in AGNAI_BLOCK:
        if key != "persona" and key in block:
            tail[key] = copy.deepcopy(block[key])
    persona = _persona(char, block, mine, loss)
    if persona is not _OMIT:
        tail["persona"] = persona
    generated = (mine or {}).get("generated") or ()
    if "depth_prompt" in ext and (isinstance(ext["depth_prompt"], dict)
                                  or "depth_prompt" in generated):
        tail["insert"] = ext.pop("depth_prompt")
    for key in GENERATED:  # what is left under these keys reads back as the reader's shadow
        if key in ext:
            loss.approximated(f"extensions.{key}", "Agnai's reader sets this key itself (from "
                                                   "insert or its own fields); this value is "
                                                   "kept in the file but read back aside")
    avatar = _avatar(char, mine, loss)
    if avatar is not _OMIT:
        tail["avatar"] = avatar
    if char.lorebook is not None:
        tail["characterBook"] = write_memory_book(char.lorebook, format_id=format_id,
                                                  loss=loss, path="lorebook")
    elif mine is not None and "book_raw" in mine:
        tail["characterBook"] = copy.deepcopy(mine["book_raw"])
    native_ext = _native_extensions(ext, mine)
    if native_ext is not _OMIT:
        tail["extensions"] = native_ext

    for attr in unwritable(CHARACTER, char, fields_rec, skip=_HANDLED):
        loss.dropped(attr, f"Agnai characters have no {attr}")
    out = CHARACTER.write(lambda a: getattr(char, a), fields_rec, loss, "", tail=tail)
    if mine is None:
        out = {"kind": "character", **out}
        out = {**{k: out[k] for k in FOREIGN_ORDER if k in out},
               **{k: v for k, v in out.items() if k not in FOREIGN_ORDER}}
    indent, newline = layout_of(options, (mine or {}).get("layout"), default=2)
    data = dumps(out, indent=indent) + (b"\n" if newline else b"")
    return WriteResult([OutputFile(data, ".json")], loss)


def _persona(char: Character, block: Mapping[str, Any], mine: dict[str, Any] | None,
             loss: LossReport) -> Any:
    has = "persona" in block
    stored = block.get("persona")
    desc, pers = char.description, char.personality
    if has and not pers:
        text = render(char.name, stored)
        if text == desc or (text is None and desc == ""):
            return copy.deepcopy(stored)  # as stored, even when it is not a usable persona
    if not has and mine is not None and not desc and not pers:
        return _OMIT  # the source had no persona and there is still nothing to say
    if has:
        loss.approximated("extensions.agnai.persona",
                          "the stored Agnai persona no longer renders to the description; "
                          "replaced by a text persona, as Agnai's own import does")
    elif "agnai" not in char.extensions or not isinstance(char.extensions["agnai"], dict):
        loss.approximated("extensions.agnai", "Agnai stores the persona as a structure; it "
                                              "reads back as extensions.agnai.persona")
    else:
        loss.approximated("extensions.agnai.persona", "the description becomes a text "
                                                      "persona")
    if pers:
        loss.approximated("description", "Agnai has no personality field: description and "
                                          "personality are joined into one text persona")
        loss.dropped("personality", "joined into the description's text persona")
    return text_persona("\n".join(t for t in (desc, pers) if t))


def _main_icon(assets: list[Asset]) -> int | None:
    for i, a in enumerate(assets):
        if a.type == "icon" and a.name == "main":
            return i
    for i, a in enumerate(assets):
        if a.type == "icon":
            return i
    return None


def _avatar(char: Character, mine: dict[str, Any] | None, loss: LossReport) -> Any:
    from bunzai.containers.media import sniff_media
    from bunzai.model import Asset

    rec = (mine or {}).get("avatar") or {}
    idx = _main_icon(char.assets)
    for j in range(len(char.assets)):
        if j != idx:
            loss.dropped(f"assets[{j}]", "an Agnai character has one avatar and no other "
                                         "assets")
    if idx is None:
        return copy.deepcopy(rec["raw"]) if "raw" in rec else _OMIT
    asset = char.assets[idx]
    if asset.data is not None:
        media = asset.media_type or sniff_media(asset.data)[0]
        head = rec.get("data_url") or f"data:{media};base64,"
        payload = rec.get("payload")
        if not (isinstance(payload, str) and _decodes_to(payload, asset.data)):
            payload = base64.b64encode(asset.data).decode("ascii")
        value = f"{head}{payload}"
        back = Asset(type="icon", name="main", data=asset.data,
                     media_type=sniff_media(asset.data)[0])
    elif asset.uri:
        value = asset.uri
        back = Asset(type="icon", name="main", uri=asset.uri)
    else:
        loss.dropped(f"assets[{idx}]", "the icon has neither bytes nor a URI")
        return _OMIT
    if idx != 0 or _dump(back) != _dump(asset):
        loss.approximated(f"assets[{idx}]", "written as Agnai's avatar (a URL, path or data: "
                                            "URL); other asset details are not kept")
    return value


def _dump(a: Asset) -> dict[str, Any]:
    return a.model_dump(exclude={"extensions"}) | {"extensions": a.extensions}


def _decodes_to(payload: str, data: bytes) -> bool:
    try:
        return base64.b64decode(payload) == data
    except ValueError:
        return False


def _native_extensions(ext: dict[str, Any], mine: dict[str, Any] | None) -> Any:
    if mine is None:
        return ext
    if "ext_raw" in mine and not ext:
        return copy.deepcopy(mine["ext_raw"])
    if mine.get("ext_absent") and not ext:
        return _OMIT
    shadow = mine.get("ext_shadow") or {}
    for k, v in shadow.items():
        ext.setdefault(k, copy.deepcopy(v))
    order = mine.get("ext_order")
    if isinstance(order, list):
        ext = {**{k: ext[k] for k in order if k in ext},
               **{k: v for k, v in ext.items() if k not in order}}
    return ext


_OMIT: Any = object()

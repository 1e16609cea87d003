"""Writing a canonical Character as a native Agnai character.

The persona follows Agnai's own card import: the structured persona in
``extensions.agnai.persona`` is used while it still renders to the description; otherwise the
description (and personality) become a text persona.  What Agnai has no field for at all is
reported by core from the adapter's ``carries``; this writer reports what it writes differently.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from bunzai.sdk import LossReport, OutputFile, WriteResult, dumps_layout, sniff_media
from bunzai.sdk.fields import jcopy

from .._common.agnai_memory import write_memory_book
from .._common.agnai_persona import is_plain_text, render, text_persona
from .fields import AGNAI_BLOCK, CHARACTER
from .read import SHADOW

if TYPE_CHECKING:
    from bunzai.sdk import Asset, Character

FOREIGN_ORDER = ("kind", "name", "description", "appearance", "avatar", "tags", "persona",
                 "greeting", "scenario", "sampleChat", "voice", "systemPrompt",
                 "postHistoryInstructions", "insert", "alternateGreetings", "creator",
                 "characterVersion", "characterBook", "extensions", "json", "sprite",
                 "createdAt", "updatedAt")
"""Key order for characters that did not come from Agnai (the order of Agnai's schema)."""


def write_character(char: Character, options: Mapping[str, Any], format_id: str
                    ) -> WriteResult:
    loss = LossReport()
    got = char.passthrough.get(format_id)
    layout: dict[str, Any] = got if isinstance(got, dict) else {}
    own = char.app_data.get(format_id) or {}
    data = {k: v for k, v in own.items() if not k.startswith(SHADOW)}

    tail: dict[str, Any] = {}
    if not layout.get("kind_absent"):
        tail["kind"] = jcopy(layout.get("kind", "character"))
    if "userId" in layout:
        tail["userId"] = jcopy(layout["userId"])
    ext = jcopy(char.extensions)
    block = ext.pop("agnai", None)
    if isinstance(block, dict):
        for key, value in block.items():
            if key in AGNAI_BLOCK:
                if key != "persona":
                    tail[key] = value
            elif value is not None:
                loss.dropped(f"extensions.agnai.{key}", "Agnai's own fields are voice, persona, "
                                                        "appearance, json and sprite")
    persona = _persona(char, block if isinstance(block, dict) else {}, bool(layout), loss)
    if persona is not _OMIT:
        tail["persona"] = persona
    if "depth_prompt" in ext:
        insert = ext.pop("depth_prompt")
        if insert is not None or "depth_prompt" in (layout.get("generated") or ()):
            tail["insert"] = insert
    avatar = _avatar(char, layout, loss)
    if avatar is not _OMIT:
        tail["avatar"] = avatar
    if char.lorebook is not None:
        tail["characterBook"] = write_memory_book(char.lorebook, format_id=format_id,
                                                  loss=loss, path="lorebook")
    native_ext = _native_extensions(ext, layout, own, loss, format_id)
    if native_ext is not _OMIT:
        tail["extensions"] = native_ext

    out = CHARACTER.write(lambda a: getattr(char, a), layout, data, loss, "", tail=tail)
    if not layout:
        out = {**{k: out[k] for k in FOREIGN_ORDER if k in out},
               **{k: v for k, v in out.items() if k not in FOREIGN_ORDER}}
    text = dumps_layout(out, layout.get("layout"), 2, options)
    return WriteResult([OutputFile(text, ".json")], loss)


def _persona(char: Character, block: Mapping[str, Any], from_agnai: bool,
             loss: LossReport) -> Any:
    """The stored persona while it renders to the description, else a text persona of the
    description (and personality), as Agnai's card import builds it.  A text persona is the
    description in Agnai's form, never a loss; replacing a structured one is."""
    has = "persona" in block
    stored = block.get("persona")
    desc, pers = char.description, char.personality
    if has and not pers:
        text = render(char.name, stored)
        if text == desc or (text is None and desc == ""):
            return jcopy(stored)  # as stored, even when it is not a usable persona
    if not has and from_agnai and not desc and not pers:
        return _OMIT  # the source had no persona and there is still nothing to say
    if has and not is_plain_text(stored):
        loss.approximated("extensions.agnai.persona",
                          "the stored Agnai persona no longer renders to the description; "
                          "replaced by a text persona, as Agnai's own import does")
    if pers:
        loss.approximated("description", "Agnai has no personality field: description and "
                                          "personality are joined into one text persona")
    return text_persona("\n".join(t for t in (desc, pers) if t))


def _main_icon(assets: list[Asset]) -> int | None:
    for i, a in enumerate(assets):
        if a.type == "icon" and a.name == "main":
            return i
    for i, a in enumerate(assets):
        if a.type == "icon":
            return i
    return None


def _avatar(char: Character, layout: Mapping[str, Any], loss: LossReport) -> Any:
    """The main icon as Agnai's avatar (a URL, a path or a ``data:`` URL)."""
    recorded = layout.get("avatar") or {}
    idx = _main_icon(char.assets)
    for j in range(len(char.assets)):
        if j != idx:
            loss.dropped(f"assets[{j}]", "an Agnai character has one avatar and no other "
                                         "assets")
    if idx is None:
        return _OMIT
    asset = char.assets[idx]
    if asset.data is not None:
        media = asset.media_type or sniff_media(asset.data)[0]
        head = recorded.get("data_url") or f"data:{media};base64,"
        payload = recorded.get("payload")
        if not (isinstance(payload, str) and _decodes_to(payload, asset.data)):
            payload = base64.b64encode(asset.data).decode("ascii")
        value = f"{head}{payload}"
    elif asset.uri:
        value = asset.uri
    else:
        loss.dropped(f"assets[{idx}]", "the icon has neither bytes nor a URI")
        return _OMIT
    if asset.type != "icon" or asset.name != "main" or asset.extensions:
        loss.approximated(f"assets[{idx}]", "written as Agnai's avatar (a URL, path or data: "
                                            "URL), which keeps no name, type or extensions")
    return value


def _decodes_to(payload: str, data: bytes) -> bool:
    try:
        return base64.b64decode(payload) == data
    except ValueError:
        return False


def _native_extensions(ext: dict[str, Any], layout: Mapping[str, Any],
                       own: Mapping[str, Any], loss: LossReport, format_id: str) -> Any:
    """Agnai's own ``extensions``: the canonical ones Agnai has no field for, with the native
    keys that collided with the generated ones put back."""
    for key, value in own.items():
        if key.startswith(SHADOW):
            ext.setdefault(key[len(SHADOW):], jcopy(value))
    if ext and "extensions" in own:
        loss.dropped(f"app_data.{format_id}.extensions", "the file's extensions were not an "
                                                         "object; the character's replace them")
    if not ext:
        if "extensions" in own:
            return _OMIT  # written back as it was, from the app data
        if layout.get("ext_absent"):
            return _OMIT
    order = layout.get("ext_order")
    if isinstance(order, list):
        ext = {**{k: ext[k] for k in order if k in ext},
               **{k: v for k, v in ext.items() if k not in order}}
    return ext


_OMIT: Any = object()

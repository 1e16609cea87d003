"""Reading and writing RoleCall personas (card shape and ``rolecall_persona`` shape).

The card shape is a Tavern card read and written by the card codec; the persona takes its name,
description, extensions and avatar.  The rest of the card is the persona's app data: the
card's unknown keys as the codec names them (``chat``, ``data.foo``) and the card's other
canonical fields (``character.first_mes`` …, stated ones only); the card's layout is the
persona's layout.  What the writer cannot hold is declared on the adapter; the writer reports
what depends on the shape and container it writes (a title in the card shape, the avatar in
JSON) and what it changes (the persona marker a foreign persona gains).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

from bunzai.sdk import (
    BunzaiError,
    Issue,
    LossReport,
    MalformedInput,
    OutputFile,
    ReadResult,
    WriteResult,
    dumps,
    dumps_layout,
    field_defaults,
    remember_json,
    sniff_layout,
    sniff_media,
)
from bunzai.sdk.base64 import decode_base64
from bunzai.sdk.fields import Table, field, jcopy, keep, kept
from bunzai.sdk.png import PngFile, is_text_chunk_with_keyword, make_text_chunk, splice

from .._common.cards import find_card
from .._common.cards.avatar import Undecodable, default_avatar, is_default_avatar, to_png
from .._common.cards.container import card_text, main_icon, read_found, write_character

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput, Asset, Character, Persona

SPEC = "rolecall_persona"
CHARACTER = "character."
"""Prefix of the app data holding a persona card's other canonical fields."""
_PERSONA_FIELDS = ("name", "description", "extensions", "kind", "schema_version", "assets",
                   "passthrough", "app_data")
"""Character fields the persona holds itself (or that are not data)."""

DATA = Table((
    field("name", absent=""),
    field("description", absent=""),
    field("title"),
))
"""The ``data`` object of the ``rolecall_persona`` shape."""


def read_persona(input: AdapterInput, options: Mapping[str, Any], format_id: str
                 ) -> ReadResult:
    """A RoleCall persona from a persona card or a ``rolecall_persona`` object."""
    found = find_card(input)
    body = found.body
    ext = body.get("extensions") if body is not None else None
    block = ext.get("rolecall") if isinstance(ext, Mapping) else None
    if found.card is not None and isinstance(block, Mapping) and block.get("type") == "persona":
        return _read_card(input, found, format_id)
    if found.rcpersona is not None:
        return _read_rcpersona(input, found.rcpersona, format_id)
    raise MalformedInput("no RoleCall persona found (neither a persona card nor rcpersona)")


def _read_card(input: AdapterInput, found: Any, format_id: str) -> ReadResult:
    from bunzai.sdk import Character, Persona

    res = read_found(input, found, format_id)
    char = cast("Character", res.entities[0])
    icon = main_icon(char.assets)
    avatar = char.assets.pop(icon) if icon is not None else None
    persona = Persona(name=char.name, description=char.description,
                      extensions=dict(char.extensions), avatar=avatar)
    data = dict(char.app_data.get(format_id) or {})
    defaults = field_defaults(Character)
    for name in type(char).model_fields:
        value = getattr(char, name)
        if name in _PERSONA_FIELDS or _is_default(value, defaults[name]):
            continue
        data[CHARACTER + name] = _json(value)
    if char.assets:
        data[CHARACTER + "assets"] = _json(char.assets)
    layout = {"shape": "card", "card": char.passthrough.get(format_id) or {}, "avatar_at": icon}
    keep(persona, format_id, layout, data)
    return ReadResult([persona], res.warnings)


def _is_default(value: Any, default: Any) -> bool:
    return type(value) is type(default) and value == default


def _json(value: Any) -> Any:
    if isinstance(value, list):
        return [_json(v) for v in value]
    if hasattr(type(value), "model_fields"):
        return value.model_dump(mode="json")
    return jcopy(value)


def _read_rcpersona(input: AdapterInput, obj: Any, format_id: str) -> ReadResult:
    from bunzai.sdk import Asset, Persona

    warnings: list[Issue] = []
    obj = jcopy(obj)
    inner = obj.get("data")
    if not isinstance(inner, dict):
        raise MalformedInput("rolecall_persona without a 'data' object")
    values, data_layout, data_data = DATA.read(inner, "$.data", warnings, owned=True)
    persona = Persona(**values)
    data = {f"data.{k}": v for k, v in data_data.items()}
    data.update((k, v) for k, v in obj.items() if k not in ("spec", "data"))
    layout: dict[str, Any] = {"shape": "rcpersona", "data": data_layout}
    if list(obj)[:2] != ["spec", "data"]:
        layout["root_order"] = list(obj)
    if input.container == "json":
        layout["json"] = sniff_layout(input.data, 2)
    else:
        png = input.png
        assert png is not None
        payload = input.png_json("rcpersona")[0]
        chunk = payload.chunk.chunk
        stripped = splice(png, remove=lambda c: c.offset == chunk.offset)
        at = sum(1 for c in png.chunks if c.offset < chunk.offset)
        item: dict[str, Any] = {"keyword": payload.keyword, "type": payload.chunk.kind,
                                "encoding": payload.encoding, "at": at,
                                "image": hashlib.sha256(stripped).hexdigest()}
        try:
            raw = payload.chunk.value_bytes(input.limits)
            if payload.encoding == "base64":
                raw = decode_base64(raw, limits=input.limits)
            style = sniff_layout(raw)
            if style:
                item["style"] = style
            remember_json(persona, _CHUNK, raw)  # the text itself, for an unchanged rewrite
        except BunzaiError:
            pass
        layout["png"] = item
        if not is_default_avatar(stripped):
            persona.avatar = Asset(type="icon", name="main", ext="png",
                                   media_type=sniff_media(stripped)[0], data=stripped,
                                   origin="png")
    keep(persona, format_id, layout, data)
    return ReadResult([persona], warnings)


# -- writing ---------------------------------------------------------------------------------------


def write_persona(persona: Persona, options: Mapping[str, Any], format_id: str
                  ) -> WriteResult:
    """A RoleCall persona file in the shape it was read in (a card for other personas)."""
    layout, data = kept(persona, format_id)
    lay = layout or {}
    shape = options.get("shape") or lay.get("shape") or "card"
    container = options.get("container")
    loss = LossReport()
    warnings: list[str] = []
    if shape == "card":
        if persona.title:
            loss.dropped("title", "the card shape has no title (shape=rcpersona keeps it)")
        out, suffix = _write_card(persona, lay, data or {}, container, format_id, loss,
                                  warnings)
    else:
        for key, value in persona.extensions.items():
            if value not in (None, "", [], {}, False):
                loss.dropped(f"extensions.{key}", "the rolecall_persona shape has no "
                                                  "extensions (the card shape keeps them)")
        out, suffix = _write_rcpersona(persona, lay, data or {}, container, options, format_id,
                                       loss)
    return WriteResult([OutputFile(out, suffix)], loss, warnings)


def _write_card(persona: Persona, layout: Mapping[str, Any], data: Mapping[str, Any],
                container: str | None, format_id: str, loss: LossReport,
                warnings: list[str]) -> tuple[bytes, str]:
    from bunzai.sdk import Character

    ext = jcopy(persona.extensions)
    opts: dict[str, Any] = {}
    if container is not None:
        opts["container"] = container
    mine = layout.get("shape") == "card" and isinstance(layout.get("card"), dict)
    if not mine:
        block = ext.get("rolecall")
        if not isinstance(block, Mapping):
            loss.approximated("extensions.rolecall", "marked as a RoleCall persona "
                                                     "(extensions.rolecall.type)")
            ext["rolecall"] = {"type": "persona"}
        elif block.get("type") != "persona":
            loss.approximated("extensions.rolecall.type", "marked as a RoleCall persona")
            ext["rolecall"] = {**block, "type": "persona"}
        if container != "json":
            opts["chunks"] = "chara"
        else:
            opts["spec"] = "v2"
    fields = {k[len(CHARACTER):]: v for k, v in data.items() if k.startswith(CHARACTER)}
    char = Character.model_validate_json(dumps({**fields, "name": persona.name,
                                                "description": persona.description,
                                                "extensions": ext}))
    char.app_data[format_id] = {k: jcopy(v) for k, v in data.items()
                                if not k.startswith(CHARACTER)}
    if mine:
        char.passthrough[format_id] = layout["card"]
    at = layout.get("avatar_at") if mine else None
    icon = None
    if persona.avatar is not None:
        icon = at if isinstance(at, int) and 0 <= at <= len(char.assets) else 0
        char.assets.insert(icon, _as_image(persona.avatar, loss))
    res = write_character(char, format_id, opts)
    for entry in res.loss:
        loss.add(_persona_path(entry.path, icon, format_id), entry.action, entry.reason)
    warnings.extend(res.warnings)
    return res.data, res.suffix


def _persona_path(path: str, icon: int | None, format_id: str) -> str:
    """A card writer's loss path as the persona's: the avatar, or the card's other fields."""
    head = path.split(".", 1)[0].split("[", 1)[0]
    if head == "assets":
        index = path[len("assets["):].split("]", 1)[0]
        if icon is not None and index == str(icon):
            return "avatar" + path[len(f"assets[{icon}]"):]
        return f"app_data.{format_id}.{CHARACTER}assets"
    if head in ("name", "description", "extensions", "app_data"):
        return path
    return f"app_data.{format_id}.{CHARACTER}{head}"


def _as_image(avatar: Asset, loss: LossReport) -> Asset:
    """The avatar as the file's image: the ``main`` icon, which keeps no name, type or
    extensions of its own."""
    if avatar.type == "icon" and avatar.name == "main" and not avatar.extensions:
        return avatar.model_copy()
    loss.approximated("avatar", "the avatar is the persona's image, which keeps no name, type "
                                "or extensions of its own")
    return avatar.model_copy(update={"type": "icon", "name": "main", "extensions": {}})


def _avatar_png(avatar: Asset | None, loss: LossReport) -> bytes:
    if avatar is None or not avatar.data:
        return default_avatar()
    _as_image(avatar, loss)
    data = avatar.data
    if sniff_media(data)[0] == "image/png":
        try:
            png = PngFile.parse(data)
        except MalformedInput:
            loss.dropped("avatar", "the avatar is a broken PNG; a placeholder was used")
            return default_avatar()
        if any(is_text_chunk_with_keyword(c, {"rcpersona"}) for c in png.chunks):
            return splice(png, remove=lambda c: is_text_chunk_with_keyword(c, {"rcpersona"}))
        return data
    try:
        converted = to_png(data)
    except Undecodable as exc:
        loss.dropped("avatar", f"the avatar ({sniff_media(data)[0]}) does not decode ({exc}); "
                     "a placeholder was used")
        return default_avatar()
    loss.approximated("avatar", f"converted from {sniff_media(data)[0]} to PNG")
    return converted


_CHUNK = "png-chunk:rcpersona"
"""Where the text of a persona's ``rcpersona`` chunk is remembered."""


def _write_rcpersona(persona: Persona, layout: Mapping[str, Any], data: Mapping[str, Any],
                     container: str | None, options: Mapping[str, Any], format_id: str,
                     loss: LossReport) -> tuple[bytes, str]:
    mine = layout.get("shape") == "rcpersona"
    inner_data = {k[len("data."):]: v for k, v in data.items() if k.startswith("data.")}
    root_data = {k: v for k, v in data.items()
                 if not k.startswith(("data.", CHARACTER))}
    for key, value in data.items():
        if key.startswith(CHARACTER) and value not in (None, "", [], {}):
            loss.dropped(f"app_data.{format_id}.{key}", "the rolecall_persona shape holds a "
                                                        "name, a description and a title")
    inner = DATA.write(lambda a: getattr(persona, a), layout.get("data") if mine else None,
                       inner_data, loss)
    obj: dict[str, Any] = {"spec": SPEC, "data": inner}
    obj.update((k, jcopy(v)) for k, v in root_data.items())
    order = layout.get("root_order") if mine else None
    if isinstance(order, list):
        obj = {k: obj[k] for k in [*order, *obj] if k in obj}
    if container is None:
        container = "json" if mine and "json" in layout else "png"
    if container == "json":
        if persona.avatar is not None:
            loss.dropped("avatar", "a JSON persona has no image")
        return dumps_layout(obj, layout.get("json") if mine else None, 2, options), ".json"
    image = _avatar_png(persona.avatar, loss)
    got = layout.get("png") if mine else None
    item: Mapping[str, Any] = got if isinstance(got, Mapping) else {}
    style = item.get("style")
    text = card_text(obj, str(item.get("encoding") or "base64"),
                     style if isinstance(style, Mapping) else None, (persona, _CHUNK))
    kind = str(item.get("type") or "tEXt")
    chunk = make_text_chunk(str(item.get("keyword") or "rcpersona"), text,
                            kind if kind in ("tEXt", "zTXt", "iTXt") else "tEXt")
    png = PngFile.parse(image)
    at = item.get("at")
    if isinstance(at, int) and item.get("image") == hashlib.sha256(image).hexdigest():
        parts: list[bytes | memoryview] = [memoryview(image)[:8]]
        for i, c in enumerate(png.chunks):
            if i == at:
                parts.append(chunk)
            parts.append(c.raw)
        if at >= len(png.chunks):
            parts.append(chunk)
        if png.trailing:
            parts.append(memoryview(image)[png.trailing_offset:])
        return b"".join(parts), ".png"
    return splice(png, insert_before_iend=[chunk]), ".png"


__all__ = ["read_persona", "write_persona"]

"""Reading and writing RoleCall personas (card shape and ``rolecall_persona`` shape)."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any, cast

from bunzai.cardspec._shape import ShapeReader, ShapeWriter, conv_opt_str, conv_str, plain
from bunzai.containers.base64util import decode_base64
from bunzai.containers.media import sniff_media
from bunzai.containers.png import PngFile, is_text_chunk_with_keyword, make_text_chunk, splice
from bunzai.errors import BunzaiError, MalformedInput
from bunzai.frozen import thaw
from bunzai.input import AdapterInput
from bunzai.jsonio import dumps
from bunzai.loss import LossReport
from bunzai.types import Issue, OutputFile, ReadResult, WriteResult

from .._cards import find_card
from .._cards.avatar import default_avatar, is_default_avatar, to_png
from .._cards.container import (
    card_text,
    diff_paths,
    json_style,
    main_icon,
    read_found,
    rolled_up,
    write_character,
)
from .._options import layout_of, sniff_layout

if TYPE_CHECKING:
    from bunzai.model import Asset, Character, Persona

FORMAT_ID = "rolecall-persona"
SPEC = "rolecall_persona"
_DATA_KEYS = ("name", "description", "title")
_DROPPED = {
    "note": "a RoleCall persona has no separate note",
    "avatar_id": "RoleCall personas are not keyed by an avatar file name",
    "is_default": "a RoleCall persona export does not say which persona is the default",
    "position": "RoleCall personas have no prompt position",
    "depth": "RoleCall personas have no prompt depth",
    "role": "RoleCall personas have no prompt role",
    "lorebook": "a RoleCall persona export links no lorebook",
    "connections": "RoleCall persona exports have no persona locks",
    "title": "the card shape has no title (the rcpersona shape keeps it)",
}


def read_persona(input: AdapterInput) -> ReadResult:
    """A RoleCall persona from a persona card or a ``rolecall_persona`` object."""
    found = find_card(input)
    body = found.body
    ext = body.get("extensions") if body is not None else None
    block = ext.get("rolecall") if isinstance(ext, Mapping) else None
    if found.card is not None and isinstance(block, Mapping) and block.get("type") == "persona":
        return _read_card(input, found)
    if found.rcpersona is not None:
        return _read_rcpersona(input, found.rcpersona)
    raise MalformedInput("no RoleCall persona found (neither a persona card nor rcpersona)")


def _read_card(input: AdapterInput, found: Any) -> ReadResult:
    from bunzai.model import Persona

    res = read_found(input, found, FORMAT_ID)
    char = cast("Character", res.entities[0])
    icon = main_icon(char.assets)
    avatar = char.assets.pop(icon) if icon is not None else None
    persona = Persona(name=char.name, description=char.description,
                      extensions=dict(char.extensions), avatar=avatar)
    stored = char.model_dump(mode="json", exclude={"name", "description", "extensions", "kind",
                                                   "schema_version"})
    persona.passthrough[FORMAT_ID] = {"shape": "card", "character": stored, "avatar_at": icon}
    return ReadResult([persona], res.warnings)


def _read_rcpersona(input: AdapterInput, obj: Any) -> ReadResult:
    from bunzai.model import Asset, Persona

    warnings: list[Issue] = []
    obj = thaw(obj)
    data = obj.get("data")
    r = ShapeReader(data, _DATA_KEYS, path="$.data", warnings=warnings)
    persona = Persona(
        name=r.field("name", conv_str, "", nullable=False, expected="a string"),
        description=r.field("description", conv_str, "", nullable=False, expected="a string"),
        title=r.field("title", conv_opt_str, None, nullable=True, expected="a string"),
    )
    pt: dict[str, Any] = {
        "shape": "rcpersona",
        "root": {k: v for k, v in obj.items() if k not in ("spec", "data")},
        "root_order": list(obj),
        "data": r.record(),
    }
    if input.container == "json":
        pt["json"] = sniff_layout(input.data, 2)
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
            style = json_style(raw)
            if style:
                item["style"] = style
        except BunzaiError:
            pass
        pt["png"] = item
        if not is_default_avatar(stripped):
            persona.avatar = Asset(type="icon", name="main", ext="png",
                                   media_type=sniff_media(stripped)[0], data=stripped,
                                   origin="png")
    persona.passthrough[FORMAT_ID] = pt
    return ReadResult([persona], warnings)


# -- writing ---------------------------------------------------------------------------------------


def write_persona(persona: Persona, options: Mapping[str, Any]) -> WriteResult:
    """A RoleCall persona file; what it cannot hold is found by reading the output back."""
    raw_pt = persona.passthrough.get(FORMAT_ID)
    pt: Mapping[str, Any] = raw_pt if isinstance(raw_pt, Mapping) else {}
    shape = options.get("shape") or pt.get("shape") or "card"
    container = options.get("container")
    loss = LossReport()
    warnings: list[str] = []
    if shape == "card":
        data, suffix = _write_card(persona, pt, container, warnings)
    else:
        data, suffix = _write_rcpersona(persona, pt, container, options, loss)
    back = read_persona(AdapterInput(data, f"out{suffix}")).entities[0]
    for path in rolled_up(back, [p for p in diff_paths(persona, back)
                                    if not loss.covers(p)]):
        if loss.covers(path):
            continue
        field = path.split(".", 1)[0].split("[", 1)[0]
        if field in _DROPPED and not (field == "title" and shape == "rcpersona"):
            loss.dropped(path, _DROPPED[field])
        elif field == "avatar":
            loss.approximated(path, "the avatar is the PNG image (converted to PNG when "
                              "needed; a JSON persona has none)")
        elif path.startswith("extensions.rolecall"):
            loss.approximated(path, "marked as a RoleCall persona (extensions.rolecall.type)")
        else:
            loss.approximated(path, "the RoleCall persona could not hold it as it was")
    return WriteResult([OutputFile(data, suffix)], loss, warnings)


def _write_card(persona: Persona, pt: Mapping[str, Any], container: str | None,
                warnings: list[str]) -> tuple[bytes, str]:
    from bunzai.model import Character

    ext = plain(persona.extensions)
    opts: dict[str, Any] = {}
    if container is not None:
        opts["container"] = container
    if pt.get("shape") == "card" and isinstance(pt.get("character"), Mapping):
        body = {**plain(pt["character"]), "name": persona.name,
                "description": persona.description, "extensions": ext}
        char = Character.model_validate(body)
        if persona.avatar is not None:
            at = pt.get("avatar_at")
            char.assets.insert(at if isinstance(at, int) else 0, persona.avatar.model_copy())
    else:
        block = ext.get("rolecall")
        ext["rolecall"] = {**(block if isinstance(block, Mapping) else {}), "type": "persona"}
        char = Character(name=persona.name, description=persona.description, extensions=ext,
                         assets=[persona.avatar.model_copy()] if persona.avatar else [])
        if container != "json":
            opts["chunks"] = "chara"
        else:
            opts["spec"] = "v2"
    res = write_character(char, FORMAT_ID, opts, reader=read_persona, readback=False)
    warnings.extend(res.warnings)
    return res.data, res.suffix


def _avatar_png(avatar: Asset | None, loss: LossReport) -> bytes:
    if avatar is None or not avatar.data:
        return default_avatar()
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
    converted = to_png(data)
    if converted is None:
        loss.dropped("avatar", "the avatar could not be converted to PNG (is Pillow "
                     "installed?); a placeholder was used")
        return default_avatar()
    loss.approximated("avatar", f"converted from {sniff_media(data)[0]} to PNG")
    return converted


def _write_rcpersona(persona: Persona, pt: Mapping[str, Any], container: str | None,
                     options: Mapping[str, Any], loss: LossReport) -> tuple[bytes, str]:
    data_shape = pt.get("data") if pt.get("shape") == "rcpersona" else None
    w = ShapeWriter(data_shape if isinstance(data_shape, Mapping) else None)
    w.put("name", persona.name, conv_str, empty="")
    w.put("description", persona.description, conv_str, empty="")
    w.put("title", persona.title, conv_opt_str, empty=None)
    obj: dict[str, Any] = {"spec": SPEC, "data": w.finish(_DATA_KEYS)}
    root = pt.get("root") if data_shape is not None else None
    if isinstance(root, Mapping):
        obj.update(plain(root))
    order = pt.get("root_order")
    if isinstance(order, list) and data_shape is not None:
        obj = {k: obj[k] for k in [*order, *obj] if k in obj}
    if container is None:
        container = "json" if "json" in pt else "png"
    if container == "json":
        indent, newline = layout_of(options, pt.get("json"), 2)
        out = dumps(obj, indent=indent)
        return (out + b"\n" if newline else out), ".json"
    image = _avatar_png(persona.avatar, loss)
    item = pt.get("png") if isinstance(pt.get("png"), Mapping) else {}
    assert isinstance(item, Mapping)
    style = item.get("style")
    text = _text(obj, str(item.get("encoding") or "base64"),
                 style if isinstance(style, Mapping) else None)
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


def _text(obj: Any, encoding: str, style: Mapping[str, Any] | None) -> bytes:
    return card_text(obj, encoding, style)


__all__ = ["read_persona", "write_persona"]

"""Reading and writing RisuAI persona PNGs."""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from bunzai.sdk import (
    Issue,
    LossReport,
    MalformedInput,
    OutputFile,
    Persona,
    ReadResult,
    WriteResult,
    dumps,
)
from bunzai.sdk.fields import Table, field, keep, kept
from bunzai.sdk.png import PngFile, make_text_chunk

from .._common.assets import make_asset
from .._common.images import as_png, report_image, strip_chunks

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput

PERSONA = Table((
    field("name", absent=""),
    field("description", "personaPrompt", absent=""),
    field("note", absent=""),
))
"""``{name, personaPrompt, note}``; RisuAI writes ``note: ""`` for "no note"."""

AVATAR_TYPE = "user_icon"
AVATAR_NAME = "avatar"


def read(input: AdapterInput, options: Mapping[str, Any], format_id: str) -> ReadResult:
    png = input.png
    if png is None:
        raise MalformedInput("not a PNG")
    payloads = input.png_json("persona")
    if not payloads:
        raise MalformedInput("this PNG has no RisuAI persona chunk")
    payload = payloads[-1]
    if payload.error:
        raise MalformedInput(f"RisuAI persona chunk does not decode: {payload.error}")
    raw = payload.mutable()
    if not isinstance(raw, dict):
        raise MalformedInput("RisuAI persona chunk is not a JSON object")
    warnings: list[Issue] = []
    for key in ("name", "personaPrompt"):
        if key not in raw:
            warnings.append(Issue(f"$.{key}", "RisuAI requires this key when importing a "
                                              "persona"))
    if len(payloads) > 1:
        warnings.append(Issue("$", f"{len(payloads)} persona chunks; the last one was read, "
                                   "as RisuAI does"))
    values, layout, data = PERSONA.read(raw, "$", warnings, owned=True)
    image = strip_chunks(png)
    persona = Persona(name=values["name"], description=values["description"],
                      note=values["note"] or None,
                      avatar=make_asset(type=AVATAR_TYPE, name=AVATAR_NAME, ext="png",
                                        data=image, origin="png:container"))
    keep(persona, format_id, layout, data)
    return ReadResult([persona], warnings)


def write(entity: Persona, options: Mapping[str, Any], format_id: str) -> WriteResult:
    layout, data = kept(entity, format_id)

    def get(attr: str) -> Any:
        return (entity.note or "") if attr == "note" else getattr(entity, attr)

    raw = PERSONA.write(get, layout, data)
    loss = LossReport()
    avatar = entity.avatar
    image, why = as_png(avatar.data if avatar else None)
    picture = strip_chunks(PngFile.parse(image))
    if avatar is None or avatar.data is None:
        loss.approximated("avatar", why or "a RisuAI persona is a picture")
    else:
        if why or picture != avatar.data:
            report_image(loss, "avatar.data", why or "a RisuAI persona's picture keeps no "
                                                      "card or persona text of its own")
        if avatar.type != AVATAR_TYPE:
            loss.approximated("avatar.type", "a RisuAI persona's picture is its user icon")
        if avatar.name != AVATAR_NAME:
            loss.approximated("avatar.name", "a RisuAI persona's picture has no name of its "
                                             "own")
    text = base64.b64encode(dumps(raw)).decode("ascii")
    out = strip_chunks(PngFile.parse(picture), [make_text_chunk("persona", text)])
    return WriteResult([OutputFile(out, ".png")], loss)

"""Reading and writing RisuAI persona PNGs."""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from bunzai.containers.png import PngFile, make_text_chunk
from bunzai.errors import MalformedInput, UsageError
from bunzai.jsonio import dumps
from bunzai.loss import LossReport
from bunzai.model import Persona
from bunzai.types import OutputFile, ReadResult, WriteResult

from .._common.assets import make_asset
from .._common.diff import report
from .._common.images import as_png
from .._common.pngtext import strip_risu_chunks
from .._common.shape import capture, restore
from .._common.values import Notes
from . import FORMAT_ID

if TYPE_CHECKING:
    from bunzai.input import AdapterInput
    from bunzai.model import Entity

_REASONS = {
    "note": "RisuAI always writes a note",
    "avatar": "a RisuAI persona's picture is the PNG itself",
}


def _canonical(raw: Mapping[str, Any], avatar: bytes | None, notes: Notes) -> Persona:
    return Persona(
        name=notes.text(raw, "name", "$"),
        description=notes.text(raw, "personaPrompt", "$"),
        note=notes.opt_text(raw, "note", "$") or None,  # RisuAI writes "" for "no note"
        avatar=make_asset(type="user_icon", name="avatar", ext="png", data=avatar,
                          origin="png:container") if avatar else None,
    )


def _build(persona: Persona) -> dict[str, Any]:
    return {"name": persona.name, "personaPrompt": persona.description,
            "note": persona.note or ""}


def read(input: AdapterInput) -> ReadResult:
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
    notes = Notes()
    for key in ("name", "personaPrompt"):
        if key not in raw:
            notes.warn(f"$.{key}", "RisuAI requires this key when importing a persona")
    if len(payloads) > 1:
        notes.warn("$", f"{len(payloads)} persona chunks; the last one was read, as RisuAI does")
    avatar = strip_risu_chunks(png)
    persona = _canonical(raw, avatar, notes)
    shape = capture(raw, _build(persona))
    if shape:
        persona.passthrough[FORMAT_ID] = {"shape": shape}
    return ReadResult([persona], notes.warnings)


def write(entity: Entity) -> WriteResult:
    if not isinstance(entity, Persona):
        raise UsageError(f"{FORMAT_ID} writes personas, not a {entity.kind}")
    pt = entity.passthrough.get(FORMAT_ID)
    raw = restore(_build(entity), pt.get("shape") if isinstance(pt, Mapping) else None)
    loss = LossReport()
    image, why = as_png(entity.avatar.data if entity.avatar else None)
    if why and entity.avatar is not None:
        loss.approximated("avatar.data", why)
    text = base64.b64encode(dumps(raw)).decode("ascii")
    out = strip_risu_chunks(PngFile.parse(image), [make_text_chunk("persona", text)])
    back_avatar = strip_risu_chunks(PngFile.parse(out))
    back = _canonical(raw, back_avatar, Notes())
    report(loss, entity, back, reasons=_REASONS,
           approximated=frozenset({"note", "avatar", "type", "name", "ext", "uri",
                                   "media_type", "origin", "data"}),
           default="RisuAI personas hold only a name, a prompt, a note and a picture",
           skip=("avatar.data",) if why else ())
    return WriteResult([OutputFile(out, ".png")], loss)

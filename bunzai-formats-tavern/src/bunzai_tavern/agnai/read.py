"""Reading a native Agnai character into the canonical Character.

Mapping (specs §10.1/10.3), the same one Agnai uses for its own Tavern export:

- ``description`` is creator notes; the card ``description`` is the persona rendered as text;
- ``voice``/``persona``/``appearance``/``json``/``sprite`` go to ``extensions.agnai``;
- ``insert`` ({prompt, depth}) goes to ``extensions.depth_prompt``;
- the native ``extensions`` object is merged into the canonical one; its own ``agnai`` or
  ``depth_prompt`` (left over from a card import) would collide with the ones built above, so
  they are the character's app data (``extensions.agnai``, ``extensions.depth_prompt``);
- ``avatar`` becomes the main icon asset (bytes decoded when it is a ``data:`` URL);
- ``characterBook`` becomes the lorebook through the shared memory-book mapping;
- ``kind`` and ``userId`` (Agnai's database id) are layout; other keys are app data.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from bunzai.sdk import Issue, ReadResult, sniff_media
from bunzai.sdk.fields import type_name

from .._common.agnai_memory import read_memory_book
from .._common.agnai_persona import render
from .._common.jsonfile import json_object, keep_layout
from .fields import AGNAI_BLOCK, CHARACTER, SKIP

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput, Asset, Character

GENERATED = ("agnai", "depth_prompt")
"""Canonical extension keys this reader builds from native fields."""

SHADOW = "extensions."
"""Prefix of the app data holding a native ``extensions`` key that collides with a generated
one."""


def read_character(input: AdapterInput, options: Mapping[str, Any],
                   format_id: str) -> ReadResult:
    obj = json_object(input, "an Agnai character")
    warnings: list[Issue] = []
    char = character_from_native(obj, format_id=format_id, warnings=warnings)
    keep_layout(char, input, format_id, 2)
    return ReadResult([char], warnings)


def character_from_native(obj: dict[str, Any], *, format_id: str,
                          warnings: list[Issue]) -> Character:
    """The character of a native object; ``obj`` is the reader's own parse (not copied)."""
    from bunzai.sdk import Character

    values, layout, data = CHARACTER.read(obj, "$", warnings, skip=SKIP, owned=True)
    if "kind" not in obj:
        layout["kind_absent"] = True
    elif obj["kind"] != "character":
        layout["kind"] = obj["kind"]
    if "userId" in obj:
        layout["userId"] = obj["userId"]

    # extensions: native object, plus what Agnai's export puts there
    ext: dict[str, Any] = {}
    native_ext = obj.get("extensions")
    if "extensions" not in obj:
        layout["ext_absent"] = True
    elif isinstance(native_ext, dict):
        ext = dict(native_ext)
        for key in GENERATED:
            if key in ext:
                data[SHADOW + key] = ext.pop(key)
                layout["ext_order"] = list(native_ext)
    else:
        warnings.append(Issue("$.extensions", f"is {type_name(native_ext)}, not an object; "
                                              "kept as it was"))
        data["extensions"] = native_ext
    block = {k: obj[k] for k in AGNAI_BLOCK if k in obj}
    generated = []
    if block:
        ext["agnai"] = block
        generated.append("agnai")
    if "insert" in obj:
        ext["depth_prompt"] = obj["insert"]
        generated.append("depth_prompt")
    if generated:
        layout["generated"] = generated

    # the persona, rendered as Agnai renders it into a card description
    description = ""
    if "persona" in obj:
        text = render(values["name"], obj["persona"])
        if text is None:
            warnings.append(Issue("$.persona", "not a persona Agnai can render (kind "
                                               f"{_kind(obj['persona'])!r}); kept as it was"))
        else:
            description = text

    assets: list[Asset] = []
    if "avatar" in obj:
        asset, avatar_layout = _avatar(obj["avatar"], warnings)
        if asset is not None:
            assets.append(asset)
        else:
            data["avatar"] = obj["avatar"]
        if avatar_layout:
            layout["avatar"] = avatar_layout

    lorebook = None
    book = obj.get("characterBook")
    if isinstance(book, dict):
        lorebook = read_memory_book(book, format_id=format_id, warnings=warnings,
                                    path="$.characterBook")
    elif "characterBook" in obj:
        if book is not None:
            warnings.append(Issue("$.characterBook", f"is {type_name(book)}, not a memory "
                                                     "book; kept as it was"))
        data["characterBook"] = book

    return Character(**values, description=description, extensions=ext, assets=assets,
                     lorebook=lorebook, passthrough={format_id: layout},
                     app_data={format_id: data} if data else {})


def _kind(persona: Any) -> Any:
    return persona.get("kind") if isinstance(persona, dict) else type_name(persona)


def _avatar(value: Any, warnings: list[Issue]) -> tuple[Asset | None, dict[str, Any]]:
    """The avatar as the main icon: a path/URL is kept as ``uri``; a ``data:`` URL gives bytes
    (with how they were written, as layout)."""
    from bunzai.sdk import Asset

    if not isinstance(value, str) or not value:
        return None, {}
    if value.startswith("data:") and "," in value:
        head, _, payload = value.partition(",")
        if head.endswith(";base64"):
            try:
                data = base64.b64decode(payload, validate=True)
            except (binascii.Error, ValueError):
                warnings.append(Issue("$.avatar", "data: URL is not valid base64; kept as it "
                                                  "was"))
                return Asset(type="icon", name="main", uri=value), {}
            media, _ = sniff_media(data)
            layout: dict[str, Any] = {"data_url": head + ","}
            if base64.b64encode(data).decode("ascii") != payload:
                layout["payload"] = payload  # not canonical base64: restore it verbatim
            return Asset(type="icon", name="main", data=data, media_type=media), layout
    return Asset(type="icon", name="main", uri=value), {}

"""RisuAI presets (``.risup``, ``.risupreset``) read into the canonical preset.

RisuAI writes a preset (``downloadPreset`` in ``src/ts/storage/database.svelte.ts``) as:
msgpack of the preset object, encrypted with AES-GCM (key: SHA-256 of the text
``risupreset``; a 12-byte zero IV; ``encryptBuffer`` in ``src/ts/util.ts``), put as ``preset``
in the msgpack map ``{presetVersion: 2, type: "preset", preset}``, gzip-compressed (fflate's
``compressSync``) and, for ``.risup``, RPack-obfuscated.  Its importer (``importPreset``) undoes
these steps and accepts ``presetVersion`` 0 or 2 with ``type`` ``preset``, reading ``pres`` when
``preset`` is missing.

RisuAI keeps temperature and the two OpenAI penalties multiplied by 100 (80 is 0.8); they are
divided on read.  Its prompt template becomes the chat-completion prompt list, each item
also kept whole in the entry's app data; every other setting is the preset's app data.
"""

from __future__ import annotations

import hashlib
import zlib
from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from bunzai.sdk import Issue, MalformedInput, ReadResult

from .._common import rpack

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput

LIMIT = 64 << 20
"""Largest decompressed preset read (a preset is a few kilobytes; images make it larger)."""

HUNDREDTHS = {"temperature": "temperature", "frequencyPenalty": "frequency_penalty",
              "PresensePenalty": "presence_penalty"}
"""RisuAI's settings kept ×100, by the canonical sampler they hold."""

PLAIN = {"top_p": "top_p", "top_k": "top_k", "repetition_penalty": "repetition_penalty",
         "min_p": "min_p", "top_a": "top_a", "maxContext": "max_context",
         "maxResponse": "max_tokens"}

ROLES = {"system": "system", "user": "user", "bot": "assistant"}
MARKERS = {"chat": "chatHistory", "description": "charDescription",
           "persona": "personaDescription", "lorebook": "worldInfoBefore"}


def unpack(data: bytes, where: str, packed: bool) -> dict[str, Any]:
    """The preset object of a ``.risup`` (``packed``) or ``.risupreset`` file."""
    import msgpack
    from cryptography.exceptions import InvalidTag
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM

    raw = rpack.decode(data) if packed else data
    try:
        inflater = zlib.decompressobj(16 + zlib.MAX_WBITS)
        plain = inflater.decompress(raw, LIMIT)
        if inflater.unconsumed_tail:
            raise MalformedInput(f"{where}: the preset is larger than {LIMIT >> 20} MB "
                                 "unpacked")
    except zlib.error as exc:
        raise MalformedInput(f"{where}: not a gzip stream after RPack: {exc}") from exc
    try:
        outer = msgpack.unpackb(plain, raw=False, strict_map_key=False)
    except (ValueError, msgpack.ExtraData, msgpack.FormatError, msgpack.StackError) as exc:
        raise MalformedInput(f"{where}: the unpacked preset is not msgpack: {exc}") from exc
    if not isinstance(outer, dict) or outer.get("type") != "preset" \
            or outer.get("presetVersion") not in (0, 2):
        raise MalformedInput(f"{where}: expected a map with type 'preset' and presetVersion 0 "
                             "or 2 (what RisuAI's import accepts)")
    sealed = outer.get("preset", outer.get("pres"))
    if not isinstance(sealed, bytes | bytearray):
        raise MalformedInput(f"{where}: the preset's encrypted body is missing")
    key = hashlib.sha256(b"risupreset").digest()
    try:
        body = AESGCM(key).decrypt(bytes(12), bytes(sealed), None)
    except InvalidTag as exc:
        raise MalformedInput(f"{where}: the preset does not decrypt with RisuAI's preset key "
                             "(damaged or not a RisuAI preset)") from exc
    try:
        preset = msgpack.unpackb(body, raw=False, strict_map_key=False)
    except (ValueError, msgpack.ExtraData, msgpack.FormatError, msgpack.StackError) as exc:
        raise MalformedInput(f"{where}: the decrypted preset is not msgpack: {exc}") from exc
    if not isinstance(preset, dict):
        raise MalformedInput(f"{where}: the decrypted preset is not a map")
    return preset


def _number(v: Any) -> bool:
    return isinstance(v, int | float) and not isinstance(v, bool)


def _hundredth(v: int | float) -> int | float:
    got = round(v / 100, 6)
    return int(got) if float(got).is_integer() and isinstance(v, int) and v % 100 == 0 \
        else got


def _jsonable(v: Any) -> Any:
    if isinstance(v, bytes | bytearray):
        import base64
        return {"base64": base64.b64encode(bytes(v)).decode()}
    if isinstance(v, Mapping):
        return {str(k): _jsonable(x) for k, x in v.items()}
    if isinstance(v, list | tuple):
        return [_jsonable(x) for x in v]
    return v


def to_preset(obj: dict[str, Any], format_id: str, warnings: list[Issue]) -> Any:
    from bunzai.sdk import Preset

    obj = _jsonable(obj)
    sampling: dict[str, Any] = {}
    data: dict[str, Any] = {}
    used: set[str] = set()
    for key, attr in (*HUNDREDTHS.items(), *PLAIN.items()):
        v = obj.get(key)
        if v is None:
            continue
        if not _number(v):
            warnings.append(Issue(f"$.{key}", f"expected a number, got {type(v).__name__}: "
                                              "kept as it is"))
            continue
        used.add(key)
        sampling[attr] = _hundredth(v) if key in HUNDREDTHS else v
    if isinstance(sampling.get("top_k"), float) and sampling["top_k"].is_integer():
        sampling["top_k"] = int(sampling["top_k"])
    for attr in ("max_context", "max_tokens", "top_k"):
        if attr in sampling and not isinstance(sampling[attr], int):
            data[next(k for k, a in PLAIN.items() if a == attr)] = sampling.pop(attr)
    stops = obj.get("localStopStrings")
    if isinstance(stops, list) and all(isinstance(s, str) for s in stops) and stops:
        sampling["stop_strings"] = stops
        used.add("localStopStrings")
    system: dict[str, Any] = {}
    for key, attr in (("mainPrompt", "content"), ("jailbreak", "post_history")):
        if isinstance(obj.get(key), str) and obj[key]:
            system[attr] = obj[key]
            used.add(key)
    chat: dict[str, Any] = {}
    template = obj.get("promptTemplate")
    if isinstance(template, list):
        used.add("promptTemplate")
        prompts, order = [], []
        for i, item in enumerate(template):
            if not isinstance(item, dict):
                continue
            kind = item.get("type")
            entry: dict[str, Any] = {}
            mapped = {"type"}
            if (kind in MARKERS and kind != "chat") or (kind == "chat" and not
                                                      _partial_chat(item)):
                entry.update(identifier=MARKERS[str(kind)], marker=True)
                mapped |= {"rangeStart", "rangeEnd"} if kind == "chat" else set()
            elif kind in ("plain", "jailbreak", "cot") and isinstance(item.get("text"), str):
                mapped = {"text", "role"} | ({"type"} if kind == "plain" else set()) | (
                    {"type2"} if item.get("type2") in ("main", "normal", None) else set())
                main = item.get("type2") == "main" and "main" not in {p["identifier"]
                                                                      for p in prompts}
                entry.update(identifier="main" if main else f"risu-{i}",
                             name=f"{kind} ({item.get('type2', 'normal')})",
                             role=ROLES.get(str(item.get("role", "system")), "system"),
                             content=item["text"])
            else:
                entry.update(identifier=f"risu-{i}", name=str(kind), marker=True)
            left = {k: v for k, v in item.items() if k not in mapped}
            if left:  # what the prompt list cannot say (a range, a Risu-only placement)
                entry["app_data"] = {format_id: left}
            prompts.append(entry)
            order.append({"identifier": entry["identifier"], "enabled": True})
        chat = {"prompts": prompts, "prompt_order": [{"order": order}]}
    for key, value in obj.items():
        if key not in used:
            data[key] = value
    name = obj.get("name") if isinstance(obj.get("name"), str) else None
    data.pop("name", None)
    return Preset(name=name, sampling=sampling, system_prompt=system, chat_completion=chat,
                  app_data={format_id: data} if data else {})


def _partial_chat(item: Mapping[str, Any]) -> bool:
    """A chat item that sends only part of the history (a range other than all of it)."""
    return not (item.get("rangeStart") in (0, None) and item.get("rangeEnd") in ("end", None))


def read_preset(input: AdapterInput, options: Mapping[str, Any], format_id: str) -> ReadResult:
    where = input.filename or "preset"
    packed = input.suffix != ".risupreset" and input.head(2) != b"\x1f\x8b"
    obj = unpack(input.data, where, packed)
    warnings: list[Issue] = []
    return ReadResult([to_preset(obj, format_id, warnings)], warnings)



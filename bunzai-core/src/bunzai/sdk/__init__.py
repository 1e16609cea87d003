"""The plugin API: everything a format adapter may use from bunzai, declared in one place.

Format distributions import from ``bunzai.sdk`` and its submodules only (a test holds every
first-party format, the worked example and the template to that), so this package is the
contract a third-party author reads:

``bunzai.sdk``          the adapter base class and hook marker, the data passed between core
                        and adapters, the errors, the canonical model, the loss rule (neutral
                        values, what a list of carried paths leaves out), JSON and limit helpers,
                        the text an unchanged JSON document was read from (``json_as_read``)
``bunzai.sdk.fields``   field tables: keys <-> canonical attributes, layout and app data kept
``bunzai.sdk.cards``    Character Card V1/V2/V3 JSON and the PNG card conventions
``bunzai.sdk.png``      PNG chunks: walk, text chunks, byte-exact splicing
``bunzai.sdk.zip``      zip archives read safely (traversal, bombs, duplicates) and written
``bunzai.sdk.exif``     EXIF UserComment (TavernAI WebP/JPEG cards, Backyard PNGs)
``bunzai.sdk.base64``   strict and tolerant base64 under the size limits
``bunzai.sdk.chats``    chat and card times as apps write them, messages read one at a time

Names are imported on first use, so an adapter module that imports a few of them stays cheap
to load (detection imports every adapter).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..adapter import FormatAdapter
    from ..asread import json_as_read, remember_json, same_json
    from ..compare import json_equal
    from ..containers.media import ext_is_plausible, sniff_media
    from ..errors import (
        BunzaiError,
        ConversionRefused,
        LimitExceeded,
        MalformedInput,
        UnsupportedInput,
        UsageError,
    )
    from ..fidelity import Carried, reason_for, unheld
    from ..frozen import freeze, thaw, unfrozen
    from ..hookspecs import hookimpl
    from ..input import AdapterInput, ChunkPayload
    from ..jsonio import dumps, dumps_layout, loads, sniff_layout
    from ..kinds import ANY_KIND, KINDS
    from ..limits import Limits, get_limits, setting_hint
    from ..loss import LossEntry, LossReport
    from ..model import (
        PLACEMENTS,
        POSITIONS,
        ROLES,
        SELECTIVE_LOGIC,
        Alternative,
        Asset,
        Attachment,
        Character,
        Chat,
        ChatMessage,
        Entity,
        Lorebook,
        LorebookEntry,
        Module,
        Participant,
        Persona,
        Preset,
        RegexScript,
        field_defaults,
    )
    from ..neutral import Neutrality
    from ..types import (
        API_VERSION,
        Detection,
        FormatInfo,
        Issue,
        LabelRule,
        Option,
        OutputFile,
        ReadResult,
        WriteResult,
    )

_LAZY = {
    "FormatAdapter": "adapter", "hookimpl": "hookspecs",
    "API_VERSION": "types", "Detection": "types", "FormatInfo": "types", "Issue": "types",
    "LabelRule": "types", "OutputFile": "types", "ReadResult": "types", "WriteResult": "types",
    "Option": "types",
    "AdapterInput": "input", "ChunkPayload": "input",
    "LossEntry": "loss", "LossReport": "loss", "Neutrality": "neutral",
    "Carried": "fidelity", "unheld": "fidelity", "reason_for": "fidelity",
    "BunzaiError": "errors", "ConversionRefused": "errors", "LimitExceeded": "errors",
    "MalformedInput": "errors", "UnsupportedInput": "errors", "UsageError": "errors",
    "Entity": "model", "Character": "model", "Lorebook": "model", "LorebookEntry": "model",
    "Module": "model", "Persona": "model",
    "Preset": "model", "RegexScript": "model", "Asset": "model",
    "PLACEMENTS": "model", "POSITIONS": "model", "ROLES": "model", "SELECTIVE_LOGIC": "model",
    "Chat": "model", "ChatMessage": "model", "Participant": "model", "Alternative": "model",
    "Attachment": "model",
    "field_defaults": "model",
    "dumps": "jsonio", "loads": "jsonio", "sniff_layout": "jsonio", "dumps_layout": "jsonio",
    "thaw": "frozen", "freeze": "frozen", "unfrozen": "frozen",
    "json_equal": "compare",
    "json_as_read": "asread", "remember_json": "asread", "same_json": "asread",
    "Limits": "limits", "get_limits": "limits", "setting_hint": "limits",
    "sniff_media": "containers.media", "ext_is_plausible": "containers.media",
    "KINDS": "kinds", "ANY_KIND": "kinds",
}

__all__ = [
    "ANY_KIND",
    "API_VERSION",
    "KINDS",
    "PLACEMENTS",
    "POSITIONS",
    "ROLES",
    "SELECTIVE_LOGIC",
    "AdapterInput",
    "Alternative",
    "Asset",
    "Attachment",
    "BunzaiError",
    "Carried",
    "Character",
    "Chat",
    "ChatMessage",
    "ChunkPayload",
    "ConversionRefused",
    "Detection",
    "Entity",
    "FormatAdapter",
    "FormatInfo",
    "Issue",
    "LabelRule",
    "LimitExceeded",
    "Limits",
    "Lorebook",
    "LorebookEntry",
    "LossEntry",
    "LossReport",
    "MalformedInput",
    "Module",
    "Neutrality",
    "Option",
    "OutputFile",
    "Participant",
    "Persona",
    "Preset",
    "ReadResult",
    "RegexScript",
    "UnsupportedInput",
    "UsageError",
    "WriteResult",
    "dumps",
    "dumps_layout",
    "ext_is_plausible",
    "field_defaults",
    "freeze",
    "get_limits",
    "hookimpl",
    "json_as_read",
    "json_equal",
    "loads",
    "reason_for",
    "remember_json",
    "same_json",
    "setting_hint",
    "sniff_layout",
    "sniff_media",
    "thaw",
    "unfrozen",
    "unheld",
]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'bunzai.sdk' has no attribute {name!r}")
    from importlib import import_module
    value = getattr(import_module(f"bunzai.{module}"), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return [*__all__, "base64", "cards", "chats", "exif", "fields", "png", "zip"]

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

from typing import TYPE_CHECKING

from .._lazy import lazy_exports

if TYPE_CHECKING:
    from ..active.runs import RUNS_WHEN, Runs
    from ..errors import (
        BunzaiError,
        ConversionRefused,
        Issue,
        LimitExceeded,
        MalformedInput,
        UnsupportedInput,
        UsageError,
    )
    from ..host.adapter import FormatAdapter, detect_json
    from ..host.hookspecs import hookimpl
    from ..host.types import (
        API_VERSION,
        DetectedOrigin,
        Detection,
        FormatInfo,
        LabelRule,
        Option,
        ReadResult,
        WriteResult,
    )
    from ..io.asread import json_as_read, remember_json, same_json
    from ..io.compare import json_equal
    from ..io.containers.media import ext_is_plausible, sniff_media
    from ..io.frozen import freeze, thaw, unfrozen
    from ..io.input import AdapterInput, ChunkPayload
    from ..io.jsonio import dumps, dumps_layout, loads, sniff_layout
    from ..io.limits import Limits, get_limits, setting_hint
    from ..io.outputs import OutputFile
    from ..kinds import ANY_KIND, KINDS
    from ..loss.neutral import Neutrality
    from ..loss.report import LossEntry, LossReport
    from ..loss.rule import Carried, reason_for, unheld
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

_EXPORTS = {
    "bunzai.host.adapter": ("FormatAdapter", "detect_json"),
    "bunzai.host.hookspecs": ("hookimpl",),
    "bunzai.host.types": ("API_VERSION", "DetectedOrigin", "Detection", "FormatInfo", "LabelRule",
        "ReadResult", "WriteResult", "Option"),
    "bunzai.io.input": ("AdapterInput", "ChunkPayload"),
    "bunzai.loss.report": ("LossEntry", "LossReport"),
    "bunzai.loss.neutral": ("Neutrality",),
    "bunzai.loss.rule": ("Carried", "unheld", "reason_for"),
    "bunzai.io.outputs": ("OutputFile",),
    "bunzai.errors": ("Issue", "BunzaiError", "ConversionRefused", "LimitExceeded",
        "MalformedInput", "UnsupportedInput", "UsageError"),
    "bunzai.model": ("Entity", "Character", "Lorebook", "LorebookEntry", "Module", "Persona",
        "Preset", "RegexScript", "Asset", "PLACEMENTS", "POSITIONS", "ROLES", "SELECTIVE_LOGIC",
        "Chat", "ChatMessage", "Participant", "Alternative", "Attachment", "field_defaults"),
    "bunzai.io.jsonio": ("dumps", "loads", "sniff_layout", "dumps_layout"),
    "bunzai.io.frozen": ("thaw", "freeze", "unfrozen"),
    "bunzai.io.compare": ("json_equal",),
    "bunzai.io.asread": ("json_as_read", "remember_json", "same_json"),
    "bunzai.io.limits": ("Limits", "get_limits", "setting_hint"),
    "bunzai.io.containers.media": ("sniff_media", "ext_is_plausible"),
    "bunzai.kinds": ("KINDS", "ANY_KIND"),
    "bunzai.active.runs": ("Runs", "RUNS_WHEN"),
}


__all__ = [
    "ANY_KIND",
    "API_VERSION",
    "KINDS",
    "PLACEMENTS",
    "POSITIONS",
    "ROLES",
    "RUNS_WHEN",
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
    "DetectedOrigin",
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
    "Runs",
    "UnsupportedInput",
    "UsageError",
    "WriteResult",
    "detect_json",
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


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, also=(
    "base64", "cards", "chats", "exif", "fields", "png", "prompts", "zip"))

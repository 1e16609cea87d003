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

# Each export is named twice: here, for type checkers (``X as X`` re-exports it), and in
# ``_EXPORTS``, which imports it on first use and makes ``__all__``.
if TYPE_CHECKING:
    from ..active.runs import RUNS_WHEN as RUNS_WHEN
    from ..active.runs import Runs as Runs
    from ..errors import BunzaiError as BunzaiError
    from ..errors import ConversionRefused as ConversionRefused
    from ..errors import Issue as Issue
    from ..errors import LimitExceeded as LimitExceeded
    from ..errors import MalformedInput as MalformedInput
    from ..errors import UnsupportedInput as UnsupportedInput
    from ..errors import UsageError as UsageError
    from ..host.adapter import FormatAdapter as FormatAdapter
    from ..host.adapter import detect_json as detect_json
    from ..host.hookspecs import hookimpl as hookimpl
    from ..host.types import API_VERSION as API_VERSION
    from ..host.types import DetectedOrigin as DetectedOrigin
    from ..host.types import Detection as Detection
    from ..host.types import FormatInfo as FormatInfo
    from ..host.types import LabelRule as LabelRule
    from ..host.types import Option as Option
    from ..host.types import ReadResult as ReadResult
    from ..host.types import WriteResult as WriteResult
    from ..io.asread import json_as_read as json_as_read
    from ..io.asread import remember_json as remember_json
    from ..io.asread import same_json as same_json
    from ..io.compare import json_equal as json_equal
    from ..io.containers.media import ext_is_plausible as ext_is_plausible
    from ..io.containers.media import sniff_media as sniff_media
    from ..io.frozen import freeze as freeze
    from ..io.frozen import thaw as thaw
    from ..io.frozen import unfrozen as unfrozen
    from ..io.input import AdapterInput as AdapterInput
    from ..io.input import ChunkPayload as ChunkPayload
    from ..io.jsonio import dumps as dumps
    from ..io.jsonio import dumps_layout as dumps_layout
    from ..io.jsonio import loads as loads
    from ..io.jsonio import sniff_layout as sniff_layout
    from ..io.limits import Limits as Limits
    from ..io.limits import get_limits as get_limits
    from ..io.limits import setting_hint as setting_hint
    from ..io.outputs import OutputFile as OutputFile
    from ..kinds import ANY_KIND as ANY_KIND
    from ..kinds import KINDS as KINDS
    from ..loss.neutral import Neutrality as Neutrality
    from ..loss.report import LossEntry as LossEntry
    from ..loss.report import LossReport as LossReport
    from ..loss.rule import Carried as Carried
    from ..loss.rule import reason_for as reason_for
    from ..loss.rule import unheld as unheld
    from ..model import PLACEMENTS as PLACEMENTS
    from ..model import POSITIONS as POSITIONS
    from ..model import ROLES as ROLES
    from ..model import SELECTIVE_LOGIC as SELECTIVE_LOGIC
    from ..model import Alternative as Alternative
    from ..model import Asset as Asset
    from ..model import Attachment as Attachment
    from ..model import Character as Character
    from ..model import Chat as Chat
    from ..model import ChatMessage as ChatMessage
    from ..model import Entity as Entity
    from ..model import Lorebook as Lorebook
    from ..model import LorebookEntry as LorebookEntry
    from ..model import Module as Module
    from ..model import Participant as Participant
    from ..model import Persona as Persona
    from ..model import Preset as Preset
    from ..model import RegexScript as RegexScript
    from ..model import field_defaults as field_defaults

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


__getattr__, __dir__ = lazy_exports(__name__, _EXPORTS, also=(
    "base64", "cards", "chats", "exif", "fields", "png", "prompts", "zip"))

"""Chats for format adapters: times as each app writes them, and messages read one at a time.

A chat reader parses a message's time with :func:`parse_time` (every form real files use) and
keeps the original text as layout (:func:`take_time` does both); its writer calls
:func:`restore`, which writes that text again while the time is unchanged.  A card's ISO 8601
dates (Unix seconds in the model) are read with :func:`iso_seconds`.  A reader of a large
file hands the chat a :class:`LazyMessages` so the log is never held whole, and a reader of a
small one calls :func:`held_or_lazy`, so a file of tiny messages is not held whole either;
:func:`check_alternatives` refuses a message with more swipes than :data:`MAX_ALTERNATIVES`.
What every chat format declares and does alike is here too (:mod:`bunzai.chatkit.shared`):
message paths (:func:`message`, :data:`MESSAGE`), one reason for several paths
(:func:`because`, :data:`CHAT_TEXTS`, :func:`no_extensions`), a chat's layout and app data
(:func:`layout_of`, :func:`data_of`, :func:`record`), a text read into its field or kept as
it was (:func:`take_text`) and written back (:func:`put_kept`), a JSON chat file read and
written (:func:`json_object`, :func:`json_file`), and what writers report alike
(:func:`lone_alternative`, :func:`report_participants`, :func:`wall_note`).  The chat model
itself (``Chat``, ``ChatMessage``, ``Participant``, ``Alternative``, ``Attachment``) is in
:mod:`bunzai.sdk`.

Import-light: detectors may use the time helpers; the model names load on first use.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..chatkit.shared import (
    CHAT_TEXTS,
    MESSAGE,
    because,
    data_of,
    json_file,
    json_object,
    layout_of,
    lone_alternative,
    message,
    no_extensions,
    put_kept,
    record,
    report_participants,
    take_text,
    wall_note,
)
from ..chatkit.times import (
    EPOCH,
    FORMS,
    WALL_FORMS,
    ZONES,
    exact_in,
    format_time,
    from_epoch_ms,
    is_wall,
    iso_seconds,
    parse_form,
    parse_time,
    put_time,
    restore,
    stored,
    take_time,
    to_epoch_ms,
    zone_note,
)

if TYPE_CHECKING:
    from ..model.chat import (
        ATTACHMENT_TYPES,
        HELD_ITEMS,
        MAX_ALTERNATIVES,
        ROLES,
        LazyMessages,
        check_alternatives,
        held_or_lazy,
    )

__all__ = [
    "ATTACHMENT_TYPES", "CHAT_TEXTS", "EPOCH", "FORMS", "HELD_ITEMS", "MAX_ALTERNATIVES",
    "MESSAGE", "ROLES", "WALL_FORMS", "ZONES", "LazyMessages", "because", "check_alternatives",
    "data_of", "exact_in", "format_time", "from_epoch_ms", "held_or_lazy", "is_wall",
    "iso_seconds", "json_file", "json_object", "layout_of", "lone_alternative", "message",
    "no_extensions", "parse_form", "parse_time", "put_kept", "put_time", "record",
    "report_participants", "restore", "stored", "take_text", "take_time", "to_epoch_ms",
    "wall_note", "zone_note",
]
_MODEL_NAMES = ("ATTACHMENT_TYPES", "HELD_ITEMS", "MAX_ALTERNATIVES", "ROLES", "LazyMessages",
                "check_alternatives", "held_or_lazy")


def __getattr__(name: str) -> Any:
    if name in _MODEL_NAMES:
        from ..model import chat
        value = getattr(chat, name)
        globals()[name] = value
        return value
    raise AttributeError(f"module 'bunzai.sdk.chats' has no attribute {name!r}")

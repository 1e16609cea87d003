"""``backyard-chat``: Backyard AI (formerly Faraday) chat exports.

A chat export is ``{"chat": {"ChatItems": [{"input", "output", "createdAt"}]}, "version": 2}``,
one item per turn: what the user typed and what the character answered.  Version 1 wrote
``createdAt`` as text, version 2 as epoch milliseconds.  The chats inside a Backyard archive
(``.byaf`` scenarios) are reached with ``bunzai chat extract`` / ``embed`` instead.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from bunzai.sdk import DetectedOrigin, FormatAdapter, detect_json
from bunzai.sdk.chats import CHAT_TEXTS, because, message, no_extensions
from bunzai.sdk.chats import MESSAGE as M

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput

FORMAT_ID = "backyard-chat"


def score(data: Any) -> tuple[float, str]:
    if not isinstance(data, Mapping) or "schema_version" in data:
        return 0.0, ""
    chat = data.get("chat")
    if not isinstance(chat, Mapping):
        return 0.0, ""
    items = chat.get("ChatItems")
    if not isinstance(items, Sequence) or isinstance(items, str):
        return 0.0, ""
    version = data.get("version")
    if isinstance(version, int) and not isinstance(version, bool):
        return 0.95, f"Backyard chat export (version {version}, chat.ChatItems)"
    return 0.8, "chat.ChatItems without a version number"


CARRIES: tuple[str, ...] = message("role", "text", "time")
"""What a Backyard chat export holds: what the user typed and what the character answered,
with one date per turn (the writer reports a reply dated otherwise)."""

REASONS: tuple[tuple[str, str], ...] = (
    *because("a Backyard chat export names no one", "participants", M + "speaker"),
    *because("a Backyard chat export holds only the turns", *CHAT_TEXTS),
    *no_extensions("Backyard"),
    *because("a Backyard chat export keeps only the shown reply",
             *message("alternatives", "chosen")),
    *because("a Backyard chat export holds what was typed and answered only",
             *message("hidden", "reasoning", "model", "bookmark")),
    (M + "attachments", "a Backyard chat export holds text only"),
)
WRITER_REASONS = {
    "role": "a Backyard chat export holds user inputs and character outputs only",
    "time": "a Backyard date keeps milliseconds",
    "time_zone": "Backyard dates are instants: the chat's wall-clock times, which carry no "
                 "zone, were read in the zone named on reading",
    "reply_time": "a Backyard chat export has one createdAt per turn: the user's",
    "empty": "an empty message is no input or output in a Backyard export",
}
"""Why the writer writes a value differently, keyed by what it is about."""


class BackyardChatAdapter(FormatAdapter):
    """Backyard AI chat exports: one item per turn (input, output, createdAt)."""

    format_id = FORMAT_ID
    kind = "chat"
    label = "Backyard AI chat export"
    aliases = ("faraday-chat",)
    carries = CARRIES
    reasons = REASONS
    signature = {"json": ("chat",)}
    detection = (
        ("chat.ChatItems array and a numeric version", 0.95),
        ("chat.ChatItems array without a version", 0.8),
        ("anything else (cards with a Chat[] list included)", 0.0),
    )
    losses = (
        ("messages[].role narrator / system", "approximated: written as the character's "
                                              "output"),
        ("messages[].time of a reply", "approximated: one createdAt per turn, the user's"),
    )
    reader = "io:read_chat"
    writer = "io:write_chat"

    detect = detect_json(score)
    origin = DetectedOrigin("Backyard AI", 0.9, "backyard-chat-export")

    def origin_evidence(self, input: AdapterInput, reason: str) -> str:
        return reason + ": Backyard AI's (Faraday's) chat export"


__all__ = ["CARRIES", "FORMAT_ID", "REASONS", "BackyardChatAdapter", "score"]

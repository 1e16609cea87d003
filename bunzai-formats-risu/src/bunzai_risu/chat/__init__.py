"""``risu-chat``: RisuAI chat exports (``type: "risuChat"``) and all-chats exports.

RisuAI's "Export as JSON" (``exportChat`` in ``src/ts/characters.ts``) writes one compact line
``{"type": "risuChat", "ver": 2, "data": <Chat>, "folders": [...]}``; "export all chats" writes
``type: "risuAllChats"`` with a list of chats.  Version 1 exports (``ver: 1``, no folders) still
import.  A Chat is RisuAI's own object (``src/ts/storage/database.svelte.ts``): ``message[]``
(``role`` user/char, ``data``, ``time``, ``chatId``, ``saying``, ``generationInfo``,
``disabled``, ``isComment``), ``note`` (author's note), ``name``, ``localLore`` (chat lorebook
entries), bookmarks and RisuAI's memory and script state.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bunzai.sdk import DetectedOrigin, FormatAdapter, detect_json
from bunzai.sdk.chats import CHAT_TEXTS, because, message, no_extensions
from bunzai.sdk.chats import MESSAGE as M

from .._common.runs import RISU_CHAT

FORMAT_ID = "risu-chat"
TYPES = ("risuChat", "risuAllChats")


def _is_chat(obj: Any) -> bool:
    return isinstance(obj, Mapping) and isinstance(obj.get("message"), Sequence) \
        and not isinstance(obj.get("message"), str)


def score(data: Any) -> tuple[float, str]:
    if not isinstance(data, Mapping) or data.get("type") not in TYPES:
        return 0.0, ""
    inner = data.get("data")
    if data["type"] == "risuChat" and _is_chat(inner):
        return 0.95, f"RisuAI chat export (risuChat, ver {data.get('ver')})"
    if data["type"] == "risuAllChats" and isinstance(inner, Sequence) and not isinstance(
            inner, str) and all(_is_chat(c) for c in inner):
        return 0.95, f"RisuAI all-chats export ({len(inner)} chats)"
    return 0.6, f"type {data['type']} without a usable chat in data"


CARRIES: tuple[str, ...] = (
    "title", "notes", "lorebook.entries",
    *message("role", "speaker", "text", "time", "hidden", "model", "bookmark"),
)
"""What a RisuAI chat holds: its name, author's note and local lorebook entries (the family's
lorebook writer reports what a RisuAI entry cannot hold); each message's side, text, time,
model, bookmark and disabled flag (names as the writer reports)."""

REASONS: tuple[tuple[str, str], ...] = (
    ("participants", "RisuAI names the user and the character from its settings"),
    *because("a RisuAI chat has no such field", *(
        f for f in CHAT_TEXTS if f not in ("title", "notes", "lorebook"))),
    ("lorebook", "a RisuAI chat's lorebook is a bare list of entries"),
    *no_extensions("RisuAI"),
    *because("RisuAI keeps one text per message", *message("alternatives", "chosen")),
    (M + "reasoning", "RisuAI keeps no reasoning with a message"),
    (M + "attachments", "RisuAI chat messages hold text only"),
)
NEUTRAL: tuple[tuple[str, Any], ...] = (
    (f"app_data.{FORMAT_ID}.fmIndex", (-1,)),
)
"""A chat started from the character's first greeting (``fmIndex`` -1, what RisuAI gives a new
chat and bunzai writes): no choice of greeting to keep."""

WRITER_REASONS = {
    "role": "RisuAI messages are the user's or the character's",
    "speaker": "RisuAI shows its own names for the user and the character",
    "time": "RisuAI times are epoch milliseconds",
    "time_zone": "RisuAI times are instants (epoch milliseconds): the chat's wall-clock times, "
                 "which carry no zone, were read in the zone named on reading",
    "folders": "a RisuAI export has one folder list for all its chats",
    "lorebook": "a RisuAI chat's lorebook is its list of entries: a book without entries is "
                "none",
}
"""Why the writer writes a value differently, keyed by what it is about."""


class RisuChatAdapter(FormatAdapter):
    """RisuAI chat exports: one chat (risuChat) or every chat of a character (risuAllChats)."""

    format_id = FORMAT_ID
    kind = "chat"
    runs = RISU_CHAT
    label = "RisuAI chat export"
    multi = True
    carries = CARRIES
    reasons = REASONS
    neutral = NEUTRAL
    signature = {"json": ("type",)}
    detection = (
        ("type risuChat with a chat (message list) in data", 0.95),
        ("type risuAllChats with a list of chats in data", 0.95),
        ("either type without a usable chat (read says what is wrong)", 0.6),
        ("anything else", 0.0),
    )
    losses = (
        ("messages[].speaker of most messages", "dropped: RisuAI names the user and the "
                                                "character from its own settings"),
        ("messages[].role narrator", "approximated: written as the character's message"),
    )
    reader = "io:read_export"
    writer = "io:write_export"

    detect = detect_json(score)
    origin = DetectedOrigin("RisuAI", 0.95, "risu-chat-export")


__all__ = ["CARRIES", "FORMAT_ID", "REASONS", "RisuChatAdapter", "score"]

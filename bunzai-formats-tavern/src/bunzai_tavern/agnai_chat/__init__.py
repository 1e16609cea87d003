"""``agnai-chat``: Agnai (Agnaistic) chat exports.

Agnai's "Export Chat" (``web/pages/Chat/ChatExport.tsx``) downloads
``JSON.stringify({name, greeting, sampleChat, scenario, messages}, null, 2)``, each message
``{handle, userId, characterId: "imported", msg, state}`` with absent values left out; its
importer (``srv/api/chat/create.ts``) also takes ``ooc`` and ``retries``.  Messages copied from
Agnai's own store carry ``_id``, ``createdAt``, ``parent``, ``name`` and ``system`` too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from bunzai.sdk import DetectedOrigin, FormatAdapter, detect_json
from bunzai.sdk.chats import MESSAGE as M
from bunzai.sdk.chats import because, message, no_extensions

from .._common.runs import AGNAI_CHAT

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput

FORMAT_ID = "agnai-chat"
CHAT_TEXTS = ("name", "greeting", "sampleChat", "scenario")


def score(data: Any) -> tuple[float, str]:
    if not isinstance(data, Mapping) or "kind" in data or "schema_version" in data:
        return 0.0, ""
    messages = data.get("messages")
    if not isinstance(messages, Sequence) or isinstance(messages, str):
        return 0.0, ""
    if not all(isinstance(m, Mapping) and isinstance(m.get("msg"), str) for m in messages):
        return 0.0, ""
    if all(isinstance(data.get(k), str) for k in CHAT_TEXTS):
        return 0.95, "Agnai chat export (name, greeting, sampleChat, scenario, messages[].msg)"
    if messages and all("userId" in m or "characterId" in m for m in messages):
        return 0.7, "messages with msg and userId/characterId (Agnai's shape)"
    return 0.0, ""


CARRIES: tuple[str, ...] = (
    "title", "greeting", "example_dialogue", "scenario",
    *message("role", "speaker", "text", "time", "hidden", "chosen", "alternatives[*].text"),
)
"""What an Agnai chat export holds: the chat's four texts; each message's side, text, retries
and out-of-character flag (names and dates as the writer reports)."""

REASONS: tuple[tuple[str, str], ...] = (
    ("participants", "an Agnai export names no participants"),
    *because("an Agnai export carries no dates", "created", "time_zone"),
    *because("an Agnai export holds the chat's texts and messages only",
             "notes", "memory", "system_prompt", "branch_of"),
    ("lorebook", "Agnai keeps memory books apart from chats"),
    *no_extensions("Agnai"),
    (M + "reasoning", "Agnai's export keeps no reasoning"),
    (M + "model", "Agnai's export does not record the model"),
    (M + "bookmark", "Agnai has no bookmarks"),
    (M + "attachments", "Agnai's export holds text only"),
    *because("Agnai keeps retries as bare texts", *message("alternatives[*].time",
                                                           "alternatives[*].reasoning")),
)
WRITER_REASONS = {
    "title": "\"Exported\" is the name Agnai gives every exported chat",
    "time": "Agnai's export carries no dates: its importer dates messages itself",
    "time_ms": "Agnai dates keep milliseconds",
    "speaker": "Agnai names a character message after the chat's character",
    "alternatives": "Agnai keeps the shown reply first and the others as retries",
    "chosen": "Agnai shows the first reply",
    "single": "Agnai keeps retries only beside a reply",
}
"""Why the writer writes a value differently, keyed by the field."""


class AgnaiChatAdapter(FormatAdapter):
    """Agnai chat exports: the chat's texts and its messages (msg, userId / characterId)."""

    format_id = FORMAT_ID
    kind = "chat"
    runs = AGNAI_CHAT
    label = "Agnai chat export"
    aliases = ("agnaistic-chat",)
    carries = CARRIES
    reasons = REASONS
    signature = {"json": ("messages",)}
    detection = (
        ("messages[].msg with name, greeting, sampleChat and scenario texts", 0.95),
        ("messages[].msg with userId / characterId on every message", 0.7),
        ("Agnai characters and memory books (kind), anything else", 0.0),
    )
    losses = (
        ("messages[].time", "dropped: Agnai's export carries no dates"),
        ("messages[].speaker of characters", "dropped: Agnai names the chat's character"),
        ("messages[].alternatives[].text order", "approximated: the shown reply first, the "
                                                  "others as retries"),
    )
    reader = "io:read_chat"
    writer = "io:write_chat"

    detect = detect_json(score)
    origin = DetectedOrigin("Agnai", 0.9, "agnai-chat-export")

    def origin_evidence(self, input: AdapterInput, reason: str) -> str:
        messages = input.json.get("messages") or []
        if any(m.get("characterId") == "imported" for m in messages):
            return reason + '; characterId "imported", as Agnai\'s export writes it'
        return reason


__all__ = ["CARRIES", "FORMAT_ID", "REASONS", "AgnaiChatAdapter", "score"]

"""``oobabooga-chat``: text-generation-webui chat histories.

``save_history`` in ``modules/chat.py`` writes ``json.dumps(history, indent=4,
ensure_ascii=False)`` of ``{"internal": [[user, reply], …], "visible": [[…]], "metadata":
{"user_N"/"assistant_N": {timestamp, versions, current_version_index, attachments}}}``: one
row per exchange, the raw text in ``internal`` and the HTML-escaped text shown in ``visible``.
Before July 2023 the file was ``{"data": …, "data_visible": …}`` (``indent=2``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bunzai.sdk import DetectedOrigin, FormatAdapter, detect_json
from bunzai.sdk.chats import CHAT_TEXTS, because, message, no_extensions
from bunzai.sdk.chats import MESSAGE as M

from .._common.options import ZONE

FORMAT_ID = "oobabooga-chat"


def _rows(value: Any) -> bool:
    return isinstance(value, Sequence) and not isinstance(value, str) and all(
        isinstance(r, Sequence) and not isinstance(r, str) and len(r) == 2 for r in value)


def score(data: Any) -> tuple[float, str]:
    if not isinstance(data, Mapping) or "schema_version" in data:
        return 0.0, ""
    if _rows(data.get("internal")) and _rows(data.get("visible")):
        return 0.95, "text-generation-webui history (internal, visible)"
    if _rows(data.get("data")) and _rows(data.get("data_visible")):
        return 0.9, "text-generation-webui history before July 2023 (data, data_visible)"
    return 0.0, ""


CARRIES: tuple[str, ...] = ("time_zone", *message(
    "role", "text", "time", "chosen", "alternatives[*].text", "alternatives[*].time",
    "attachments[*].type", "attachments[*].name", "attachments[*].uri",
    "attachments[*].media_type", "attachments[*].text", "attachments[*].data"))
"""What a webui history holds: each message's side, text and time (a wall-clock text, in the
chat's zone), its versions (with their times) and its embedded images and text files (the
writer reports the rest of attachments)."""

REASONS: tuple[tuple[str, str], ...] = (
    *because("the history names no one: the names come from the webui's settings",
             "participants", M + "speaker"),
    *because("a webui history holds only the exchanges", *CHAT_TEXTS),
    *no_extensions("the webui", M + "attachments[*].extensions"),
    (M + "hidden", "the webui cannot hide a message"),
    (M + "reasoning", "the webui keeps reasoning inside the reply's text"),
    (M + "model", "the history does not record the model"),
    (M + "bookmark", "the webui has no bookmarks"),
    (M + "alternatives[*].reasoning", "the webui keeps a version's text only"),
    (M + "attachments[*].title", "the webui keeps an attachment's name, type and content"),
)
WRITER_REASONS = {
    "role": "a history row holds the user's message and the reply",
    "time": "the webui stamps messages to the minute",
    "single": "the webui keeps versions only when there are two or more",
    "empty": "a history row holds no empty message",
    "time_zone": "the webui writes times as wall-clock texts without a zone: the chat's are "
                 "written in this machine's local time",
    "padded": "a history row pairs each user message with a reply, and the webui shows the "
              "reply even when it is empty",
    "attachment": "the webui keeps embedded images and text files only",
    "attachment_shape": "the webui keeps an image as its data URL and a file as its name, "
                        "type and text",
}
"""Why the writer writes a value differently, keyed by what it is about."""


class OobaboogaChatAdapter(FormatAdapter):
    """oobabooga's text-generation-webui chat histories: rows of [user, reply]."""

    format_id = FORMAT_ID
    kind = "chat"
    label = "oobabooga text-generation-webui history"
    aliases = ("ooba", "textgen-chat")
    carries = CARRIES
    options = (ZONE,)
    reasons = REASONS
    # each branch of score needs its second list: internal (with visible), or data_visible
    # (with data); a card's top-level "data" alone never scores
    signature = {"json": ("internal", "data_visible")}
    detection = (
        ("internal and visible lists of [user, reply] rows", 0.95),
        ("data and data_visible lists of rows (before July 2023)", 0.9),
        ("anything else", 0.0),
    )
    losses = (
        ("messages[].role narrator / system", "approximated: written as a reply"),
        ("messages[].time", "approximated: minutes, local clock (\"Nov 03, 2024 21:04\")"),
        ("messages[].attachments by reference", "dropped: only embedded images and text "
                                                "files travel"),
    )
    reader = "io:read_chat"
    writer = "io:write_chat"

    detect = detect_json(score)
    origin = DetectedOrigin("oobabooga text-generation-webui", 0.9, "oobabooga-history",
                            at_least=0.9)


__all__ = ["CARRIES", "FORMAT_ID", "REASONS", "OobaboogaChatAdapter", "score"]

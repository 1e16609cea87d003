"""``sillytavern-chat``: SillyTavern chat logs (``.jsonl``), single-character and group chats.

Line 1 is a header (``user_name``, ``character_name``, ``create_date``, ``chat_metadata``; 1.15
writes ``chat_metadata`` first and ``"unused"`` names) and every further line is a message.
Group chats up to 1.13 have no header: line 1 is already a message (often with ``is_group``).
Detection reads the first three lines only (``AdapterInput.jsonl_head``); reading streams the
file one message at a time.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from bunzai.sdk import FormatAdapter
from bunzai.sdk.chats import MESSAGE as M
from bunzai.sdk.chats import message, no_extensions

from .._common.options import ZONE
from .._common.runs import ST_CHAT

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput

FORMAT_ID = "sillytavern-chat"
HEADER_KEYS = ("user_name", "character_name", "chat_metadata", "create_date")
ST_TIME_FORMS = ("st_meridiem", "st_humanized", "st_humanized_ms", "iso_js")
"""send_date forms only SillyTavern writes (TavernAI writes epoch milliseconds)."""



def records(input: AdapterInput) -> tuple[Any, ...]:
    """The first records of a chat file: up to three JSONL lines, or a one-line JSON file."""
    if input.container == "jsonl":
        return input.jsonl_head
    if input.container == "json":
        data = input.json
        return (data,) if isinstance(data, Mapping) else ()
    return ()


def is_message(obj: Any) -> bool:
    return isinstance(obj, Mapping) and ("mes" in obj or "is_user" in obj)


def is_header(obj: Any) -> bool:
    return (isinstance(obj, Mapping) and not is_message(obj)
            and any(k in obj for k in HEADER_KEYS))


def st_marks(msg: Any) -> list[str]:
    """Evidence that a message line was written by SillyTavern, not TavernAI."""
    if not isinstance(msg, Mapping):
        return []
    from bunzai.sdk.chats import parse_form

    marks = [k for k in ("is_system", "swipe_info", "force_avatar", "original_avatar",
                         "is_group", "gen_started") if k in msg]
    if isinstance(msg.get("extra"), Mapping):
        marks.append("extra")
    form = parse_form(msg.get("send_date"))
    if form is not None and form[1] in ST_TIME_FORMS:
        marks.append(f"send_date as {form[1]}")
    return marks


def score(input: AdapterInput) -> tuple[float, str]:
    recs = records(input)
    if not recs:
        return 0.0, ""
    first = recs[0]
    if is_header(first):
        if "character_names" in first:
            return 0.0, ""  # a TavernAI room
        if isinstance(first.get("chat_metadata"), Mapping):
            return 0.95, "SillyTavern chat header (chat_metadata)"
        marks = [m for r in recs[1:] for m in st_marks(r)]
        if marks:
            return 0.8, f"chat header without chat_metadata; messages carry {marks[0]}"
        return 0.0, ""
    if input.container == "jsonl" and is_message(first):
        if first.get("is_group") is True:
            return 0.9, "SillyTavern group chat without a header (first message is_group)"
        marks = st_marks(first)
        if marks:
            return 0.85, f"SillyTavern group chat without a header ({marks[0]})"
    return 0.0, ""


CARRIES: tuple[str, ...] = (
    "participants[*].name", "participants[*].role", "created", "notes", "scenario",
    "branch_of", "time_zone",
    *message("role", "speaker", "text", "time", "hidden", "chosen", "reasoning", "model",
             "bookmark", "alternatives[*].text", "alternatives[*].time",
             "alternatives[*].reasoning", "attachments[*].type", "attachments[*].name",
             "attachments[*].uri", "attachments[*].title"),
)
"""What a SillyTavern chat file holds: the header's two names, its date, author's note, branch
and scenario; each message with its swipes, reasoning, model, bookmark and attachments; and
wall-clock dates, whose zone the writer reports when it writes none of them as such."""

REASONS: tuple[tuple[str, str], ...] = (
    ("title", "a SillyTavern chat is named by its file, not by a field"),
    ("participants", "a SillyTavern chat names one user and one character"),
    ("participants[*].avatar", "SillyTavern finds avatars by the character, not in the chat"),
    ("memory", "SillyTavern keeps summaries per message (Summarize extension), not per chat"),
    ("greeting", "a SillyTavern chat starts with the card's greeting as a message"),
    ("example_dialogue", "example dialogue lives on the card in SillyTavern"),
    ("system_prompt", "the system prompt lives on the card or preset in SillyTavern"),
    ("lorebook", "a SillyTavern chat links a lorebook by name, it cannot hold one"),
    *no_extensions("SillyTavern", M + "attachments[*].extensions"),
    (M + "attachments", "SillyTavern keeps a message's image, file and media apart: mixed "
                        "attachments come back grouped"),
    (M + "attachments[*].uri", "SillyTavern keeps an attachment by its address: one without "
                               "an address or bytes is gone"),
    (M + "attachments[*].data", "SillyTavern keeps an attachment by its address: its bytes "
                                "are written as a data URL"),
    (M + "attachments[*].media_type", "SillyTavern keeps an attachment by its address only"),
    (M + "attachments[*].text", "SillyTavern keeps no extracted text for an attachment"),
    (M + "alternatives", "SillyTavern keeps swipes only when there are two or more"),
)
WRITER_REASONS = {
    "participants": "a SillyTavern chat names one user and one character",
    "speaker": "SillyTavern needs a name on every message: the chat's user or character "
               "name is written",
    "time": "SillyTavern dates keep milliseconds",
    "created": "SillyTavern dates keep milliseconds",
    "time_zone": "the chat's dates are written as instants (epoch milliseconds): their "
                 "wall-clock texts, which carry no zone, were read in the zone named on reading",
    "alternatives": "SillyTavern keeps swipes only when there are two or more",
    "attachments": dict(REASONS)[M + "attachments"],
    "attachments[*].uri": dict(REASONS)[M + "attachments[*].uri"],
    "attachments[*].data": dict(REASONS)[M + "attachments[*].data"],
}
"""Why the writer writes a value differently, keyed by the path below the message or chat."""

NEUTRAL: tuple[tuple[str, Any], ...] = (
    (M + "app_data.sillytavern-chat.extra.isSmallSys", (False,)),
    (M + "app_data.sillytavern-chat.extra.inline_image", (False,)),
)
"""SillyTavern's own message flags at the values every message gets."""


class SillyTavernChatAdapter(FormatAdapter):
    """SillyTavern chats: one JSON object per line, a header then the messages."""

    format_id = FORMAT_ID
    kind = "chat"
    runs = ST_CHAT
    label = "SillyTavern chat (JSONL)"
    suffix = ".jsonl"
    aliases = ("st-chat", "jsonl", "json")
    default_for_kind = True
    carries = CARRIES
    reasons = REASONS
    neutral = NEUTRAL
    # a header (JSON or the first line) or, in JSON Lines, a message first
    # A JSON (not JSON Lines) file is one record: only a header with chat_metadata can score.
    signature = {"json": ("chat_metadata",), "jsonl": (*HEADER_KEYS, "mes", "is_user")}
    detection = (
        ("header line with a chat_metadata object", 0.95),
        ("no header line; first message has is_group (group chats up to 1.13)", 0.9),
        ("no header line; first message in SillyTavern's shape (is_system, extra, "
         "swipe_info, avatars, a SillyTavern date)", 0.85),
        ("header without chat_metadata, messages in SillyTavern's shape", 0.8),
        ("TavernAI headers and messages (epoch dates, no SillyTavern marks), rooms", 0.0),
    )
    losses = (
        ("participants beyond one user and one character; narrators", "dropped"),
        ("messages[].speaker (none)", "approximated: written as the chat's user or character "
                                      "name, else User / Assistant"),
    )
    options = (ZONE,)
    reader = "read:read_chat"
    writer = "write:write_chat"

    def detect(self, input: AdapterInput) -> tuple[float, str]:
        return score(input)


__all__: Sequence[str] = ["CARRIES", "FORMAT_ID", "REASONS", "SillyTavernChatAdapter", "score"]

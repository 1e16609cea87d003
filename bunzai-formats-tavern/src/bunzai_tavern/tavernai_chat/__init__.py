"""``tavernai-chat``: TavernAI chats: 1.2-1.5 ``.jsonl`` logs and rooms, and the legacy array.

TavernAI 1.2-1.5 (``server.js`` ``/savechat``, ``/savechatroom``) writes a header line
(``user_name``, ``character_name`` or a room's ``character_names[]``, epoch-millisecond
``create_date``; 1.5 adds ``notes``, ``notes_type``, ``mode``, rooms a ``scenario``) and one
message per line (``name``, ``is_user``, ``is_name``, epoch-ms ``send_date``, ``mes``; 1.3
``swipes``/``swipe_id``, 1.5 ``chid``).  TavernAI up to 1.1 kept a chat as a JSON array of
``"Name: text"`` strings.  CAI Tools' "Download as Tavern chat" writes the same lines (see
the labeler).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from bunzai.sdk import FormatAdapter, Option
from bunzai.sdk.chats import MESSAGE as M
from bunzai.sdk.chats import because, message, no_extensions

from .._common.options import ZONE

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput

FORMAT_ID = "tavernai-chat"
LEGACY_LINE = re.compile(r"[^\n:]{1,80}: ", re.DOTALL)


def _records(input: AdapterInput) -> tuple[Any, ...]:
    from ..sillytavern_chat import records
    return records(input)


def _is_legacy(data: Any) -> bool:
    return (isinstance(data, Sequence) and not isinstance(data, str) and len(data) > 0
            and all(isinstance(x, str) and LEGACY_LINE.match(x) for x in data))


def score(input: AdapterInput) -> tuple[float, str]:
    from ..sillytavern_chat import is_header, is_message, st_marks

    if input.container == "json" and _is_legacy(input.json):
        return 0.75, "JSON array of \"Name: text\" lines (TavernAI up to 1.1)"
    recs = _records(input)
    if not recs or not is_header(recs[0]):
        return 0.0, ""
    head = recs[0]
    if "chat_metadata" in head:
        return 0.0, ""  # SillyTavern
    if any(st_marks(m) for m in recs[1:]):
        return 0.0, ""
    if not isinstance(head.get("user_name"), str):
        return 0.0, ""
    names = head.get("character_names")
    if isinstance(names, Sequence) and not isinstance(names, str):
        return 0.9, "TavernAI room header (character_names)"
    if "character_name" not in head:
        return 0.0, ""
    if any(k in head for k in ("notes", "notes_type", "mode")):
        return 0.9, "TavernAI 1.5 chat header (notes, notes_type)"
    date = head.get("create_date")
    if isinstance(date, int | float) and not isinstance(date, bool) and all(
            is_message(m) for m in recs[1:]):
        return 0.85, "TavernAI chat header (epoch-ms create_date, no chat_metadata)"
    return 0.0, ""


CARRIES: tuple[str, ...] = (
    "participants[*].name", "participants[*].role", "created", "notes", "scenario",
    "time_zone", *message("role", "speaker", "text", "time", "chosen", "alternatives[*].text"),
)
"""What a TavernAI 1.5 chat holds: the user's and the characters' names, the start date, the
notes and scenario; each message's name, side, date and text, and its swipes' texts."""

LEGACY_CARRIES: tuple[str, ...] = (
    "participants[*].name", "participants[*].role", *message("role", "speaker", "text"))
"""What a legacy array of ``"Name: text"`` lines holds (written only with ``shape=array``)."""

REASONS: tuple[tuple[str, str], ...] = (
    ("title", "a TavernAI chat is named by its file"),
    ("participants", "a TavernAI chat names one user and its characters"),
    ("participants[*].avatar", "TavernAI finds avatars by the character, not in the chat"),
    ("memory", "TavernAI chats keep no memory"),
    ("greeting", "a TavernAI chat starts with the card's greeting as a message"),
    ("example_dialogue", "example dialogue lives on the TavernAI card"),
    ("system_prompt", "TavernAI keeps the system prompt in its settings"),
    ("branch_of", "TavernAI chats have no branches"),
    ("lorebook", "TavernAI world info is not part of a chat"),
    ("created", "a legacy TavernAI chat has no date"),
    *because("a legacy TavernAI chat holds only \"Name: text\" lines", "notes", "scenario"),
    *no_extensions("TavernAI"),
    (M + "hidden", "TavernAI cannot hide a message from the prompt"),
    (M + "reasoning", "TavernAI keeps no reasoning"),
    (M + "model", "TavernAI does not record the model"),
    (M + "bookmark", "TavernAI has no bookmarks"),
    (M + "attachments", "TavernAI messages have no attachments"),
    (M + "time", "a legacy TavernAI chat has no dates"),
    (M + "alternatives", "TavernAI keeps swipes only when there are two or more"),
    (M + "alternatives[*]", "a TavernAI swipe is its text alone"),
    (M + "alternatives[*].time", "TavernAI swipes have no dates"),
    (M + "alternatives[*].reasoning", "TavernAI keeps no reasoning"),
    (M + "chosen", "a legacy TavernAI chat has no swipes"),
)
WRITER_REASONS = {
    "participants": "a TavernAI chat names one user and its characters",
    "user_name": "a TavernAI chat names its user: \"You\", TavernAI's default, is written",
    "speaker": "TavernAI needs a name on every message",
    "time": "TavernAI dates are epoch milliseconds",
    "send_date": "TavernAI needs a date on every message: the previous message's is written",
    "created": "TavernAI dates are epoch milliseconds",
    "time_zone": "TavernAI dates are instants (epoch milliseconds): the chat's wall-clock "
                 "times, which carry no zone, were read in the zone named on reading",
    "role": "TavernAI has only user and character messages",
    "alternatives": "TavernAI keeps swipes only when there are two or more",
    "earlier_swipes": "TavernAI keeps swipes only on the chat's last message (it deletes them "
                      "from earlier replies when it saves): the shown reply is kept",
    "legacy": "a legacy TavernAI chat line is \"Name: text\", with no colon in the name",
    "legacy_speaker": "a legacy TavernAI chat line names its speaker",
    "legacy_role": "in a legacy TavernAI chat the user is \"You\" and every other name a "
                   "character",
    "legacy_participants": "a legacy TavernAI chat's characters are the names in its lines",
}
"""Why the writer writes a value differently, keyed by the path below the message or chat."""

NEUTRAL: tuple[tuple[str, Any], ...] = (
    ("app_data.tavernai-chat.notes_type", ("discr",)),
    ("app_data.tavernai-chat.mode", ("chat",)),
)
"""TavernAI 1.5's header settings at the values every new chat gets."""


class TavernAIChatAdapter(FormatAdapter):
    """TavernAI chats (.jsonl, rooms) and TavernAI's legacy "Name: text" arrays."""

    format_id = FORMAT_ID
    kind = "chat"
    label = "TavernAI chat (JSONL)"
    suffix = ".jsonl"
    aliases = ("tavernai",)
    carries = CARRIES
    reasons = REASONS
    neutral = NEUTRAL
    options = (
        ZONE,
        Option("shape", choices=("jsonl", "array"), default="jsonl",
               help="array: TavernAI 1.1's JSON array of \"Name: text\" lines, which "
                    "SillyTavern, Agnai and RisuAI do not import (jsonl: the JSON Lines of "
                    "TavernAI 1.2 and later, which they do)"),
    )
    # every header rule needs a user_name; the oldest chats are an array of lines
    signature = {"json": ("[]", "user_name"), "jsonl": ("user_name",)}
    detection = (
        ("header with character_names[] (a room), no chat_metadata", 0.9),
        ("header with notes / notes_type / mode (TavernAI 1.5)", 0.9),
        ("header with an epoch-ms create_date, no chat_metadata, plain messages", 0.85),
        ("JSON array of \"Name: text\" strings (TavernAI up to 1.1)", 0.75),
        ("SillyTavern files (chat_metadata, or SillyTavern-shaped messages)", 0.0),
    )
    losses = (
        ("messages[].role narrator / system", "approximated: written as a character message"),
        ("messages[].time (sub-millisecond)", "approximated: epoch milliseconds"),
        ("participants beyond one user; narrators", "dropped"),
    )
    reader = "read:read_chat"
    writer = "write:write_chat"

    def detect(self, input: AdapterInput) -> tuple[float, str]:
        return score(input)


__all__ = ["CARRIES", "FORMAT_ID", "LEGACY_CARRIES", "REASONS", "TavernAIChatAdapter", "score"]

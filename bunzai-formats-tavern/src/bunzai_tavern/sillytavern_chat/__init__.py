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

from bunzai.adapter import FormatAdapter
from bunzai.types import Detection, LabelRule, WriteResult

if TYPE_CHECKING:
    from bunzai.input import AdapterInput
    from bunzai.model import Entity

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
    from bunzai.chattime import parse_form

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


class SillyTavernChatAdapter(FormatAdapter):
    """SillyTavern chats: one JSON object per line, a header then the messages."""

    format_id = FORMAT_ID
    kind = "chat"
    label = "SillyTavern chat (JSONL)"
    suffix = ".jsonl"
    aliases = ("st-chat", "jsonl")
    default_for_kind = True
    detection = (
        ("header line with a chat_metadata object", 0.95),
        ("no header line; first message has is_group (group chats up to 1.13)", 0.9),
        ("no header line; first message in SillyTavern's shape (is_system, extra, "
         "swipe_info, avatars, a SillyTavern date)", 0.85),
        ("header without chat_metadata, messages in SillyTavern's shape", 0.8),
        ("TavernAI headers and messages (epoch dates, no SillyTavern marks), rooms", 0.0),
    )
    losses = (
        ("title", "dropped: a SillyTavern chat is named by its file"),
        ("participants beyond one user and one character; narrators", "dropped"),
        ("memory, greeting, example_dialogue, system_prompt, lorebook",
         "dropped: SillyTavern keeps them on the card or in extensions, not in the chat"),
        ("messages[].id", "dropped: SillyTavern messages have no ids"),
        ("messages[].attachments beyond one image and one file", "dropped"),
        ("messages[].speaker (none)", "approximated: written as the chat's user or character "
                                      "name, else User / Assistant"),
        ("extensions", "dropped"),
    )
    doc = "bunzai-formats-tavern/src/bunzai_tavern/sillytavern_chat/README.md"

    def detect(self, input: AdapterInput) -> Detection:
        s, why = score(input)
        return Detection(s, why)

    def read(self, input: AdapterInput, options: Mapping[str, Any]) -> Any:
        from .read import read_chat
        return read_chat(input)

    def write(self, entity: Entity, options: Mapping[str, Any]) -> WriteResult:
        from .write import write_chat
        return write_chat(entity)

    def label_rules(self) -> list[LabelRule]:
        from .labels import rules
        return rules()


__all__: Sequence[str] = ["FORMAT_ID", "SillyTavernChatAdapter", "score"]

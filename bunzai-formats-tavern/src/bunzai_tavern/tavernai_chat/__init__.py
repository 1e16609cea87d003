"""``tavernai-chat``: TavernAI chats: 1.3-1.5 ``.jsonl`` logs and rooms, and the legacy array.

TavernAI 1.3-1.5 (``server.js`` ``/savechat``, ``/savechatroom``) writes a header line
(``user_name``, ``character_name`` or a room's ``character_names[]``, epoch-millisecond
``create_date``; 1.5 adds ``notes``, ``notes_type``, ``mode``, rooms a ``scenario``) and one
message per line (``name``, ``is_user``, ``is_name``, epoch-ms ``send_date``, ``mes``, ``chid``,
``swipes``/``swipe_id``).  TavernAI up to 1.2 kept a chat as a JSON array of ``"Name: text"``
strings.  CAI Tools' "Download as Tavern chat" writes the same lines (see the labeler).
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from bunzai.adapter import FormatAdapter
from bunzai.types import Detection, LabelRule, WriteResult

if TYPE_CHECKING:
    from bunzai.input import AdapterInput
    from bunzai.model import Entity

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
        return 0.75, "JSON array of \"Name: text\" lines (TavernAI up to 1.2)"
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


class TavernAIChatAdapter(FormatAdapter):
    """TavernAI chats (.jsonl, rooms) and TavernAI's legacy "Name: text" arrays."""

    format_id = FORMAT_ID
    kind = "chat"
    label = "TavernAI chat (JSONL)"
    suffix = ".jsonl"
    aliases = ("tavernai",)
    detection = (
        ("header with character_names[] (a room), no chat_metadata", 0.9),
        ("header with notes / notes_type / mode (TavernAI 1.5)", 0.9),
        ("header with an epoch-ms create_date, no chat_metadata, plain messages", 0.85),
        ("JSON array of \"Name: text\" strings (TavernAI up to 1.2)", 0.75),
        ("SillyTavern files (chat_metadata, or SillyTavern-shaped messages)", 0.0),
    )
    losses = (
        ("messages[].hidden, reasoning, model, id, bookmark, attachments",
         "dropped: TavernAI messages have none"),
        ("messages[].role narrator / system", "approximated: written as a character message"),
        ("messages[].time (sub-millisecond)", "approximated: epoch milliseconds"),
        ("title, memory, greeting, example_dialogue, system_prompt, branch_of, lorebook",
         "dropped: a TavernAI chat has no such field"),
        ("participants beyond one user; narrators", "dropped"),
        ("extensions", "dropped"),
    )
    doc = "bunzai-formats-tavern/src/bunzai_tavern/tavernai_chat/README.md"

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


__all__ = ["FORMAT_ID", "TavernAIChatAdapter", "score"]

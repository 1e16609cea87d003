"""Who wrote a TavernAI-shaped chat: TavernAI itself, or CAI Tools' "Download as Tavern chat"."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bunzai.sdk import LabelRule


def _head(input: Any) -> tuple[Mapping[str, Any] | None, list[Mapping[str, Any]]]:
    from ..sillytavern_chat import is_header, records

    recs = records(input)
    if not recs or not is_header(recs[0]):
        return None, []
    return recs[0], [r for r in recs[1:] if isinstance(r, Mapping)]


HEADER_1_2 = ["user_name", "character_name", "create_date"]
"""The header TavernAI writes from 1.2 (``saveChat``: ``{user_name, character_name,
create_date}``, the date in epoch milliseconds), and CAI Tools after it."""
MESSAGE_1_2 = {"name", "is_user", "is_name", "send_date", "mes"}
"""A message as TavernAI 1.2 and 1.3 save it (1.3 adds ``swipes``/``swipe_id``, kept on the
last reply only); CAI Tools writes the same five keys."""


def _plain(input: Any) -> tuple[Mapping[str, Any] | None, list[Mapping[str, Any]]]:
    """The header and messages of a file in TavernAI 1.2's shape, or ``(None, [])``."""
    head, messages = _head(input)
    if head is None or list(head) != HEADER_1_2 or not _epoch(head.get("create_date")):
        return None, []
    if not all(MESSAGE_1_2 <= set(m) <= MESSAGE_1_2 | {"swipes", "swipe_id"}
               and _epoch(m.get("send_date")) for m in messages):
        return None, []
    return head, messages


def _epoch(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _stamped(head: Mapping[str, Any], messages: list[Mapping[str, Any]]) -> bool:
    """Every date within two seconds of the header's: the moment of one export."""
    created = head["create_date"]
    return len(messages) >= 2 and all(0 <= m["send_date"] - created <= 2000 for m in messages)


def _cai_tools(input: Any, entities: Sequence[Any]) -> list[str]:
    """CAI Tools stamps the header and every message with the moment of the export."""
    head, messages = _plain(input)
    if head is None or not _stamped(head, messages) or any(
            set(m) != MESSAGE_1_2 for m in messages):
        return []
    return ["header and messages stamped within two seconds of each other, no chid or "
            'swipes, user "You": written by CAI Tools\' "Download as Tavern chat"']


def _tavernai_1_2(input: Any, entities: Sequence[Any]) -> list[str]:
    """TavernAI's own JSONL before messages carried ``chid``; a chat typed over time, not
    stamped at one moment as CAI Tools' export is.  SillyTavern, a fork of TavernAI 1.2.8,
    saved this shape until it dated messages in words (March 2023) and added
    ``chat_metadata`` (April 2023): the shape cannot tell the two apart, and TavernAI made it."""
    head, messages = _plain(input)
    if head is None or (messages and _stamped(head, messages)):
        return []
    return ["header {user_name, character_name, create_date} with epoch-ms dates, messages "
            "{name, is_user, is_name, send_date, mes} without chid: TavernAI 1.2 to 1.3 "
            "(SillyTavern kept this writer until March 2023)"]


def _tavernai(input: Any, entities: Sequence[Any]) -> list[str]:
    if input.container == "json":
        from . import _is_legacy
        return (["JSON array of \"Name: text\" lines: TavernAI 1.1 or earlier"]
                if _is_legacy(input.json) else [])
    head, messages = _head(input)
    if head is None or "chat_metadata" in head:
        return []
    if "character_names" in head:
        return ["room header with character_names: TavernAI 1.5 rooms"]
    if any(k in head for k in ("notes", "notes_type", "mode")):
        return ["header with notes/notes_type: TavernAI 1.5"]
    if any("chid" in m for m in messages):
        return ["messages carry chid: TavernAI after 1.3 (1.5 writes it)"]
    return []


def rules() -> list[LabelRule]:
    return [LabelRule("CAI Tools", 0.8, _cai_tools, "origin", "caitools-tavern-chat"),
            LabelRule("TavernAI", 0.85, _tavernai, "origin", "tavernai-chat-shape"),
            LabelRule("TavernAI", 0.7, _tavernai_1_2, "origin", "tavernai-1.2-chat-shape")]

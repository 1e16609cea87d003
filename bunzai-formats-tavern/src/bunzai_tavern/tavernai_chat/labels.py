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


def _cai_tools(input: Any, entities: Sequence[Any]) -> list[str]:
    """CAI Tools stamps the header and every message with the moment of the export."""
    head, messages = _head(input)
    if head is None or list(head) != ["user_name", "character_name", "create_date"]:
        return []
    created = head.get("create_date")
    dates = [m.get("send_date") for m in messages]
    if (len(messages) < 2 or not isinstance(created, int)
            or not all(isinstance(d, int) and 0 <= d - created <= 2000 for d in dates)
            or any(set(m) != {"name", "is_user", "is_name", "send_date", "mes"}
                   for m in messages)):
        return []
    return ["header and messages stamped within two seconds of each other, no chid or "
            'swipes, user "You": written by CAI Tools\' "Download as Tavern chat"']


def _tavernai(input: Any, entities: Sequence[Any]) -> list[str]:
    if input.container == "json":
        from . import _is_legacy
        return (["JSON array of \"Name: text\" lines: TavernAI 1.2 or earlier"]
                if _is_legacy(input.json) else [])
    head, messages = _head(input)
    if head is None or "chat_metadata" in head:
        return []
    if "character_names" in head:
        return ["room header with character_names: TavernAI 1.5 rooms"]
    if any(k in head for k in ("notes", "notes_type", "mode")):
        return ["header with notes/notes_type: TavernAI 1.5"]
    if any("chid" in m for m in messages):
        return ["messages carry chid: TavernAI 1.3 or later"]
    return []


def rules() -> list[LabelRule]:
    return [LabelRule("CAI Tools", 0.8, _cai_tools, "origin", "caitools-tavern-chat"),
            LabelRule("TavernAI", 0.85, _tavernai, "origin", "tavernai-chat-shape")]

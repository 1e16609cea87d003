"""``cai-history``: Character.AI chat histories as CAI Tools and the CharacterAI Dumper saved them.

The dump is Character.AI's own ``histories`` API answer, wrapped with the character's ``info``:
``{"info": {"character": {name, greeting, …}}, "histories": {"histories": [{external_id,
created, msgs: [{src: {is_human, name}, text, …}]}]}}`` (the CharacterAI Dumper userscript,
CAI Tools' early "Character Dump").  SillyTavern and TavernAI import it as "CAI Tools" chats,
one chat per history.  Read-only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from bunzai.sdk import DetectedOrigin, FormatAdapter, detect_json

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput

FORMAT_ID = "cai-history"


def _list(value: Any) -> bool:
    return isinstance(value, Sequence) and not isinstance(value, str)


def score(data: Any) -> tuple[float, str]:
    if not isinstance(data, Mapping) or "schema_version" in data:
        return 0.0, ""
    outer = data.get("histories")
    inner = outer.get("histories") if isinstance(outer, Mapping) else None
    if not _list(inner):
        return 0.0, ""
    if all(isinstance(h, Mapping) and _list(h.get("msgs")) for h in inner):
        return 0.95, f"Character.AI histories dump ({len(inner)} chats)"
    return 0.6, "histories.histories without msgs lists"


class CAIHistoryAdapter(FormatAdapter):
    """Character.AI history dumps (CAI Tools, CharacterAI Dumper): one chat per history."""

    format_id = FORMAT_ID
    kind = "chat"
    label = "Character.AI history dump (CAI Tools)"
    aliases = ("cai", "caitools")
    signature = {"json": ("histories",)}
    detection = (
        ("histories.histories: a list of histories with msgs lists", 0.95),
        ("histories.histories whose items are not histories (read says why)", 0.6),
        ("anything else", 0.0),
    )
    reader = "read:read_dump"

    detect = detect_json(score)
    origin = DetectedOrigin("Character.AI (CAI Tools dump)", 0.9, "cai-histories")

    def origin_evidence(self, input: AdapterInput, reason: str) -> str:
        if isinstance(input.json.get("info"), Mapping):
            return reason + (" with the character's info, as the CharacterAI Dumper and CAI "
                             "Tools saved it")
        return reason


__all__ = ["FORMAT_ID", "CAIHistoryAdapter", "score"]

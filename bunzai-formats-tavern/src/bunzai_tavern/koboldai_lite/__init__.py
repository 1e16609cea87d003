"""``koboldai-lite``: KoboldAI Lite (and KoboldCpp) saved stories, read as chats.

A save (``generate_savefile`` in Lite's ``index.html``) holds the story as text chunks
(``prompt`` then ``actions[]``), ``memory``, the author's note (``authorsnote``), world info
(``worldinfo[]``) and, when settings are exported, ``savedsettings`` (``opmode`` 1 story,
2 adventure, 3 chat, 4 instruct; ``chatname``; ``chatopponent`` names joined by ``||$||``).
Read-only: bunzai splits the text into turns by mode.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from bunzai.sdk import DetectedOrigin, FormatAdapter, detect_json

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput

FORMAT_ID = "koboldai-lite"


def score(data: Any) -> tuple[float, str]:
    if not isinstance(data, Mapping) or "schema_version" in data:
        return 0.0, ""
    story = isinstance(data.get("prompt"), str) and isinstance(data.get("memory"), str) and (
        isinstance(data.get("actions"), Sequence | Mapping)
        and not isinstance(data.get("actions"), str))
    if not story:
        return 0.0, ""
    if isinstance(data.get("savedsettings"), Mapping):
        return 0.95, "KoboldAI Lite save (prompt, actions, memory, savedsettings)"
    if "gamestarted" in data and "worldinfo" in data:
        return 0.85, "KoboldAI story save (gamestarted, prompt, actions, memory, worldinfo)"
    return 0.0, ""


NEUTRAL: tuple[tuple[str, Any], ...] = tuple(
    (f"app_data.{FORMAT_ID}.{key}", values) for key, values in (
        ("anotetemplate", ("[Author's note: <|>]",)), ("anotestr", ("320", 320)),
        ("wisearchdepth", ("0", 0)), ("wiinsertlocation", ("0", 0)),
        ("newlineaftermemory", (True,)), ("documentdb_provider", ("0", 0)),
        ("documentdb_searchhistory", (False,)), ("documentdb_numresults", (3,)),
        ("documentdb_searchrange", (300,)), ("documentdb_chunksize", (800,)),
    ))
"""Lite's story settings at the values a new story gets: they ask nothing of another app."""


class KoboldAILiteAdapter(FormatAdapter):
    """KoboldAI Lite saves: the story or chat, memory, author's note and world info."""

    format_id = FORMAT_ID
    kind = "chat"
    label = "KoboldAI Lite save"
    aliases = ("kobold-lite", "kobold")
    signature = {"json": ("prompt",)}
    detection = (
        ("prompt, actions, memory and a savedsettings object (Lite)", 0.95),
        ("prompt, actions, memory, gamestarted and worldinfo (KoboldAI saves)", 0.85),
        ("anything else", 0.0),
    )
    neutral = NEUTRAL
    reader = "read:read_save"

    detect = detect_json(score)
    origin = DetectedOrigin("KoboldAI", 0.9, "koboldai-lite-save", at_least=0.85)

    def origin_evidence(self, input: AdapterInput, reason: str) -> str:
        settings = input.json.get("savedsettings")
        if isinstance(settings, Mapping) and "opmode" in settings:
            modes = {1: "story", 2: "adventure", 3: "chat", 4: "instruct"}
            return f"{reason}; {modes.get(settings['opmode'], 'unknown')} mode: KoboldAI Lite"
        return reason + ": KoboldAI"


__all__ = ["FORMAT_ID", "KoboldAILiteAdapter", "score"]

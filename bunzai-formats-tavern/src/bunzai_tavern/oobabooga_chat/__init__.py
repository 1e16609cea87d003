"""``oobabooga-chat``: text-generation-webui chat histories.

``save_history`` in ``modules/chat.py`` writes ``json.dumps(history, indent=4,
ensure_ascii=False)`` of ``{"internal": [[user, reply], …], "visible": [[…]], "metadata":
{"user_N"/"assistant_N": {timestamp, versions, current_version_index, attachments}}}``: one
row per exchange, the raw text in ``internal`` and the HTML-escaped text shown in ``visible``.
Before July 2023 the file was ``{"data": …, "data_visible": …}`` (``indent=2``).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING, Any

from bunzai.adapter import FormatAdapter
from bunzai.types import Detection, LabelRule, WriteResult

if TYPE_CHECKING:
    from bunzai.input import AdapterInput
    from bunzai.model import Entity

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


class OobaboogaChatAdapter(FormatAdapter):
    """oobabooga's text-generation-webui chat histories: rows of [user, reply]."""

    format_id = FORMAT_ID
    kind = "chat"
    label = "oobabooga text-generation-webui history"
    suffix = ".json"
    aliases = ("ooba", "textgen-chat")
    detection = (
        ("internal and visible lists of [user, reply] rows", 0.95),
        ("data and data_visible lists of rows (before July 2023)", 0.9),
        ("anything else", 0.0),
    )
    losses = (
        ("messages[].speaker, participants", "dropped: the history names no one"),
        ("messages[].role narrator / system", "approximated: written as a reply"),
        ("messages[].time", "approximated: minutes, local clock (\"Nov 03, 2024 21:04\")"),
        ("messages[].hidden, reasoning, model, id, bookmark", "dropped"),
        ("messages[].attachments by reference", "dropped: only embedded images and text "
                                                "files travel"),
        ("title, created, notes, memory, scenario, greeting, example_dialogue, system_prompt, "
         "branch_of, lorebook", "dropped: a history holds only the exchanges"),
        ("extensions", "dropped"),
    )
    doc = "bunzai-formats-tavern/src/bunzai_tavern/oobabooga_chat/README.md"

    def detect(self, input: AdapterInput) -> Detection:
        s, why = score(input.json)
        return Detection(s, why)

    def read(self, input: AdapterInput, options: Mapping[str, Any]) -> Any:
        from .io import read_chat
        return read_chat(input)

    def write(self, entity: Entity, options: Mapping[str, Any]) -> WriteResult:
        from .io import write_chat
        return write_chat(entity)

    def label_rules(self) -> list[LabelRule]:
        return [LabelRule("oobabooga text-generation-webui", 0.9, _evidence, "origin",
                          "oobabooga-history")]


def _evidence(input: Any, entities: Sequence[Any]) -> list[str]:
    s, why = score(input.json)
    return [why] if s else []


__all__ = ["FORMAT_ID", "OobaboogaChatAdapter", "score"]

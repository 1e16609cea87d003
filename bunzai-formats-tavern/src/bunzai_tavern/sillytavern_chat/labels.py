"""Which SillyTavern wrote a chat, from the shape of its header and messages."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from bunzai.sdk import LabelRule


def _era(input: Any, entities: Sequence[Any]) -> list[str]:
    from . import records, st_marks

    recs = records(input)
    if not recs:
        return []
    first = recs[0]
    if not isinstance(first, Mapping):
        return []
    messages = [r for r in recs if isinstance(r, Mapping) and "mes" in r]
    if "mes" in first or "is_user" in first:
        if first.get("is_group") is True:
            return ["group chat whose first message has is_group and no header line: "
                    "SillyTavern up to 1.13"]
        if any(st_marks(m) for m in messages):
            return ["group chat without a header line: SillyTavern up to 1.13"]
        return []
    meta = first.get("chat_metadata")
    keys = list(first)
    if keys and keys[0] == "chat_metadata" and first.get("user_name") == "unused":
        return ['header starts with chat_metadata and names the user "unused": '
                "SillyTavern 1.15 or later"]
    if not isinstance(meta, Mapping):
        if any(st_marks(m) for m in messages):
            return ["header without chat_metadata, SillyTavern-shaped messages: SillyTavern "
                    "before 1.4 (spring 2023)"]
        return []
    evidence = ["header with chat_metadata: SillyTavern"]
    from bunzai.sdk.chats import parse_form
    forms = {f[1] for m in messages if (f := parse_form(m.get("send_date"))) is not None}
    if "st_humanized_ms" in forms:
        evidence.append('send_date like "2023-4-21 @20h 02m 47s 124ms": SillyTavern 1.x of '
                        "early-mid 2023")
    elif "st_meridiem" in forms:
        evidence.append('send_date like "June 19, 2023 2:20pm": SillyTavern from mid-2023 to 1.14')
    elif "iso_js" in forms or "epoch_ms" in forms:
        evidence.append("ISO 8601 / epoch send_date: SillyTavern 1.15 or later")
    if "integrity" in meta:
        evidence.append("chat_metadata.integrity: SillyTavern 1.12 or later")
    return evidence


def rules() -> list[LabelRule]:
    return [LabelRule("SillyTavern", 0.9, _era, "origin", "sillytavern-chat-shape")]

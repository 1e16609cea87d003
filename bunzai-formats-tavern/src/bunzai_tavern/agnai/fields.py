"""The native character's plain fields (specs §10.1).  The structured persona, ``insert``,
``extensions``, the avatar and the memory book are mapped in ``read.py``/``write.py``."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from bunzai.sdk.fields import STRLIST, Bad, Conv, Table, Unrepresentable, field


def _iso_to_seconds(x: Any) -> int:
    if not isinstance(x, str):
        raise Bad("expected an ISO date string")
    try:
        dt = datetime.fromisoformat(x.replace("Z", "+00:00"))
    except ValueError:
        raise Bad(f"not an ISO date: {x!r}") from None
    if dt.tzinfo is None:
        dt = dt.replace(tzinfo=UTC)
    return int(dt.timestamp())


def _seconds_to_iso(v: Any) -> str:
    try:
        dt = datetime.fromtimestamp(int(v), tz=UTC)
    except (OverflowError, OSError, ValueError):
        raise Unrepresentable(f"{v} seconds is outside the dates an ISO date can hold") from None
    return dt.strftime("%Y-%m-%dT%H:%M:%S.000Z")  # JavaScript's Date.toISOString()


DATE = Conv("ISO date", _iso_to_seconds, _seconds_to_iso)

SKIP = ("kind", "userId", "appearance", "avatar", "persona", "voice", "json", "sprite", "insert",
        "extensions", "characterBook")
"""Keys read by hand (the format's marker and database id, and what feeds ``extensions``,
``assets`` and ``lorebook``)."""

CHARACTER = Table((
    field("name", absent=""),
    field("creator_notes", "description", absent=""),
    field("tags", conv=STRLIST, absent=[]),
    field("first_mes", "greeting", absent=""),
    field("scenario", absent=""),
    field("mes_example", "sampleChat", absent=""),
    field("system_prompt", "systemPrompt", absent=""),
    field("post_history_instructions", "postHistoryInstructions", absent=""),
    field("alternate_greetings", "alternateGreetings", conv=STRLIST, absent=[]),
    field("creator", absent=""),
    field("character_version", "characterVersion", absent=""),
    field("creation_date", "createdAt", conv=DATE),
    field("modification_date", "updatedAt", conv=DATE),
))

AGNAI_BLOCK = ("voice", "persona", "appearance", "json", "sprite")
"""What Agnai's Tavern export puts into ``extensions.agnai``: canonical keeps it there."""

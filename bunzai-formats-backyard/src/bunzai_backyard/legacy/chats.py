"""The chat history a Faraday / early Backyard card carries (``Chat[]``), as canonical chats.

Each chat is ``{id, name, authorNote, createdAt, updatedAt, ChatItems: [{input, output,
createdAt, RegenSwipes: [{text, createdAt, activeTimestamp}]}]}``: one item per turn, the
regenerated replies as swipes (the one with the latest ``activeTimestamp`` shown).  Read-only:
``bunzai chat extract card.png`` writes them as chat files.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from bunzai.sdk.chats import check_alternatives, held_or_lazy, parse_time
from bunzai.sdk.fields import kept

if TYPE_CHECKING:
    from bunzai.sdk import Character, Chat, ChatMessage


BOOKKEEPING = ("id", "updatedAt")
"""The app's id for a chat and when it last saved it: layout, not the conversation."""
SKIPPED = "skipped ChatItems"
"""Chat app-data key of the ``ChatItems`` that are no turn object: ``[[index, value], …]``, so
the chat's format reports them dropped."""


def card_chats(ch: Character, fmt: str) -> list[Chat] | None:
    """One chat per item of the card's ``Chat`` history (None: not read as a Backyard card)."""
    from bunzai.sdk import Chat, Participant

    layout, data = kept(ch, fmt)
    if layout is None and data is None:
        return None
    raw = (data or {}).get("Chat")
    out: list[Chat] = []
    for item in raw if isinstance(raw, list) else []:
        if not isinstance(item, Mapping):
            continue
        turns = item.get("ChatItems")
        turns = turns if isinstance(turns, list) else []
        for turn in turns:
            regen = turn.get("RegenSwipes") if isinstance(turn, Mapping) else None
            if isinstance(regen, list):
                check_alternatives(len(regen), "a chat item's RegenSwipes")
        name = item.get("name")
        note = item.get("authorNote")
        extra = {k: v for k, v in item.items()
                 if k not in ("name", "authorNote", "createdAt", "ChatItems", *BOOKKEEPING)}
        if "ChatItems" in item and not isinstance(item["ChatItems"], list):
            extra["ChatItems"] = item["ChatItems"]  # no list of turns: kept as it was
        skipped = [[i, t] for i, t in enumerate(turns) if not isinstance(t, Mapping)]
        if skipped:
            extra[SKIPPED] = skipped

        def make(turns: list[Any] = turns) -> Iterator[ChatMessage]:
            for turn in turns:
                if isinstance(turn, Mapping):
                    yield from _turn(turn)
        record = {k: item[k] for k in BOOKKEEPING if k in item}
        out.append(Chat(
            title=name if isinstance(name, str) and name else None,
            notes=note if isinstance(note, str) and note else None,
            created=parse_time(item.get("createdAt")),
            participants=[Participant(name=ch.name, role="character")] if ch.name else [],
            messages=held_or_lazy(make), passthrough={fmt: record} if record else {},
            app_data={fmt: extra} if extra else {}))
    return out


def _turn(turn: Mapping[str, Any]) -> list[ChatMessage]:
    from bunzai.sdk import Alternative, ChatMessage

    out: list[ChatMessage] = []
    time = parse_time(turn.get("createdAt"))
    text_in, text_out = turn.get("input"), turn.get("output")
    if isinstance(text_in, str) and text_in:
        out.append(ChatMessage(role="user", text=text_in, time=time))
    swipes = [s for s in turn.get("RegenSwipes") or [] if isinstance(s, Mapping)
              and isinstance(s.get("text"), str)]
    if len(swipes) > 1:
        shown = max(range(len(swipes)), key=lambda i: str(swipes[i].get("activeTimestamp")))
        out.append(ChatMessage(
            role="character", text=swipes[shown]["text"],
            time=parse_time(swipes[shown].get("createdAt")) or time, chosen=shown,
            alternatives=[Alternative(text=s["text"], time=parse_time(s.get("createdAt")))
                          for s in swipes]))
    elif isinstance(text_out, str) and text_out:
        out.append(ChatMessage(role="character", text=text_out, time=time))
    return out

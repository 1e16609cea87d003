"""The chats inside a Backyard archive: each scenario's log as a canonical chat, and back.

A BYAF scenario is one Backyard chat (``specs/v1/scenario.md``): its greeting
(``firstMessages``, shown first), then its ``messages``, ``{type: "human", createdAt,
updatedAt, text}`` and ``{type: "ai", outputs: [{createdAt, updatedAt, text,
activeTimestamp}]}``; an AI turn's outputs are its regenerations and the one with the latest
``activeTimestamp`` is shown.  The archive reader keeps each scenario's own data in the
character's app data (``scenarios``); these functions turn a scenario into a standalone chat
(``bunzai chat extract``), its greeting the chat's first message as SillyTavern's BYAF import
makes it, and a chat into a new scenario (``bunzai chat embed``), a first message of the
character's becoming the scenario's greeting.

SillyTavern's BYAF import (``src/byaf.js`` ``getChatFromScenario``) puts the greeting first and
then the messages in their order, with two rules of its own: when there are as many ``human``
as ``ai`` messages it rebuilds the order as human, ai, human, ai (a repair for old Backyard
exports), and it takes the chat's start date from the first message with a ``createdAt`` (a
``human`` one), failing when the log holds none.  An embedded chat is laid out so those rules
read it in its own order where that can be done; a scenario they would still misread is named
in a warning when the archive is written (:func:`sillytavern_misreads`).
"""

from __future__ import annotations

import copy
from collections.abc import Iterator, Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from bunzai.sdk.chats import (
    check_alternatives,
    format_time,
    held_or_lazy,
    layout_of,
    parse_time,
    restore,
)
from bunzai.sdk.fields import kept

from .._common.macros import join_examples, to_backyard, to_card
from .read import SCENARIOS, example_messages, first_messages

if TYPE_CHECKING:
    from bunzai.sdk import Character, Chat, ChatMessage

SKIPPED = "skipped messages"
"""Chat app-data key of the scenario's ``messages`` items that are no human or ai message (or
an ai one without outputs): ``[[index, value], …]``, so another format reports them."""
SETTINGS = ("model", "minP", "minPEnabled", "temperature", "repeatPenalty", "repeatLastN",
            "topK", "topP", "promptTemplate", "grammar", "canDeleteExampleMessages")
"""A scenario's model settings: the extracted chat's app data (another chat format reports
each it cannot hold)."""


def _chats(ch: Any, fmt: str) -> tuple[dict[str, Any], list[dict[str, Any]]] | None:
    """(layout, each scenario's data) of a character read from BYAF, else None."""
    layout, data = kept(ch, fmt)
    if layout is None and data is None:
        return None
    raw = (data or {}).get(SCENARIOS)
    chats = [c if isinstance(c, dict) else {} for c in raw] if isinstance(raw, list) else []
    return layout or {}, chats


def scenario_chats(ch: Character, fmt: str) -> list[Chat] | None:
    """One chat per scenario of a character read from BYAF (None: not read from BYAF)."""
    from bunzai.sdk import Chat, ChatMessage, Participant

    found = _chats(ch, fmt)
    if found is None:
        return None
    layout, chats = found
    records = [r for r in layout.get("scenarios", []) if isinstance(r, dict)]
    alternates = iter(ch.alternate_greetings)
    out: list[Chat] = []
    primary: dict[str, Any] = {}
    for index, own in enumerate(chats):
        fields: dict[str, Any] = {}
        if index == 0:
            fields = {"scenario": ch.scenario or None, "system_prompt": ch.system_prompt or None,
                      "example_dialogue": ch.mes_example or None,
                      "greeting": ch.first_mes or None}
            primary = dict(fields)
        else:
            for key, field in (("narrative", "scenario"),
                               ("formattingInstructions", "system_prompt")):
                if key not in own:
                    fields[field] = primary.get(field)
                elif isinstance(own[key], str) and own[key]:
                    fields[field] = to_card(own[key])
            if "exampleMessages" not in own:
                fields["example_dialogue"] = primary.get("example_dialogue")
            elif isinstance(own["exampleMessages"], list):
                texts = [to_card(i["text"], True) for i in own["exampleMessages"]
                         if isinstance(i, Mapping) and isinstance(i.get("text"), str)]
                fields["example_dialogue"] = join_examples(texts) or None
            first = own.get("firstMessages")
            if "firstMessages" not in own:  # an alternate greeting's scenario
                fields["greeting"] = next(alternates, None)
            elif isinstance(first, list) and first and isinstance(first[0], Mapping) \
                    and isinstance(first[0].get("text"), str):
                fields["greeting"] = to_card(first[0]["text"], True) or None
        title = own.get("title")
        settings: dict[str, Any] = {k: own[k] for k in SETTINGS if k in own}
        path = records[index].get("path") if index < len(records) else None
        messages = own.get("messages")
        skipped: list[list[Any]] = []
        usable = _usable(messages if isinstance(messages, list) else [], skipped)
        greeting = fields.pop("greeting", None)

        def make(usable: list[Mapping[str, Any]] = usable,
                 greeting: str | None = greeting) -> Iterator[ChatMessage]:
            if greeting:  # shown first, as Backyard and SillyTavern's import show it
                yield ChatMessage(role="character", text=greeting,
                                  passthrough={fmt: {"greeting": True}})
            for item in usable:
                yield _message(item, fmt)

        if skipped:
            settings[SKIPPED] = skipped
        chat = Chat(title=title if isinstance(title, str) and title else None,
                    participants=[Participant(name=ch.name, role="character",
                                              id=layout.get("cid"))] if ch.name else [],
                    messages=held_or_lazy(make),
                    app_data={fmt: settings} if settings else {},
                    passthrough={fmt: {"scenario": path}},
                    **{k: v for k, v in fields.items() if v})
        out.append(chat)
    return out


def messages_from_byaf(items: Sequence[Any], fmt: str,
                       skipped: list[list[Any]] | None = None) -> list[ChatMessage]:
    """A scenario's ``messages`` as chat messages; an item that is no ``human`` message nor an
    ``ai`` one with an output goes to ``skipped`` as ``[index, item]``."""
    return [_message(item, fmt) for item in _usable(items, skipped)]


def _usable(items: Sequence[Any], skipped: list[list[Any]] | None) -> list[Mapping[str, Any]]:
    """The items that are messages (the others to ``skipped``); an ai one with more outputs
    than a message may have alternatives is refused."""
    out: list[Mapping[str, Any]] = []
    for index, item in enumerate(items):
        kind = item.get("type") if isinstance(item, Mapping) else None
        outputs = item.get("outputs") if isinstance(item, Mapping) else None
        if kind == "human" or (kind == "ai" and isinstance(outputs, list) and any(
                isinstance(o, Mapping) for o in outputs)):
            if kind == "ai":
                check_alternatives(len(outputs), f"messages[{index}]")
            out.append(item)
        elif skipped is not None:
            skipped.append([index, item])
    return out


def _message(item: Mapping[str, Any], fmt: str) -> ChatMessage:
    """One usable scenario message (see :func:`_usable`) as a chat message."""
    from bunzai.sdk import Alternative, ChatMessage

    layout: dict[str, Any] = {}
    if item.get("type") == "ai":
        outputs = [o for o in item["outputs"] if isinstance(o, Mapping)]
        shown = max(range(len(outputs)), key=lambda i: _stamp(outputs[i]))
        alts = [Alternative(text=_text(o), time=parse_time(o.get("createdAt")),
                            passthrough={fmt: _raw_times(o)}) for o in outputs]
        chosen = outputs[shown]
        layout.update(_raw_times(chosen))
        return ChatMessage(role="character", text=_text(chosen),
                           time=parse_time(chosen.get("createdAt")),
                           alternatives=alts if len(alts) > 1 else [],
                           chosen=shown if len(alts) > 1 else None,
                           passthrough={fmt: layout})
    layout.update(_raw_times(item))
    return ChatMessage(role="user", text=_text(item), time=parse_time(item.get("createdAt")),
                       passthrough={fmt: layout})


def _text(obj: Mapping[str, Any]) -> str:
    text = obj.get("text")
    return text if isinstance(text, str) else ""


def sillytavern_misreads(messages: Sequence[Any]) -> str | None:
    """Why SillyTavern's BYAF import would not read a scenario's ``messages`` in their order,
    or None when it would (see the module's docstring for its two rules)."""
    kinds = [m.get("type") if isinstance(m, Mapping) else None for m in messages]
    humans, ais = kinds.count("human"), kinds.count("ai")
    if kinds and not any(isinstance(m, Mapping) and "createdAt" in m for m in messages):
        return ("SillyTavern's BYAF import fails on it: it takes the chat's start date from "
                "the first user message, and the log has none")
    if humans == ais and kinds != ["human", "ai"] * humans:
        return (f"SillyTavern's BYAF import reads its {humans} user and {ais} character "
                "messages in another order: when they are as many it puts each user message "
                "before a character one")
    return None


def _stamp(output: Mapping[str, Any]) -> Any:
    t = parse_time(output.get("activeTimestamp"))
    return (t is not None, t.timestamp() if t else 0.0)


def _raw_times(obj: Mapping[str, Any]) -> dict[str, Any]:
    return {k: obj[k] for k in ("createdAt", "updatedAt", "activeTimestamp") if k in obj}


def _lift(log: list[ChatMessage], greeting: str | None) -> bool:
    """Whether the log's first message becomes the scenario's greeting: a character's first
    message (the chat's own greeting when it has one), unless only the log without it is one
    SillyTavern's import would misread."""
    if not log or log[0].role != "character" or (greeting and greeting != log[0].text):
        return False
    turns = [{"type": "human", "createdAt": ""} if m.role == "user" else {"type": "ai"}
             for m in log]
    return sillytavern_misreads(turns[1:]) is None or sillytavern_misreads(turns) is not None


def messages_to_byaf(messages: Any, fmt: str) -> list[dict[str, Any]]:
    """Chat messages as BYAF scenario messages (times as UTC ``Z`` strings).

    Every message that is not the user's is an AI turn; its alternatives are the outputs, and
    the shown one gets the latest ``activeTimestamp``, as Backyard decides which to show.
    """
    out: list[dict[str, Any]] = []
    for m in messages:
        record = layout_of(m, fmt)
        if m.role == "user":
            when = _z(m.time, record.get("createdAt"))
            out.append({"type": "human", "createdAt": when,
                        "updatedAt": _kept(record, "updatedAt", when), "text": m.text})
            continue
        alts = list(m.alternatives)
        chosen = m.chosen if m.chosen is not None and 0 <= m.chosen < len(alts) else None
        if len(alts) < 2 or chosen is None:
            texts = [(m.text, m.time, record)]
            chosen = 0
        else:
            texts = [(a.text, a.time or m.time, layout_of(a, fmt)) for a in alts]
        outputs = []
        for text, time, raw in texts:
            when = _z(time, raw.get("createdAt"))
            outputs.append({"createdAt": when, "updatedAt": _kept(raw, "updatedAt", when),
                            "text": text, "activeTimestamp": raw.get("activeTimestamp")})
        stamps = [parse_time(o["activeTimestamp"]) for o in outputs]
        best = stamps[chosen]
        if best is None or any(t is not None and t >= best for i, t in enumerate(stamps)
                               if i != chosen):
            latest = max((t for t in stamps if t is not None), default=None)
            for i, o in enumerate(outputs):
                if i != chosen:
                    o["activeTimestamp"] = o["createdAt"]
            created = [parse_time(o["createdAt"]) for o in outputs]
            top = max([t for t in [latest, *created] if t is not None])
            outputs[chosen]["activeTimestamp"] = format_time(top + timedelta(milliseconds=1),
                                                             "iso_js")
        out.append({"type": "ai", "outputs": outputs})
    return out


def _kept(raw: Mapping[str, Any], key: str, default: str) -> Any:
    value = raw.get(key)
    return value if isinstance(value, str) and parse_time(value) is not None else default


def _z(time: Any, raw: Any) -> str:
    if time is None:
        time = datetime.now(UTC)
    value = restore(time, raw, "iso_js")
    return value if isinstance(value, str) else str(format_time(time, "iso_js"))


def embed(ch: Character, chat: Chat, fmt: str) -> Character:
    """A copy of ``ch`` with ``chat`` as one more scenario: the first scenario's settings and
    texts, the chat's title, log and (when it has one) greeting."""
    out: Character = ch.model_copy(deep=True)
    found = _chats(out, fmt)
    if found is None:
        raise NotImplementedError("this card was not read from a Backyard archive")
    layout, chats = found
    primary = chats[0] if chats else {}
    own: dict[str, Any] = {k: copy.deepcopy(v) for k, v in primary.items()
                           if k not in ("messages", "title")}
    if chat.title:
        own["title"] = chat.title
    settings = chat.app_data.get(fmt)
    if isinstance(settings, Mapping):
        own.update({k: copy.deepcopy(v) for k, v in settings.items() if k in SETTINGS})
    cid = str(layout.get("cid") or "character")
    if chat.scenario is not None and chat.scenario != (ch.scenario or None):
        own["narrative"] = to_backyard(chat.scenario)
    if chat.system_prompt is not None and chat.system_prompt != (ch.system_prompt or None):
        own["formattingInstructions"] = to_backyard(chat.system_prompt)
    if chat.example_dialogue is not None and chat.example_dialogue != (ch.mes_example or None):
        own["exampleMessages"] = example_messages(chat.example_dialogue, cid)
    log = list(chat.iter_messages())
    greeting = chat.greeting
    if _lift(log, greeting):
        greeting, log = log[0].text, log[1:]
    if greeting:
        # a later scenario's greeting is one of the card's alternate greetings
        out.alternate_greetings = [*out.alternate_greetings, greeting]
    else:
        own["firstMessages"] = first_messages("", cid)  # a scenario without a greeting
    own["messages"] = messages_to_byaf(log, fmt)
    out.app_data.setdefault(fmt, {})[SCENARIOS] = [*chats, own]
    return out


__all__ = ["embed", "messages_from_byaf", "messages_to_byaf", "scenario_chats",
           "sillytavern_misreads"]

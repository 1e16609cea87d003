"""The chats inside a Backyard archive: each scenario's log as a canonical chat, and back.

A BYAF scenario is one Backyard chat (``specs/v1/scenario.md``): its ``messages`` are
``{type: "human", createdAt, updatedAt, text}`` and ``{type: "ai", outputs: [{createdAt,
updatedAt, text, activeTimestamp}]}``; an AI turn's outputs are its regenerations and the one
with the latest ``activeTimestamp`` is shown.  The archive reader keeps each scenario in the
character's passthrough; these functions turn a scenario into a standalone chat
(``bunzai chat extract``) and a chat into a new scenario (``bunzai chat embed``).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

from bunzai.sdk.chats import format_time, parse_time, restore

from .._common.macros import join_examples, to_card
from .read import FMT, SCENARIO_FIELDS

if TYPE_CHECKING:
    from bunzai.sdk import Character, Chat, ChatMessage

SETTINGS = ("model", "minP", "minPEnabled", "temperature", "repeatPenalty", "repeatLastN",
            "topK", "topP", "promptTemplate", "grammar", "canDeleteExampleMessages")
"""A scenario's model settings: Backyard's own data on the extracted chat."""


def _pt(ch: Any) -> dict[str, Any] | None:
    value = getattr(ch, "passthrough", {}).get(FMT)
    return value if isinstance(value, dict) else None


def scenario_chats(ch: Character) -> list[Chat] | None:
    """One chat per scenario of a character read from BYAF (None: not read from BYAF)."""
    from bunzai.sdk import Chat, Participant

    pt = _pt(ch)
    if pt is None:
        return None
    records = [r for r in pt.get("scenarios", []) if isinstance(r, dict)]
    out: list[Chat] = []
    primary: dict[str, Any] = {}
    for index, record in enumerate(records):
        rest = record.get("rest") if isinstance(record.get("rest"), dict) else {}
        fields: dict[str, Any] = {}
        if index == 0:
            fields = {"scenario": ch.scenario or None, "system_prompt": ch.system_prompt or None,
                      "example_dialogue": ch.mes_example or None,
                      "greeting": ch.first_mes or None}
            primary = dict(fields)
        else:
            inherit = set(record.get("inherit") or ())
            for key, field in (("narrative", "scenario"),
                               ("formattingInstructions", "system_prompt")):
                if key in inherit:
                    fields[field] = primary.get(field)
                elif isinstance(rest.get(key), str) and rest[key]:
                    fields[field] = to_card(rest[key])
            if "exampleMessages" in inherit:
                fields["example_dialogue"] = primary.get("example_dialogue")
            elif isinstance(rest.get("exampleMessages"), list):
                texts = [to_card(i["text"], True) for i in rest["exampleMessages"]
                         if isinstance(i, Mapping) and isinstance(i.get("text"), str)]
                fields["example_dialogue"] = join_examples(texts) or None
            first = rest.get("firstMessages")
            if isinstance(first, list) and first and isinstance(first[0], Mapping) \
                    and isinstance(first[0].get("text"), str):
                fields["greeting"] = to_card(first[0]["text"], True) or None
        title = rest.get("title")
        settings = {k: rest[k] for k in SETTINGS if k in rest}
        record_pt: dict[str, Any] = {"scenario": record.get("path")}
        messages = rest.get("messages")
        chat = Chat(title=title if isinstance(title, str) and title else None,
                    participants=[Participant(name=ch.name, role="character",
                                              id=pt.get("cid"))] if ch.name else [],
                    messages=messages_from_byaf(messages if isinstance(messages, list) else []),
                    passthrough={FMT: record_pt}, app_data={FMT: settings} if settings else {},
                    **{k: v for k, v in fields.items() if v})
        out.append(chat)
    return out


def messages_from_byaf(items: Sequence[Any]) -> list[ChatMessage]:
    from bunzai.sdk import Alternative, ChatMessage

    out: list[ChatMessage] = []
    for item in items:
        if not isinstance(item, Mapping):
            continue
        layout: dict[str, Any] = {}
        if item.get("type") == "ai" and isinstance(item.get("outputs"), list):
            outputs = [o for o in item["outputs"] if isinstance(o, Mapping)]
            if not outputs:
                continue
            shown = max(range(len(outputs)), key=lambda i: _stamp(outputs[i]))
            alts = [Alternative(text=str(o.get("text", "")), time=parse_time(o.get("createdAt")),
                                passthrough={FMT: _raw_times(o)}) for o in outputs]
            chosen = outputs[shown]
            layout.update(_raw_times(chosen))
            msg = ChatMessage(role="character", text=str(chosen.get("text", "")),
                              time=parse_time(chosen.get("createdAt")),
                              alternatives=alts if len(alts) > 1 else [],
                              chosen=shown if len(alts) > 1 else None,
                              passthrough={FMT: layout})
        else:
            layout.update(_raw_times(item))
            msg = ChatMessage(role="user", text=str(item.get("text", "")),
                              time=parse_time(item.get("createdAt")),
                              passthrough={FMT: layout})
        out.append(msg)
    return out


def _stamp(output: Mapping[str, Any]) -> Any:
    t = parse_time(output.get("activeTimestamp"))
    return (t is not None, t.timestamp() if t else 0.0)


def _raw_times(obj: Mapping[str, Any]) -> dict[str, Any]:
    return {k: obj[k] for k in ("createdAt", "updatedAt", "activeTimestamp") if k in obj}


def messages_to_byaf(chat: Chat) -> list[dict[str, Any]]:
    """A chat's messages as BYAF scenario messages (times as UTC ``Z`` strings).

    Every message that is not the user's is an AI turn; its alternatives are the outputs, and
    the shown one gets the latest ``activeTimestamp``, as Backyard decides which to show.
    """
    out: list[dict[str, Any]] = []
    for m in chat.iter_messages():
        record = _record(m)
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
            texts = [(a.text, a.time or m.time, _record(a)) for a in alts]
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


def _record(obj: Any) -> dict[str, Any]:
    value = obj.passthrough.get(FMT)
    return value if isinstance(value, dict) else {}


def _kept(raw: Mapping[str, Any], key: str, default: str) -> Any:
    value = raw.get(key)
    return value if isinstance(value, str) and parse_time(value) is not None else default


def _z(time: Any, raw: Any) -> str:
    if time is None:
        time = datetime.now(UTC)
    value = restore(time, raw, "iso_js")
    return value if isinstance(value, str) else str(format_time(time, "iso_js"))


def embed(ch: Character, chat: Chat) -> Character:
    """A copy of ``ch`` with ``chat`` as one more scenario: the first scenario's settings and
    texts, the chat's title, log and (when it has one) greeting."""
    out: Character = ch.model_copy(deep=True)
    pt = _pt(out)
    if pt is None:
        raise NotImplementedError("this card was not read from a Backyard archive")
    records = [r for r in pt.setdefault("scenarios", []) if isinstance(r, dict)]
    primary = records[0].get("rest", {}) if records else {}
    rest: dict[str, Any] = {k: copy.deepcopy(v) for k, v in primary.items()
                            if k not in ("messages", "title", *SCENARIO_FIELDS, "firstMessages",
                                         "backgroundImage")}
    rest.setdefault("schemaVersion", 1)
    if chat.title:
        rest["title"] = chat.title
    settings = chat.app_data.get(FMT)
    if isinstance(settings, Mapping):
        rest.update({k: copy.deepcopy(v) for k, v in settings.items() if k in SETTINGS})
    inherit = [k for k in SCENARIO_FIELDS if k in primary]
    cid = pt.get("cid") or "character"
    from .._common.macros import split_examples, to_backyard
    from .read import example_messages, first_messages
    if chat.scenario is not None and chat.scenario != (ch.scenario or None):
        rest["narrative"] = to_backyard(chat.scenario)
        inherit = [k for k in inherit if k != "narrative"]
    if chat.system_prompt is not None and chat.system_prompt != (ch.system_prompt or None):
        rest["formattingInstructions"] = to_backyard(chat.system_prompt)
        inherit = [k for k in inherit if k != "formattingInstructions"]
    if chat.example_dialogue is not None and chat.example_dialogue != (ch.mes_example or None):
        rest["exampleMessages"] = example_messages(split_examples(chat.example_dialogue), cid)
        inherit = [k for k in inherit if k != "exampleMessages"]
    rest["firstMessages"] = first_messages(chat.greeting, cid) if chat.greeting else []
    rest["messages"] = messages_to_byaf(chat)
    taken = {r.get("path") for r in records}
    n = len(records) + 1
    while f"scenarios/scenario{n}.json" in taken:
        n += 1
    record: dict[str, Any] = {"path": f"scenarios/scenario{n}.json",
                              "role": "alternate" if chat.greeting else "other",
                              "order": [], "rest": rest}
    if inherit:
        record["inherit"] = inherit
    if chat.greeting:
        out.alternate_greetings = [*out.alternate_greetings, chat.greeting]
    pt["scenarios"] = [*records, record]
    manifest = pt.get("manifest")
    if isinstance(manifest, dict) and isinstance(manifest.get("scenarios"), list):
        manifest["scenarios"] = [*manifest["scenarios"], record["path"]]
    return out


__all__ = ["embed", "messages_from_byaf", "messages_to_byaf", "scenario_chats"]

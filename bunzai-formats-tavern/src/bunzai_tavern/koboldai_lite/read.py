"""Reading a KoboldAI Lite save: the story text split into turns, memory, note, world info.

The text is ``prompt`` followed by every action, as Lite shows it.  How it splits:

* chat mode (``opmode`` 3): at each line that starts with a known name and a colon
  (``chatname``, each ``chatopponent``, or Lite's ``{{user}}``/``{{char}}`` placeholders);
* instruct mode (4): at Lite's turn tags ``{{[INPUT]}}``, ``{{[OUTPUT]}}``, ``{{[SYSTEM]}}``;
* story (1) and adventure (2): one narrator message per chunk, adventure actions that start
  with ``> `` as the user's.

Lite stores no times.  Everything else in the save (its settings objects, ``personal_notes``,
image metadata, world-info folders, document settings) is Lite's app data, under its own key;
``gamestarted`` and ``file_version`` are layout.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

from bunzai.sdk import Issue, MalformedInput, ReadResult
from bunzai.sdk.chats import held_or_lazy

from . import FORMAT_ID

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput, ChatMessage, Lorebook

OPPONENT_SEPARATOR = "||$||"
TAGS = {"{{[INPUT]}}": "user", "{{[OUTPUT]}}": "character", "{{[SYSTEM]}}": "system"}
END_TAGS = ("{{[INPUT_END]}}", "{{[OUTPUT_END]}}", "{{[SYSTEM_END]}}")
LAYOUT_KEYS = frozenset({"gamestarted", "file_version"})
"""Lite's bookkeeping: whether the story has begun, the save file's version."""
MAPPED = frozenset({"prompt", "actions", "memory", "authorsnote", "worldinfo"})
SKIPPED_ACTIONS = "skipped actions"
"""App-data key of KoboldAI United actions with no text to read: ``[[key, value], …]``."""
SKIPPED_ENTRIES = "skipped entries"
"""App-data key (on the lorebook) of world info items that are no entry: ``[[index, value],
…]``."""


def read_save(input: AdapterInput, options: Any = None, format_id: str = FORMAT_ID) -> ReadResult:
    from bunzai.sdk import Chat, Participant

    data = input.json_mutable()
    if not isinstance(data, dict):
        raise MalformedInput("not a KoboldAI save: expected an object")
    warnings: list[Issue] = []
    skipped: list[list[Any]] = []
    chunks = _chunks(data, warnings, skipped)
    settings = data.get("savedsettings") if isinstance(data.get("savedsettings"), dict) else {}
    mode = settings.get("opmode")
    user = settings.get("chatname") if isinstance(settings.get("chatname"), str) else None
    raw_opponents = settings.get("chatopponent")
    opponents = [n for n in (raw_opponents.split(OPPONENT_SEPARATOR)
                             if isinstance(raw_opponents, str) else []) if n.strip()]
    text = "".join(chunks)

    def make() -> Iterator[ChatMessage]:
        if mode == 3:
            return _chat_turns(text, user, opponents)
        if mode == 4:
            return _instruct_turns(text)
        return _story(chunks, adventure=mode == 2)

    messages = held_or_lazy(make)
    participants = ([Participant(name=user, role="user")] if user else []) + [
        Participant(name=n, role="character") for n in opponents]
    fields: dict[str, Any] = {}
    for key, field in (("memory", "memory"), ("authorsnote", "notes")):
        value = data.get(key)
        if isinstance(value, str) and value:
            fields[field] = value
    book = _world_info(data.get("worldinfo"), warnings)
    if book is not None:
        fields["lorebook"] = book
    layout: dict[str, Any] = {"order": list(data)}
    keep = {k: v for k, v in data.items() if k in LAYOUT_KEYS}
    if keep:
        layout["keep"] = keep
    own = {k: v for k, v in data.items() if k not in LAYOUT_KEYS and (
        k not in MAPPED or not _readable(k, v))}
    actions = data.get("actions")
    if isinstance(actions, Mapping) and _readable("actions", actions):
        own.update((f"actions.{k}", v) for k, v in actions.items() if k != "actions")
    if skipped:
        own[SKIPPED_ACTIONS] = skipped
    chat = Chat(participants=participants, messages=messages, passthrough={FORMAT_ID: layout},
                app_data={FORMAT_ID: own} if own else {}, **fields)
    return ReadResult([chat], warnings)


def _readable(key: str, value: Any) -> bool:
    """Whether a key this reader maps holds what it reads (else the value is app data)."""
    if key in ("prompt", "memory", "authorsnote"):
        return isinstance(value, str)
    if key == "worldinfo":
        return isinstance(value, list)
    return isinstance(value, list) or (isinstance(value, Mapping)
                                       and isinstance(value.get("actions"), Mapping))


def _chunks(data: Mapping[str, Any], warnings: list[Issue], skipped: list[list[Any]]
            ) -> list[str]:
    chunks: list[str] = []
    prompt = data.get("prompt")
    if isinstance(prompt, str) and prompt:
        chunks.append(prompt)
    actions = data.get("actions")
    if isinstance(actions, Mapping):  # KoboldAI United: {"actions": {"0": {"Selected Text"}}}
        inner = actions.get("actions")
        for key, item in (inner.items() if isinstance(inner, Mapping) else ()):
            text = item.get("Selected Text") if isinstance(item, Mapping) else None
            if isinstance(text, str):
                chunks.append(text)
            else:
                warnings.append(Issue(f"$.actions.actions.{key}", "no \"Selected Text\"; "
                                      "skipped"))
                skipped.append([key, item])
    elif isinstance(actions, list):
        for i, a in enumerate(actions):
            if not isinstance(a, str):
                raise MalformedInput(f"$.actions[{i}]: expected text, got {type(a).__name__}")
            chunks.append(a)
    return chunks


def _clean(text: str) -> str:
    return text.strip("\n").removeprefix(" ")


def _chat_turns(text: str, user: str | None, opponents: list[str]) -> Iterator[ChatMessage]:
    from bunzai.sdk import ChatMessage

    names = {n: "character" for n in opponents}
    names["{{char}}"] = "character"
    if user:
        names[user] = "user"
    names["{{user}}"] = "user"
    pattern = re.compile(r"(?:^|\n)(" + "|".join(re.escape(n) for n in sorted(
        names, key=len, reverse=True)) + r"):[ ]?")
    found = pattern.finditer(text)
    m = next(found, None)
    head = text[:m.start()] if m is not None else text
    if _clean(head):
        yield ChatMessage(role="narrator", text=_clean(head))
    while m is not None:
        after = next(found, None)
        end = after.start() if after is not None else len(text)
        body = text[m.end():end].rstrip("\n")
        name = m.group(1)
        role = names[name]
        speaker = user if name == "{{user}}" else (opponents[0] if name == "{{char}}" and
                                                   opponents else name)
        if body.strip() or after is not None:
            yield ChatMessage(role=role, speaker=speaker, text=body)
        m = after


def _instruct_turns(text: str) -> Iterator[ChatMessage]:
    from bunzai.sdk import ChatMessage

    for tag in END_TAGS:
        text = text.replace(tag, "")
    parts = re.split(r"(\{\{\[(?:INPUT|OUTPUT|SYSTEM)\]\}\})", text)
    if _clean(parts[0]):
        yield ChatMessage(role="narrator", text=_clean(parts[0]))
    for tag, body in zip(parts[1::2], parts[2::2], strict=False):
        if body.strip():
            yield ChatMessage(role=TAGS[tag], text=body.strip("\n"))


def _story(chunks: list[str], adventure: bool) -> Iterator[ChatMessage]:
    from bunzai.sdk import ChatMessage

    for chunk in chunks:
        if adventure and chunk.lstrip("\n").startswith("> "):
            yield ChatMessage(role="user", text=chunk.lstrip("\n")[2:].rstrip("\n"))
        elif chunk:
            yield ChatMessage(role="narrator", text=chunk)


def _world_info(raw: Any, warnings: list[Issue]) -> Lorebook | None:
    """Lite's world info entries as a lorebook (``key`` and ``keysecondary`` are
    comma-separated, ``keyanti`` keys stop an entry, ``widisabled`` turns one off)."""
    from bunzai.sdk import Lorebook, LorebookEntry

    if not isinstance(raw, list) or not raw:
        return None
    entries = []
    skipped: list[list[Any]] = []
    for i, item in enumerate(raw):
        if not isinstance(item, dict):
            warnings.append(Issue(f"$.worldinfo[{i}]", "not an object; skipped"))
            skipped.append([i, item])
            continue
        def keys(name: str, item: dict[str, Any] = item) -> list[str]:
            value = item.get(name)
            return [k.strip() for k in value.split(",") if k.strip()] if isinstance(
                value, str) else []
        known = {"key", "keysecondary", "content", "comment", "selective", "constant",
                 "probability", "wigroup", "widisabled"}
        rest = {k: v for k, v in item.items() if k not in known}
        prob = item.get("probability")
        entries.append(LorebookEntry(
            id=i, keys=keys("key"), secondary_keys=keys("keysecondary"),
            content=str(item.get("content") or ""),
            comment=item["comment"] if isinstance(item.get("comment"), str) else None,
            enabled=item.get("widisabled") is not True,
            selective=item["selective"] if isinstance(item.get("selective"), bool) else None,
            constant=item["constant"] if isinstance(item.get("constant"), bool) else None,
            probability=prob if isinstance(prob, int | float) and not isinstance(
                prob, bool) else None,
            group=item["wigroup"] if isinstance(item.get("wigroup"), str) and item[
                "wigroup"] else None,
            app_data={FORMAT_ID: rest} if rest else {}))
    return Lorebook(name="KoboldAI Lite world info", entries=entries,
                    app_data={FORMAT_ID: {SKIPPED_ENTRIES: skipped}} if skipped else {})

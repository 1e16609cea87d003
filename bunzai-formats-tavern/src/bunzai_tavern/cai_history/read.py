"""Reading a Character.AI history dump: every history is a chat."""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from bunzai.sdk import Issue, MalformedInput, ReadResult
from bunzai.sdk.chats import held_or_lazy, parse_time

from . import FORMAT_ID

if TYPE_CHECKING:
    from bunzai.sdk import AdapterInput, Chat, ChatMessage

HISTORY_KEYS = ("msgs", "created", "external_id")
MESSAGE_KEYS = ("src", "text", "uuid")
PERSONAL = ("user", "display_name", "tgt")
"""Account details Character.AI attaches to every message (redacted by the dumper): layout."""


def read_dump(input: AdapterInput, options: Any = None, format_id: str = FORMAT_ID) -> ReadResult:
    data = input.json_mutable()
    if not isinstance(data, dict) or not isinstance(data.get("histories"), dict):
        raise MalformedInput("not a Character.AI histories dump")
    histories = data["histories"].get("histories")
    if not isinstance(histories, list):
        raise MalformedInput("$.histories.histories: expected a list")
    info = data.get("info") if isinstance(data.get("info"), dict) else {}
    character = info.get("character") if isinstance(info.get("character"), dict) else {}
    shared: dict[str, Any] = {}
    if character:
        shared["character"] = character
    chats = []
    warnings: list[Issue] = []
    for i, history in enumerate(histories):
        if not isinstance(history, dict) or not isinstance(history.get("msgs"), list):
            raise MalformedInput(f"$.histories.histories[{i}]: expected a history with msgs")
        chats.append(_chat(history, character, shared, i, warnings))
    if not chats:
        raise MalformedInput("the dump holds no history")
    return ReadResult(chats, warnings)


def _chat(history: dict[str, Any], character: Mapping[str, Any], shared: dict[str, Any],
          index: int, warnings: list[Issue]) -> Chat:
    from bunzai.sdk import Chat, Participant

    msgs = history["msgs"]
    names: dict[tuple[str, str], None] = {}
    for j, m in enumerate(msgs):  # checked and named now; the messages are made on use
        message = _message(m, f"$.histories.histories[{index}].msgs[{j}]", warnings)
        if message.speaker:
            names.setdefault((message.speaker, message.role), None)
    messages = held_or_lazy(lambda: (_message(m, "", None) for m in msgs))
    main = character.get("name") if isinstance(character.get("name"), str) else None
    if main:
        names = {(main, "character"): None, **names}
    layout: dict[str, Any] = {"history": index}
    if history.get("external_id") is not None:
        layout["external_id"] = history["external_id"]
    own = {k: v for k, v in history.items() if k not in HISTORY_KEYS}
    own.update(shared)
    greeting = character.get("greeting")
    return Chat(participants=[Participant(name=n, role=r) for n, r in names],
                created=parse_time(history.get("created")),
                greeting=greeting if isinstance(greeting, str) and greeting else None,
                messages=messages, passthrough={FORMAT_ID: layout},
                app_data={FORMAT_ID: own} if own else {})


def _message(obj: Any, path: str, warnings: list[Issue] | None) -> ChatMessage:
    from bunzai.sdk import ChatMessage

    if not isinstance(obj, dict):
        raise MalformedInput(f"{path}: expected a message object")
    src = obj.get("src") if isinstance(obj.get("src"), dict) else {}
    human = src.get("is_human") is True
    name = src.get("name")
    text = obj.get("text")
    layout: dict[str, Any] = {}
    keep = {k: obj[k] for k in PERSONAL if k in obj}
    if isinstance(src.get("user"), dict):
        keep["src.user"] = src["user"]
    if keep:
        layout["keep"] = keep
    own = {k: v for k, v in obj.items() if k not in MESSAGE_KEYS and k not in PERSONAL}
    if "src" in obj and not isinstance(obj["src"], dict):
        own["src"] = obj["src"]  # not the speaker object this reader knows: kept as it was
    own.update((f"src.{k}", v) for k, v in src.items() if k not in ("is_human", "name", "user")
               or (k == "name" and not isinstance(v, str)))
    if "text" in obj and not isinstance(text, str):
        own["text"] = text
        if warnings is not None:
            warnings.append(Issue(f"{path}.text", "not text: the message reads as empty, "
                                                  "its value is kept as app data"))
    ident = obj.get("uuid")
    return ChatMessage(role="user" if human else "character",
                       speaker=name if isinstance(name, str) and name else None,
                       text=text if isinstance(text, str) else "",
                       id=ident if isinstance(ident, str) and ident else None,
                       passthrough={FORMAT_ID: layout} if layout else {},
                       app_data={FORMAT_ID: own} if own else {})

"""Chat operations on canonical entities: loss reporting, summaries, and chats inside cards.

Core knows no chat format.  What every chat writer shares lives here: reporting the canonical
fields a format cannot hold (by comparing a message with what the format keeps of it), reporting
other formats' ``extra`` data item by item, and the summary ``bunzai inspect`` prints.  The
chats embedded in a character (a Backyard archive's scenarios) are reached through the owning
adapter's optional hooks, so ``bunzai chat extract`` and ``embed`` work for any format that
implements them.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from .compare import diff_paths
from .errors import UsageError

if TYPE_CHECKING:
    from pydantic import BaseModel

    from .loss import LossReport
    from .model import Chat, ChatMessage
    from .registry import AdapterHandle, Registry

EXTRA = "extra"
"""The passthrough key holding a format's own data (everything else in it is layout)."""


def is_empty(value: Any) -> bool:
    """A value that carries nothing a user would miss: absent, empty or false, or an object or
    array made only of such values (``{"lagging": false, "include": null}``)."""
    if value is None or value is False or value == "":
        return True
    if isinstance(value, Mapping):
        return all(is_empty(v) for v in value.values())
    if isinstance(value, list):
        return all(is_empty(v) for v in value)
    return False


def extra_of(obj: Any, fmt: str) -> dict[str, Any]:
    """``obj.passthrough[fmt]["extra"]`` (empty when there is none)."""
    pt = getattr(obj, "passthrough", None)
    mine = pt.get(fmt) if isinstance(pt, Mapping) else None
    extra = mine.get(EXTRA) if isinstance(mine, Mapping) else None
    return dict(extra) if isinstance(extra, Mapping) else {}


def layout_of(obj: Any, fmt: str) -> dict[str, Any]:
    """``obj.passthrough[fmt]`` (the whole record: layout and ``extra``)."""
    pt = getattr(obj, "passthrough", None)
    mine = pt.get(fmt) if isinstance(pt, Mapping) else None
    return dict(mine) if isinstance(mine, Mapping) else {}


def extra_paths(base: str, fmt: str, extra: Mapping[str, Any]) -> Iterable[str]:
    """The report path of each non-empty item of a format's ``extra`` data.

    An object value is one level deeper (``passthrough.<fmt>.extra.api`` for SillyTavern's
    ``extra.api``), so a report names the piece a user would look for, not a whole blob.
    """
    for key, value in extra.items():
        if is_empty(value):
            continue
        if isinstance(value, Mapping):
            for sub, inner in value.items():
                if not is_empty(inner):
                    yield f"{base}passthrough.{fmt}.{key}.{sub}"
        else:
            yield f"{base}passthrough.{fmt}.{key}"


def _objects(chat: Chat) -> Iterable[tuple[str, Any]]:
    """(path prefix, object) for every passthrough holder of a chat, messages streamed."""
    yield "", chat
    for i, p in enumerate(chat.participants):
        yield f"participants[{i}].", p
    for i, m in enumerate(chat.iter_messages()):
        yield f"messages[{i}].", m
        for j, alt in enumerate(m.alternatives):
            yield f"messages[{i}].alternatives[{j}].", alt
        for j, att in enumerate(m.attachments):
            yield f"messages[{i}].attachments[{j}].", att


def foreign_extras(chat: Chat, target: str, loss: LossReport, prefix: str = "",
                   reported: LossReport | None = None) -> None:
    """Report every other format's ``extra`` item the target writer cannot carry.

    Layout (key order, absent keys, original time text) is never reported.  Core calls this
    for every chat write in place of the generic passthrough rule.
    """
    names: dict[str, str] = {}
    for base, obj in _objects(chat):
        pt = getattr(obj, "passthrough", None)
        if not isinstance(pt, Mapping):
            continue
        for fmt, record in pt.items():
            if fmt == target or not isinstance(record, Mapping):
                continue
            extra = record.get(EXTRA)
            if not isinstance(extra, Mapping):
                continue
            app = names.setdefault(fmt, fmt)
            for path in extra_paths(f"{prefix}{base}", fmt, extra):
                if reported is None or not reported.covers(path, stashed=True):
                    loss.dropped(path, f"data only the {app} format keeps")
    if chat.lorebook is not None:
        from .fidelity import Carried, unheld
        from .neutral import Neutrality
        for path in unheld(chat.lorebook, Carried.of(["*"]), Neutrality(), own=target):
            full = f"{prefix}lorebook.{path}"
            if reported is None or not reported.covers(full, stashed=True):
                app = path.split("app_data.", 1)[-1].split(".", 1)[0]
                loss.dropped(full, f"data only the {app} format keeps")


_INDEX = re.compile(r"\[\d+\]")


def report_unkept(loss: LossReport, path: str, original: BaseModel, kept: BaseModel, *,
                  reasons: Mapping[str, str] | None = None, default: str,
                  approximated: frozenset[str] = frozenset(),
                  skip: tuple[str, ...] = ()) -> None:
    """Report what a writer does not keep of ``original``: every canonical difference from
    ``kept``, the object as the writer's own reader reads it back.

    ``reasons`` and ``approximated`` are keyed by the field path without indexes
    (``alternatives.time``) or, failing that, by the last field name (``time``).  Reading
    back each written record means a field the format cannot hold is always reported,
    including fields added to the model later.
    """
    why = reasons or {}
    for p in _whole_lists(diff_paths(original, kept)):
        if skip and p.startswith(skip):
            continue
        general = _INDEX.sub("", p)
        name = p.rsplit(".", 1)[-1].split("[", 1)[0]
        key = general if general in why or general in approximated else name
        reason = why.get(key, why.get(name, default))
        if key in approximated:
            loss.approximated(path + p, reason)
        else:
            loss.dropped(path + p, reason)


def report_messages(loss: LossReport, original: Iterable[ChatMessage],
                    back: Iterable[ChatMessage], *, reasons: Mapping[str, str] | None = None,
                    default: str, dropped: str,
                    approximated: frozenset[str] = frozenset()) -> None:
    """Report what a format loses of each message, reading its output back in step.

    A format may leave a message out entirely (an empty reply has no place in an export):
    messages are matched in order by who spoke (the user or not) and their text, and a message
    with no match is reported whole with ``dropped`` as the reason.  Both sides are iterated
    once, so a streamed chat is never held whole.
    """
    theirs = iter(back)
    pending = next(theirs, None)
    left_out = 0
    for i, m in enumerate(original):
        if pending is None or (pending.role == "user") != (m.role == "user") \
                or pending.text != m.text:
            loss.dropped(f"messages[{i}]", dropped)
            left_out += 1
            continue
        report_unkept(loss, f"messages[{i}].", m, pending, reasons=reasons, default=default,
                      approximated=approximated)
        pending = next(theirs, None)
    if left_out:
        loss.approximated("messages", f"{left_out} message(s) left out: the ones after them "
                                      "move up")


_ITEM = re.compile(r"^(.*)\[(\d+)\]$")


def _whole_lists(paths: list[str]) -> list[str]:
    """``alternatives`` for ``alternatives[0]``, ``alternatives[1]``, … when every item of a
    list is gone: one line for the list, not one per item."""
    items: dict[str, set[int]] = {}
    for p in paths:
        m = _ITEM.match(p)
        if m:
            items.setdefault(m.group(1), set()).add(int(m.group(2)))
    whole = {stem for stem, seen in items.items() if seen == set(range(len(seen))) and
             not any(q.startswith(stem + "[") and not _ITEM.match(q) for q in paths)}
    out: list[str] = []
    for p in paths:
        m = _ITEM.match(p)
        if m and m.group(1) in whole:
            if m.group(2) == "0":
                out.append(m.group(1))
            continue
        out.append(p)
    return out


def chat_fields_only(chat: Chat) -> Chat:
    """A shallow copy without messages, for comparing chat-level fields cheaply."""
    return chat.model_copy(update={"messages": []})


# -- summaries ------------------------------------------------------------------------------------


def summarize(chat: Chat) -> dict[str, Any]:
    """What ``bunzai inspect`` shows of a chat: one pass over the messages."""
    speakers: dict[tuple[str, str], int] = {}
    count = alternatives = with_alts = attachments = hidden = 0
    first = last = None
    for m in chat.iter_messages():
        count += 1
        key = (m.speaker or f"({m.role})", m.role)
        speakers[key] = speakers.get(key, 0) + 1
        if len(m.alternatives) > 1:
            with_alts += 1
            alternatives += len(m.alternatives)
        attachments += len(m.attachments)
        hidden += m.hidden
        if m.time is not None:
            first = m.time if first is None or m.time < first else first
            last = m.time if last is None or m.time > last else last
    out: dict[str, Any] = {"name": chat.title or None}
    declared = [f"{p.name} ({p.role})" for p in chat.participants]
    if declared:
        out["participants"] = declared
    out["speakers"] = [f"{name} ({role}): {n}" for (name, role), n in speakers.items()]
    out["messages"] = count
    if with_alts:
        out["alternatives"] = f"{alternatives} on {with_alts} message(s)"
    if hidden:
        out["hidden"] = hidden
    if attachments:
        out["attachments"] = attachments
    if first is not None and last is not None:
        out["time_span"] = f"{first.isoformat()} .. {last.isoformat()}"
    for name in ("notes", "memory", "scenario", "branch_of"):
        value = getattr(chat, name)
        if value:
            out[name] = value if len(value) <= 60 else value[:57] + "..."
    if chat.lorebook is not None and chat.lorebook.entries:
        out["lorebook_entries"] = len(chat.lorebook.entries)
    return out


# -- chats inside other entities --------------------------------------------------------------


def _owner(registry: Registry, entity: Any) -> tuple[AdapterHandle, list[Chat]]:
    """The adapter that read ``entity`` and can reach chats in it, with those chats."""
    if getattr(entity, "kind", None) == "chat":
        raise UsageError("this file is a chat already")
    pt = getattr(entity, "passthrough", None) or {}
    data = getattr(entity, "app_data", None) or {}
    for fmt in dict.fromkeys([*pt, *data]):  # a chat log is user data: app data
        handle = registry.adapters.get(fmt)
        if handle is None or not handle.has("bunzai_chats_in"):
            continue
        found = handle.call("bunzai_chats_in", entity=entity)
        if found is not None:
            return handle, list(found)
    raise UsageError(f"this {entity.kind} holds no chats bunzai can reach (chats travel inside "
                     "Backyard archives; other card formats have none)")


def extract(registry: Registry, entity: Any) -> list[Chat]:
    """The chats a character carries (a Backyard archive's scenario logs), as standalone chats."""
    _, chats = _owner(registry, entity)
    if not chats:
        raise UsageError(f"{getattr(entity, 'name', '') or 'this card'} holds no chat")
    return chats


def embed(registry: Registry, entity: Any, chat: Chat) -> tuple[Any, LossReport]:
    """A copy of ``entity`` carrying ``chat`` as one more of its chats, and what of the chat
    the entity's format cannot hold (found by reading the embedded chat back)."""
    from .loss import LossReport

    if getattr(chat, "kind", None) != "chat":
        raise UsageError(f"embed takes a chat, not a {getattr(chat, 'kind', '?')}")
    handle, before = _owner(registry, entity)
    try:
        out = handle.call("bunzai_embed_chat", entity=entity, chat=chat)
    except NotImplementedError as exc:
        raise UsageError(str(exc) or f"{handle.id} cannot take a chat") from None
    after = handle.call("bunzai_chats_in", entity=out) or []
    loss = LossReport()
    if len(after) != len(before) + 1:
        raise UsageError(f"{handle.id} did not add the chat")
    back = after[-1]
    label = handle.info.label
    report_unkept(loss, "", chat_fields_only(chat), chat_fields_only(back),
                  default=f"{label} has no place for it", skip=("messages", "participants"))
    if chat.participants != back.participants:
        loss.approximated("participants", f"in {label} the chat's participants are the "
                          "card's character and the user")
    theirs = iter(back.iter_messages())
    for i, m in enumerate(chat.iter_messages()):
        other = next(theirs, None)
        if other is None:
            loss.dropped(f"messages[{i}]", f"{label} did not keep this message")
            continue
        report_unkept(loss, f"messages[{i}].", m, other, default=f"{label} has no place for it")
    foreign_extras(chat, handle.id, loss)
    return out, loss

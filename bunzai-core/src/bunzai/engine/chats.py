"""Chat operations on canonical entities: summaries, and the chats inside cards.

Core knows no chat format.  A chat writer is held to the same loss rule as every writer (see
:mod:`bunzai.loss.rule`); what is left here is the summary ``bunzai inspect`` prints and the
chats embedded in a character (a Backyard archive's scenarios), reached through the owning
adapter's optional hooks, so ``bunzai chat extract`` and ``embed`` work for any format that
implements them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ..errors import UsageError

if TYPE_CHECKING:
    from ..host.registry import AdapterHandle, Registry
    from ..loss.report import LossReport
    from ..model import Chat

# -- summaries ------------------------------------------------------------------------------------


def summarize(chat: Chat) -> dict[str, Any]:
    """What ``bunzai inspect`` shows of a chat: one pass over the messages."""
    speakers: dict[tuple[str, str], int] = {}
    count = alternatives = with_alts = attachments = hidden = 0
    first = last = None
    for m in chat.iter_messages():
        count += 1
        key = (m.speaker or "", m.role)
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
    # a chat that names nobody (oobabooga's) counts by role: "user: 6", not "(user) (user): 6"
    out["speakers"] = [f"{name} ({role}): {n}" if name else f"{role}: {n}"
                       for (name, role), n in speakers.items()]
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
    layout = getattr(entity, "passthrough", None) or {}
    data = getattr(entity, "app_data", None) or {}
    for fmt in dict.fromkeys([*layout, *data]):  # a chat log is user data: app data
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
    the entity's format cannot hold.

    The embedding hooks declare no carried paths, so the loss is found as for any format that
    declares none: by core comparing the chat with the one the new entity gives back
    (:func:`bunzai.loss.rule.report_changes`), one message at a time.
    """
    from ..loss.report import LossReport
    from ..loss.rule import changes, report_changes
    from ..model import Chat as ChatModel

    if getattr(chat, "kind", None) != "chat":
        raise UsageError(f"embed takes a chat, not a {getattr(chat, 'kind', '?')}")
    handle, before = _owner(registry, entity)
    try:
        out = handle.call("bunzai_embed_chat", entity=entity, chat=chat)
    except NotImplementedError as exc:
        raise UsageError(str(exc) or f"{handle.id} cannot take a chat") from None
    after = handle.call("bunzai_chats_in", entity=out) or []
    if len(after) != len(before) + 1:
        raise UsageError(f"{handle.id} did not add the chat")
    back = after[-1]
    label = handle.info.label
    neutral = registry.neutrality
    loss = LossReport()
    if changes(ChatModel(participants=chat.participants),
               ChatModel(participants=back.participants), neutral):
        loss.approximated("participants", f"in {label} the chat's participants are the "
                          "card's character and the user")
    report_changes(chat, back, neutral, loss, handle.info.reasons,
                   f"{label} has no place for it in a chat")
    return out, loss

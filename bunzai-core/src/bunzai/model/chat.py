"""Chats: a conversation as every front-end stores it, in order, with who said what and when.

A chat is its own kind: a character card never becomes a chat nor a chat a card.  The model is
the union of what SillyTavern, TavernAI, Agnai, RisuAI, oobabooga, Backyard and KoboldAI Lite
keep: participants, messages with alternatives (swipes) and the chosen one, reasoning,
attachments, hidden messages, and chat-level notes, memory, scenario and branch links.

Times are aware UTC datetimes (see :mod:`bunzai.chatkit.times`): forms without a zone are read in
the zone the reader was told (local by default), recorded in ``Chat.time_zone``, and each
format keeps its original text as layout so a same-format rewrite is exact.

A chat can be tens of megabytes.  ``Chat.messages`` is a list for chats built in code or read
from memory; a reader given a large file hands over a :class:`LazyMessages` instead, which
parses messages one at a time each time it is iterated, so nothing holds the whole log.  Treat
``messages`` as a read-only sequence; assign a list to edit (``chat.messages =
list(chat.messages)``).

The chat, each participant, message, alternative and attachment has ``app_data`` and
``passthrough``, as every entity does: ``app_data[format_id]`` holds the source's user data the
model has no field for (``{source key: value}``: SillyTavern's ``extra.api``, a RisuAI
message's ``generationInfo``), reported key by key when another format cannot carry it;
``passthrough[format_id]`` holds layout only (key order, absent keys, the original time text,
line endings, the app's own bookkeeping), never reported.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from datetime import datetime
from typing import Annotated, Any, Literal, overload

from pydantic import Field, SerializerFunctionWrapHandler, ValidatorFunctionWrapHandler
from pydantic.functional_serializers import WrapSerializer
from pydantic.functional_validators import WrapValidator

from .common import (
    CanonicalModel,
    EntityBase,
    JSONValue,
    app_data_field,
    extensions_field,
    passthrough_field,
)
from .lorebook import Lorebook

ROLES = ("user", "character", "narrator", "system")
"""Who speaks: the user (or one of several users), a character, a narrator, the app itself."""

ATTACHMENT_TYPES = ("image", "file", "audio", "video")


class Participant(CanonicalModel):
    """Someone the chat declares: a user name, a character, a narrator."""

    name: str = Field("", description="the name the chat shows for them")
    role: str = Field("character", description="user, character, narrator or system")
    id: str | None = Field(None, description="the app's own id for this participant")
    avatar: str | None = Field(None, description="avatar reference as the app wrote it")
    extensions: dict[str, JSONValue] = extensions_field()
    app_data: dict[str, dict[str, JSONValue]] = app_data_field()
    passthrough: dict[str, JSONValue] = passthrough_field()


class Attachment(CanonicalModel):
    """An image or file attached to a message: embedded bytes, or a reference the app wrote.

    bunzai never fetches a reference; ``uri`` is kept exactly as written.
    """

    type: str = Field("image", description="image, file, audio, video or an app type")
    name: str | None = Field(None, description="the file's name")
    uri: str | None = Field(None, description="URL, data URL or path as written")
    title: str | None = Field(None, description="caption or the prompt that made the image")
    media_type: str | None = Field(None, description="the file's media type")
    data: bytes | None = Field(None, description="the bytes when the file embeds them")
    text: str | None = Field(None, description="text content an app extracted from the file")
    extensions: dict[str, JSONValue] = extensions_field()
    app_data: dict[str, dict[str, JSONValue]] = app_data_field()
    passthrough: dict[str, JSONValue] = passthrough_field()


class Alternative(CanonicalModel):
    """One candidate reply of a message (a SillyTavern swipe, a Backyard output)."""

    text: str = Field("", description="the reply's text")
    time: datetime | None = Field(None, description="when it was written (aware, UTC)")
    reasoning: str | None = Field(None, description="the model's reasoning for it, where kept")
    app_data: dict[str, dict[str, JSONValue]] = app_data_field()
    passthrough: dict[str, JSONValue] = passthrough_field()


class ChatMessage(CanonicalModel):
    """One message.  ``text`` is what the chat shows; when there are ``alternatives``, the
    shown one is ``alternatives[chosen]``."""

    role: str = Field("character", description="user, character, narrator or system")
    speaker: str | None = Field(None, description="display name as the message records it")
    text: str = Field("", description="what the message says (the shown alternative's text)")
    time: datetime | None = Field(None, description="when it was sent (aware, UTC)")
    hidden: bool = Field(False, description="kept in the log but left out of the prompt")
    alternatives: list[Alternative] = Field(
        default_factory=list, description="swipes / regenerations, two or more")
    chosen: int | None = Field(None, description="index of the shown alternative")
    reasoning: str | None = Field(None, description="the model's reasoning, where kept")
    model: str | None = Field(None, description="the model that wrote it, where recorded")
    id: str | None = Field(None, description="the app's message id")
    bookmark: str | None = Field(
        None, description="a named mark on this message (checkpoint, bookmark)")
    attachments: list[Attachment] = Field(
        default_factory=list, description="images and files attached to the message")
    extensions: dict[str, JSONValue] = extensions_field()
    app_data: dict[str, dict[str, JSONValue]] = app_data_field()
    passthrough: dict[str, JSONValue] = passthrough_field()


class LazyMessages(Sequence[ChatMessage]):
    """Messages parsed on demand from a re-iterable source (a chat file read line by line).

    Each iteration starts again from the source and yields fresh objects, so at most one
    message is alive per iteration; changes to a yielded message are not kept.  ``len`` and
    indexing iterate (once for ``len``, which is cached); truth parses the first message only.
    """

    __slots__ = ("_count", "_factory")

    def __init__(self, factory: Callable[[], Iterator[ChatMessage]],
                 count: int | None = None) -> None:
        self._factory = factory
        self._count = count

    def __iter__(self) -> Iterator[ChatMessage]:
        return self._factory()

    def __len__(self) -> int:
        if self._count is None:
            self._count = sum(1 for _ in self._factory())
        return self._count

    def __bool__(self) -> bool:
        """Whether there is a message: parses the first one only, never counts them all."""
        if self._count is not None:
            return self._count > 0
        first = self._factory()
        try:
            return next(first, None) is not None
        finally:
            close = getattr(first, "close", None)
            if close is not None:
                close()

    @overload
    def __getitem__(self, index: int) -> ChatMessage: ...

    @overload
    def __getitem__(self, index: slice) -> list[ChatMessage]: ...

    def __getitem__(self, index: int | slice) -> ChatMessage | list[ChatMessage]:
        if isinstance(index, slice):
            return list(self)[index]
        if index < 0:
            index += len(self)
        for i, message in enumerate(self._factory()):
            if i == index:
                return message
        raise IndexError("message index out of range")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Sequence) or isinstance(other, str | bytes):
            return NotImplemented
        mine, theirs = iter(self), iter(other)
        sentinel = object()
        while True:
            a, b = next(mine, sentinel), next(theirs, sentinel)
            if a is sentinel or b is sentinel:
                return a is b
            if a != b:
                return False

    __hash__ = None  # type: ignore[assignment]

    def __deepcopy__(self, memo: dict[int, Any]) -> LazyMessages:
        return self  # the source is immutable and every iteration yields fresh objects

    def mapped(self, change: Callable[[ChatMessage], ChatMessage]) -> LazyMessages:
        """These messages with ``change`` applied to each as it is produced: still lazy, so
        a large chat can be transformed (its layout stripped, say) without being held."""
        factory = self._factory
        return LazyMessages(lambda: (change(m) for m in factory()), self._count)

    def __repr__(self) -> str:
        counted = f"{self._count} messages" if self._count is not None else "not counted"
        return f"LazyMessages({counted})"


MAX_ALTERNATIVES = 10_000
"""The most alternatives (swipes, retries, versions, outputs) one message may have.  Each is an
object of its own in memory, hundreds of times the four bytes a one-letter swipe takes in a
file, so a reader refuses a message with more (:func:`check_alternatives`) rather than let a
small file fill the memory; real chats hold a few dozen at most."""

HELD_ITEMS = 20_000
"""How many messages and alternatives a chat read from memory holds as a list; a chat with more
is handed over as :class:`LazyMessages` (:func:`held_or_lazy`), one message alive at a time."""


def check_alternatives(count: int, where: str) -> None:
    """Refuse a message with more than :data:`MAX_ALTERNATIVES` alternatives; ``where`` names
    it in the error (``line 2``, ``$.messages[4]``)."""
    if count > MAX_ALTERNATIVES:
        from ..errors import LimitExceeded

        raise LimitExceeded(f"{where}: alternatives", count, MAX_ALTERNATIVES, "",
                            message=f"{where}: {count:,} alternatives (swipes) in one message, "
                                    f"over the limit of {MAX_ALTERNATIVES:,}")


def held_or_lazy(make: Callable[[], Iterator[ChatMessage]],
                 budget: int = HELD_ITEMS) -> Sequence[ChatMessage]:
    """The messages ``make`` produces: a list while they and their alternatives number at most
    ``budget``, else a :class:`LazyMessages` producing them anew each time it is iterated, so
    a small file of tiny messages never becomes hundreds of times its size in memory.

    ``make`` must produce the same messages each time it is called (read from the file or from
    the document a reader parsed)."""
    held: list[ChatMessage] = []
    items = 0
    produced = make()
    for message in produced:
        items += 1 + len(message.alternatives)
        if items > budget:
            close = getattr(produced, "close", None)
            if close is not None:
                close()
            return LazyMessages(make)
        held.append(message)
    return held


def _keep_lazy(value: Any, handler: ValidatorFunctionWrapHandler) -> Any:
    return value if isinstance(value, LazyMessages) else handler(value)


def _dump_lazy(value: Any, handler: SerializerFunctionWrapHandler) -> Any:
    return handler(list(value) if isinstance(value, LazyMessages) else value)


Messages = Annotated[Sequence[ChatMessage], WrapValidator(_keep_lazy),
                     WrapSerializer(_dump_lazy)]
"""A list of messages, or a :class:`LazyMessages`; serialized as a list either way."""


class Chat(EntityBase):
    """A conversation.  ``None`` on an optional field means the source did not state it."""

    kind: Literal["chat"] = Field("chat", description="the entity kind, always chat")
    title: str | None = Field(None, description="the chat's name in the app")
    participants: list[Participant] = Field(
        default_factory=list, description="who the chat declares (user names, characters)")
    created: datetime | None = Field(None, description="when the chat was started (UTC)")
    time_zone: str | None = Field(
        None, description="the zone the chat's times were read in because the file writes them "
                          "as wall-clock texts without one: 'local' (the machine's) or 'utc'; "
                          "None when every time names an instant")
    notes: str | None = Field(None, description="author's note")
    memory: str | None = Field(None, description="memory or summary the app keeps")
    scenario: str | None = Field(None, description="chat-level scenario text")
    greeting: str | None = Field(None, description="chat-level greeting, outside the log")
    example_dialogue: str | None = Field(None, description="chat-level example dialogue")
    system_prompt: str | None = Field(None, description="chat-level instructions")
    branch_of: str | None = Field(None, description="the chat this one branched from")
    lorebook: Lorebook | None = Field(None, description="chat-scoped lorebook entries")
    messages: Messages = Field(default_factory=list, description="the messages, in order")

    def iter_messages(self) -> Iterator[ChatMessage]:
        """The messages in order, one at a time (never materializes a lazy chat)."""
        return iter(self.messages)

    def materialize(self) -> Chat:
        """This chat with its messages held in a list (for editing or random access)."""
        if isinstance(self.messages, LazyMessages):
            self.messages = list(self.messages)
        return self

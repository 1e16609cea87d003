"""The loss rule on chats: a lazy message list is walked once, chat fields have neutral values."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime
from typing import Any

import pytest

from bunzai.loss.neutral import Neutrality
from bunzai.loss.rule import Carried, changes, unheld, without_layout
from bunzai.sdk import Alternative, Chat, ChatMessage
from bunzai.sdk.chats import LazyMessages

T = datetime(2024, 11, 3, 21, 4, tzinfo=UTC)


def _messages() -> list[ChatMessage]:
    return [
        ChatMessage(role="user", speaker="Ada", text="Hi", time=T, id="a1",
                    app_data={"x-app": {"mood": "wet"}}, passthrough={"x-app": {"order": 1}}),
        ChatMessage(role="character", text="Yes?", chosen=1, alternatives=[
            Alternative(text="No."), Alternative(text="Yes?", reasoning="wary")]),
        ChatMessage(role="narrator", text="Thunder.", hidden=True, model="m-7b"),
    ]


class _Once(LazyMessages):
    """A lazy list that counts how often it is iterated and refuses to be measured or indexed."""

    def __init__(self, make: Callable[[], Iterator[ChatMessage]]) -> None:
        super().__init__(make)
        self.runs = 0

    def __iter__(self) -> Iterator[ChatMessage]:
        self.runs += 1
        return super().__iter__()

    def __len__(self) -> int:
        raise AssertionError("the loss rule asked a lazy chat for its length")

    def __getitem__(self, index: Any) -> Any:
        raise AssertionError("the loss rule indexed a lazy chat")


def _lazy(messages: list[ChatMessage]) -> _Once:
    return _Once(lambda: (m.model_copy(deep=True) for m in messages))


CARRIED = Carried.of(["messages[*].role", "messages[*].text", "messages[*].alternatives[*].text"])


def test_unheld_walks_a_lazy_chat_once_and_finds_what_a_list_shows() -> None:
    as_list = Chat(messages=_messages())
    lazy = Chat()
    lazy.messages = source = _lazy(_messages())
    expected = unheld(as_list, CARRIED, Neutrality(), own="tiny")
    assert unheld(lazy, CARRIED, Neutrality(), own="tiny") == expected
    assert source.runs == 1
    assert {"messages[0].speaker", "messages[0].time", "messages[0].app_data.x-app.mood",
            "messages[1].chosen", "messages[1].alternatives[1].reasoning",
            "messages[2].hidden", "messages[2].model"} == set(expected)


@pytest.mark.parametrize("lazy_side", ["before", "after", "both"])
def test_changes_compares_a_lazy_chat_message_by_message(lazy_side: str) -> None:
    edited = _messages()
    edited[1].alternatives[0].text = "Never."
    del edited[2]
    before = Chat(messages=_lazy(_messages()) if lazy_side != "after" else _messages())
    after = Chat(messages=_lazy(edited) if lazy_side != "before" else edited)
    assert changes(before, after, Neutrality()) == ["messages[1].alternatives[0].text",
                                                    "messages[2]"]


def test_layout_is_stripped_from_a_lazy_chat_as_it_is_read() -> None:
    chat = Chat(messages=_lazy(_messages()), passthrough={"x-app": {"eol": "\r\n"}})
    bare = without_layout(chat)
    assert isinstance(bare.messages, LazyMessages) and bare.passthrough == {}
    first = next(iter(bare.messages))
    assert first.passthrough == {} and first.app_data == {"x-app": {"mood": "wet"}}
    assert next(iter(chat.messages)).passthrough == {"x-app": {"order": 1}}  # source untouched


def test_chat_neutral_values() -> None:
    neutral = Neutrality()
    a = Chat(messages=[ChatMessage(text="Hi", id="a1", chosen=0,
                                   alternatives=[Alternative(text="Hi")])])
    b = Chat(messages=[ChatMessage(text="Hi", id="zz")])
    # an app's message id, a choice among fewer than two, hidden false: no change, no loss
    assert changes(a, b, neutral) == ["messages[0].alternatives[0]"]
    held = ["messages[*].role", "messages[*].text"]
    assert unheld(a, Carried.of(held), neutral) == ["messages[0].alternatives"]
    two = ChatMessage(text="Hi", chosen=1, alternatives=[Alternative(text="Ho"),
                                                        Alternative(text="Hi")])
    assert unheld(Chat(messages=[two]), Carried.of([*held, "messages[*].alternatives"]),
                  neutral) == ["messages[0].chosen"]


def test_a_format_declares_neutral_values_for_its_keys_on_chat_objects() -> None:
    neutral = Neutrality([("messages[*].app_data.x-app.flag", (False,)),
                          ("messages[*].alternatives[*].app_data.x-app.n", (0,))])
    chat = Chat(messages=[ChatMessage(text="Hi", app_data={"x-app": {"flag": False}},
                                      alternatives=[Alternative(text="a"), Alternative(
                                          text="b", app_data={"x-app": {"n": 0}})])])
    assert unheld(chat, Carried.of(["messages[*].role", "messages[*].text",
                                    "messages[*].alternatives[*].text"]), neutral) == []
    with pytest.raises(ValueError, match="only under extensions or app_data"):
        Neutrality([("messages[*].text", ("",))])

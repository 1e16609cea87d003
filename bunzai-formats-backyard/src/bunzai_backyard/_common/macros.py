"""Backyard's text macros and example-dialogue layout, translated to the Character Card ones.

Backyard writes ``{character}`` and ``{user}`` (and ``#{character}:`` / ``#{user}:`` as speaker
labels at the start of a dialogue line); cards write ``{{char}}`` and ``{{user}}`` (and
``{{char}}:`` / ``{{user}}:``).  Matching is case-insensitive, as SillyTavern's BYAF import does.
Party placeholders (``{_cfg&:<id>:cfg&_}``) and Ginger's ``{original}`` have no card equivalent
and pass through untouched.

A text that would not come back exactly (it already uses the other convention) keeps its raw
spelling as layout (see ``tables.py``).
"""

from __future__ import annotations

import re

_BY_LABEL = re.compile(r"^#\{(character|user)\}:", re.IGNORECASE | re.MULTILINE)
_BY_MACRO = re.compile(r"(?<!\{)\{(character|user)\}(?!\})", re.IGNORECASE)
_CC_LABEL = re.compile(r"^\{\{(char|user)\}\}:", re.IGNORECASE | re.MULTILINE)
_CC_MACRO = re.compile(r"\{\{(char|user)\}\}|<(bot|user)>", re.IGNORECASE)
_START = re.compile(r"^<START>[ \t]*(?:\n|$)", re.MULTILINE)


def _who(word: str) -> str:
    return "user" if word.lower() == "user" else "char"


def to_card(text: str, dialogue: bool = False) -> str:
    """Backyard text -> card text. ``dialogue`` also turns ``#{…}:`` line labels into ``{{…}}:``."""
    if "{" not in text:
        return text
    if dialogue:
        text = _BY_LABEL.sub(lambda m: "{{" + _who(m[1]) + "}}:", text)
    return _BY_MACRO.sub(lambda m: "{{" + _who(m[1]) + "}}", text)


def to_backyard(text: str, dialogue: bool = False) -> str:
    """Card text -> Backyard text (``<BOT>``/``<USER>`` count as ``{{char}}``/``{{user}}``)."""
    if "{" not in text and "<" not in text:
        return text
    if dialogue:
        text = _CC_LABEL.sub(
            lambda m: "#{user}:" if m[1].lower() == "user" else "#{character}:", text)

    def one(m: re.Match[str]) -> str:
        word = m[1] or m[2]
        return "{user}" if word.lower() == "user" else "{character}"

    return _CC_MACRO.sub(one, text)


# -- example dialogue --------------------------------------------------------------------------


def join_examples(texts: list[str]) -> str:
    """Example dialogues as one ``mes_example``: each block headed by ``<START>`` (as ST does)."""
    return "\n".join("<START>\n" + t for t in texts)


def split_examples(mes: str) -> list[str]:
    """``mes_example`` back into blocks; text before the first ``<START>`` is a block too."""
    if not mes:
        return []
    marks = list(_START.finditer(mes))
    if not marks:
        return [mes]
    out: list[str] = []
    if marks[0].start() > 0:
        out.append(mes[:marks[0].start()].removesuffix("\n"))
    for i, m in enumerate(marks):
        last = i + 1 == len(marks)
        body = mes[m.end():len(mes) if last else marks[i + 1].start()]
        out.append(body if last else body.removesuffix("\n"))
    return out


def dialogue_text(custom: str) -> str:
    """A legacy ``customDialogue`` as a card's ``mes_example`` (one block)."""
    return join_examples([to_card(custom, True)]) if custom else ""


def custom_dialogue(mes: str) -> str:
    """A card's ``mes_example`` as one ``customDialogue`` string (blocks joined by newlines)."""
    return "\n".join(to_backyard(b, True) for b in split_examples(mes))

"""Voxta's ``{{ char }}`` / ``{{ user }}`` and the card convention ``{{char}}`` / ``{{user}}``.

Voxta templates are Scriban: ``{{ char }}`` and ``{{ user }}`` are variables (lower case; Scriban
is case-sensitive, so ``{{ Char }}`` is not the character's name), written by Voxta with one space
inside the braces.  Cards write ``{{char}}`` and ``{{user}}`` and SillyTavern also accepts
``{{Char}}``, ``<BOT>`` and ``<USER>`` (case-insensitively).  Other Scriban expressions
(``{{ scenario_chars.main }}``, ``{{ has_flag "x" }}``) have no card meaning and pass through.

Readers keep the raw text where a translation would not come back exactly (as layout, see
``util.py``); writers report card text that does not survive (:func:`card_survives`).
"""

from __future__ import annotations

import re

_START = re.compile(r"^<START>[ \t]*$", re.MULTILINE | re.IGNORECASE)
_VOXTA = re.compile(r"\{\{\s*(char|user)\s*\}\}")
_CARD = re.compile(r"\{\{(char|user)\}\}|<(bot|user)>", re.IGNORECASE)


def to_card(text: str) -> str:
    """Voxta text -> card text."""
    if "{{" not in text:
        return text
    return _VOXTA.sub(lambda m: "{{" + m[1] + "}}", text)


def to_voxta(text: str) -> str:
    """Card text -> Voxta text."""
    if "{{" not in text and "<" not in text:
        return text

    def one(m: re.Match[str]) -> str:
        word = (m[1] or m[2]).lower()
        return "{{ user }}" if word == "user" else "{{ char }}"

    return _CARD.sub(one, text)


def card_survives(text: str) -> bool:
    """Whether card text comes back unchanged from the Voxta text written from it."""
    return to_card(to_voxta(text)) == text


def examples_to_voxta(text: str) -> str:
    """Card example dialogue -> Voxta's: blocks headed by ``<START>`` become blocks separated by
    a blank line, as Voxta writes them (it has no ``<START>`` marker)."""
    if "<" not in text or not _START.search(text):
        return to_voxta(text)
    blocks = [b.strip("\n") for b in _START.split(text)]
    return to_voxta("\n\n".join(b for b in blocks if b))

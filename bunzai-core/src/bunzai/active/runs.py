"""What a format's app runs: the vocabulary formats declare active content in
(``FormatInfo.runs``) and ``bunzai audit`` reports in."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

RUNS_WHEN = ("on import", "on chat start", "on every message", "on display", "on a click")
"""When an app acts on a field (:attr:`Runs.when`)."""


@dataclass(frozen=True, slots=True)
class Runs:
    """A field this format's app runs as a program or shows as HTML, for ``bunzai audit``
    (see docs/active-content.md).

    ``what`` is ``"javascript"``, ``"lua"`` or ``"command"`` for a field that is code, or
    ``"remote"`` for an address the app connects to (any non-empty value is a finding);
    ``"html"`` for markup the app puts into the chat by itself (any HTML element is a
    finding: a regex script's replacement, a background); ``"text"`` for text the app shows
    (active markup is a finding: scripts, handlers, frames, CSS, remote files); ``"prompt"``
    for text it only sends to the model (the same, CSS aside).  ``what`` and ``when`` may be a
    function ``(value, owner) -> str | None`` of the value and the object holding it (a regex
    script's switches say when it runs); None means nothing runs.
    """

    path: str
    """Canonical path pattern (``regex_scripts[*].replace``,
    ``extensions.TavernHelper_scripts[*].content``); ``*`` also matches any key."""
    app: str
    """The app (or extension) that acts on it, as users call it."""
    what: str | Callable[[Any, Any], str | None]
    when: str | Callable[[Any, Any], str | None]
    """One of :data:`RUNS_WHEN`."""
    carrier: str = ""
    """What holds it, in a user's words (``TavernHelper script``); by default the field's."""
    note: str = ""
    """What else a user should know (``after the user allows the card's regex scripts``)."""
    removes: tuple[str, ...] = ()
    """Kinds of markup the app removes before showing the text (``script``, ``handler``,
    ``iframe``): still reported, since another app may keep them, with that said."""

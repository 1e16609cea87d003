"""Writer options shared by the SillyTavern-family JSON writers."""

from __future__ import annotations

from bunzai.sdk import Option


def indent_option(default: int, help: str) -> Option:
    """The ``indent`` writer option of a SillyTavern-family JSON writer (0 is compact)."""
    return Option("indent", int, choices=(0, 2, 4), default=f"as read, else {default}",
                  help=help, layout=True)

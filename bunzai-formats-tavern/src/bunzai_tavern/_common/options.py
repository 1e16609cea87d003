"""Options shared by the SillyTavern-family readers and writers."""

from __future__ import annotations

from bunzai.sdk import Option


def indent_option(default: int, help: str) -> Option:
    """The ``indent`` writer option of a SillyTavern-family JSON writer (0 is compact)."""
    return Option("indent", int, choices=(0, 2, 4), default=f"as read, else {default}",
                  help=help, layout=True)


ZONE = Option(
    "zone", choices=("local", "utc"), default="local", reader=True,
    help="the zone of dates written as wall-clock texts without one (\"August 5, 2025 "
         "9:59pm\"): this machine's local time, as the app that wrote them used, or UTC")
"""The reader option of every chat format that writes wall-clock dates."""

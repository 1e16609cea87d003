"""The keys of a Tavern lorebook object around its entries, shared by every book format here.

A book carries its name, description and scan settings under two spellings: SillyTavern's
World Info and card books write ``scan_depth``, Agnai's memory books ``scanDepth``, and each
reads the other's as a second spelling (regenerated when it agrees, kept when it does not).
"""

from __future__ import annotations

from bunzai.sdk.fields import BOOL, DICT, INT, Table, field


def book_table(*, camel_first: bool) -> Table:
    """The book's own keys, the scan settings in camelCase first when ``camel_first``
    (Agnai), in snake_case first otherwise; ``extensions`` only when it holds something."""

    def spelled(snake: str, camel: str) -> tuple[str, str]:
        return (camel, snake) if camel_first else (snake, camel)

    return Table((
        field("name"),
        field("description"),
        field("scan_depth", *spelled("scan_depth", "scanDepth"), conv=INT),
        field("token_budget", *spelled("token_budget", "tokenBudget"), conv=INT),
        field("recursive_scanning", *spelled("recursive_scanning", "recursiveScanning"),
              conv=BOOL),
        field("extensions", conv=DICT, absent={}, omit_empty=True),
    ))

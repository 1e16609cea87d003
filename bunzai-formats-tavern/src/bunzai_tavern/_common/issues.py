"""One warning per cause: a rule broken by many entries is said once, with a count and the
first paths, so a book of 300 entries does not bury the one warning that matters."""

from __future__ import annotations

from collections.abc import Iterable

from bunzai.sdk import Issue

FIRST = 4
"""Paths named in a counted warning (the first one is its path)."""


def counted(paths: list[str], message: str) -> Issue:
    """One issue for ``message`` at every path of ``paths``."""
    if len(paths) == 1:
        return Issue(paths[0], message)
    others = ", ".join(paths[1:FIRST]) + (", …" if len(paths) > FIRST else "")
    return Issue(paths[0], f"{message} ({len(paths)} entries; also {others})")


def grouped(issues: Iterable[Issue], depth: int = 1) -> list[Issue]:
    """``issues`` about entries (``$.entries[…].key``), the same message about the same key of
    several entries counted once.  ``depth`` is how many ``[…]`` the entry path holds."""
    groups: dict[tuple[str, str], list[str]] = {}
    for issue in issues:
        cut = -1
        for _ in range(depth):
            cut = issue.path.find("]", cut + 1)
            if cut < 0:
                break
        head, rest = (issue.path, "") if cut < 0 else (issue.path[:cut + 1],
                                                         issue.path[cut + 1:])
        groups.setdefault((rest, issue.message), []).append(head)
    return [counted([h + rest for h in heads], message)
            for (rest, message), heads in groups.items()]

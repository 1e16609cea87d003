"""Loss reports: what a writer could not carry, as data.

A loss report is the truth about a conversion: the matrix tests compare the entity before and
after A→B→canonical and fail on any difference the report did not list.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import asdict, dataclass, field
from typing import Literal

LossAction = Literal["dropped", "approximated", "stashed"]


@dataclass(frozen=True, slots=True)
class LossEntry:
    """One thing the target format could not hold as it was.

    ``path`` is a canonical field path (``lorebook.entries[3].sticky``, ``assets[2]``,
    ``passthrough.risu-charx``); ``action`` says what happened to it.
    """

    path: str
    action: LossAction
    reason: str

    def to_dict(self) -> dict[str, str]:
        return asdict(self)

    def __str__(self) -> str:
        return f"{self.action}: {self.path} ({self.reason})"


@dataclass
class LossReport:
    """An ordered list of :class:`LossEntry`, with shorthands for writers."""

    entries: list[LossEntry] = field(default_factory=list)

    def add(self, path: str, action: LossAction, reason: str) -> None:
        self.entries.append(LossEntry(path, action, reason))

    def dropped(self, path: str, reason: str) -> None:
        self.add(path, "dropped", reason)

    def approximated(self, path: str, reason: str) -> None:
        self.add(path, "approximated", reason)

    def stashed(self, path: str, reason: str) -> None:
        self.add(path, "stashed", reason)

    def extend(self, other: LossReport, prefix: str = "") -> None:
        for e in other.entries:
            self.entries.append(LossEntry(prefix + e.path, e.action, e.reason))

    def covers(self, path: str) -> bool:
        """True when ``path`` or one of its ancestors is reported (as anything but stashed)."""
        for e in self.entries:
            if e.action == "stashed":
                continue
            if path == e.path or path.startswith(e.path + ".") or path.startswith(e.path + "["):
                return True
        return False

    def __iter__(self) -> Iterator[LossEntry]:
        return iter(self.entries)

    def __len__(self) -> int:
        return len(self.entries)

    def __bool__(self) -> bool:
        return bool(self.entries)

    def to_list(self) -> list[dict[str, str]]:
        return [e.to_dict() for e in self.entries]

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
    _covered: tuple[int, set[str], set[str]] | None = field(
        default=None, init=False, repr=False, compare=False)

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

    def covers(self, path: str, *, stashed: bool = False) -> bool:
        """True when ``path`` or one of its ancestors is reported (as anything but stashed,
        unless ``stashed``).

        Ancestors are the prefixes ending before a ``.`` or ``[``.  Callers ask this once per
        field of an entity, so the reported paths are kept as a set, rebuilt only when the
        report has grown (entries are only ever appended).
        """
        n = len(self.entries)
        if self._covered is None or self._covered[0] != n:
            self._covered = (n, {e.path for e in self.entries if e.action != "stashed"},
                             {e.path for e in self.entries})
        reported = self._covered[2] if stashed else self._covered[1]
        if not reported:
            return False
        if path in reported:
            return True
        return any(path[:i] in reported for i, ch in enumerate(path) if ch in ".[")

    def __iter__(self) -> Iterator[LossEntry]:
        return iter(self.entries)

    def __len__(self) -> int:
        return len(self.entries)

    def __bool__(self) -> bool:
        return bool(self.entries)

    def to_list(self) -> list[dict[str, str]]:
        return [e.to_dict() for e in self.entries]

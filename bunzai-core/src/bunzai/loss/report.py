"""Loss reports: what a writer could not carry, as data.

A loss report is the truth about a conversion: the matrix tests compare the entity before and
after A→B→canonical and fail on any difference the report did not list.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

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
    _covered: tuple[int, set[str], set[str], set[str]] | None = field(
        default=None, init=False, repr=False, compare=False)

    def add(self, path: str, action: LossAction, reason: str) -> None:
        self.entries.append(LossEntry(path, action, reason))

    def dropped(self, path: str, reason: str) -> None:
        self.add(path, "dropped", reason)

    def approximated(self, path: str, reason: str) -> None:
        self.add(path, "approximated", reason)

    def stashed(self, path: str, reason: str) -> None:
        self.add(path, "stashed", reason)

    def left_out(self, path: str, gone: Mapping[int, str], count: int) -> None:
        """Items a writer leaves out of the list at ``path`` (``count`` items long): index ->
        why.

        Each is dropped by its own path, its index in the source.  An item gone from the middle
        moves every later item up, so their indices would name the wrong items: the list is
        reported once for them (approximated), never item by item.
        """
        for i in sorted(gone):
            self.dropped(f"{path}[{i}]", gone[i])
        if gone and not all(i in gone for i in range(min(gone), count)):
            name = re.split(r"[.\]]", path)[-1] or "items"
            self.approximated(path, f"the {name} after a left-out one move up")

    def extend(self, other: LossReport, prefix: str = "") -> None:
        for e in other.entries:
            self.entries.append(LossEntry(prefix + e.path, e.action, e.reason))

    def covers(self, path: str, *, stashed: bool = False, items: bool = True) -> bool:
        """True when ``path`` or one of its ancestors is reported (as anything but stashed,
        unless ``stashed``).

        Ancestors are the prefixes ending before a ``.`` or ``[``.  With ``items=False`` a list
        reported only as approximated (its items moved up, see :meth:`left_out`) does not
        cover what is inside its items: what an item loses is still said by its own path.
        Callers ask this once per field of an entity, so the reported paths are kept as sets
        that take in the entries appended since the last call (entries are only ever
        appended).
        """
        n = len(self.entries)
        if self._covered is None or self._covered[0] > n:
            self._covered = (0, set(), set(), set())
        seen, kept, every, whole = self._covered
        if seen != n:  # entries are only ever appended: index the new ones
            for e in self.entries[seen:]:
                every.add(e.path)
                if e.action != "stashed":
                    kept.add(e.path)
                if e.action != "approximated":
                    whole.add(e.path)
            self._covered = (n, kept, every, whole)
        reported = every if stashed else kept
        if not reported:
            return False
        if path in reported:
            return True
        return any(ch in ".[" and path[:i] in reported
                   and (items or ch == "." or path[:i] in whole)
                   for i, ch in enumerate(path))

    def __iter__(self) -> Iterator[LossEntry]:
        return iter(self.entries)

    def __len__(self) -> int:
        return len(self.entries)

    def __bool__(self) -> bool:
        return bool(self.entries)

    def to_list(self) -> list[dict[str, str]]:
        return [e.to_dict() for e in self.entries]

    @classmethod
    def from_list(cls, entries: list[dict[str, Any]]) -> LossReport:
        """A report again from :meth:`to_list` (a batch's worker sends its report as JSON)."""
        return cls([LossEntry(e["path"], e["action"], e["reason"]) for e in entries])

    # -- how people read it (the CLI and the studio both show these) ---------------------------

    def counts(self) -> dict[str, int]:
        """Entries per action, in the order the summary names them (zero counts left out)."""
        found = {a: 0 for a in _ACTIONS}
        for e in self.entries:
            found[e.action] = found.get(e.action, 0) + 1
        return {a: n for a, n in found.items() if n}

    def summary(self) -> str:
        """One line: ``12 dropped, 3 approximated``, or ``nothing lost``."""
        return ", ".join(f"{n} {a}" for a, n in self.counts().items()) or "nothing lost"

    def groups(self) -> list[LossGroup]:
        """Entries that differ only in their indices and share action and reason, as one group
        each (``lorebook.entries[*].sticky`` for twelve entries), in report order."""
        found: dict[tuple[str, LossAction, str], list[str]] = {}
        for e in self.entries:
            found.setdefault((_INDEX.sub("[*]", e.path), e.action, e.reason), []).append(e.path)
        return [LossGroup(pattern if len(paths) > 1 else paths[0], action, reason, tuple(paths))
                for (pattern, action, reason), paths in found.items()]

    def lines(self, *, verbose: bool = False) -> list[str]:
        """The report for people: the summary, then one line per group (every entry with
        ``verbose``).  ``--json`` output carries :meth:`to_list` instead: every entry."""
        if verbose:
            return [self.summary(), *(f"{e.action} {e.path}: {e.reason}" for e in self.entries)]
        return [self.summary(), *_merged_lines(self.groups())]

    def to_summary(self) -> dict[str, Any]:
        """The summary and the groups as JSON (the studio shows them as the CLI does)."""
        return {"summary": self.summary(), "counts": self.counts(),
                "groups": [g.to_dict() for g in self.groups()]}


_ACTIONS: tuple[LossAction, ...] = ("dropped", "approximated", "stashed")
_INDEX = re.compile(r"\[\d+\]")


@dataclass(frozen=True, slots=True)
class LossGroup:
    """Report entries with one action and reason whose paths differ only in their indices."""

    path: str
    """The shared path with indices as ``[*]``; the entry's own path for a group of one."""
    action: LossAction
    reason: str
    paths: tuple[str, ...]

    @property
    def count(self) -> int:
        return len(self.paths)

    def line(self) -> str:
        """``dropped lorebook.entries[*].probability (12 entries): Backyard has none``."""
        if self.count == 1:
            return f"{self.action} {self.path}: {self.reason}"
        return f"{self.action} {self.path} ({self.count} {self.noun}): {self.reason}"

    @property
    def noun(self) -> str:
        """What the counted things are: the list the last ``[*]`` indexes (``entries``)."""
        head = self.path[: self.path.rfind("[*]")]
        name = re.split(r"[.\]]", head)[-1]
        return name or "items"

    def to_dict(self) -> dict[str, Any]:
        return {"path": self.path, "action": self.action, "reason": self.reason,
                "count": self.count, "paths": list(self.paths)}


def _merged_lines(groups: list[LossGroup]) -> list[str]:
    """One line per reason and parent: the fields of one object that go for one reason are
    named together (``dropped app_data.sillytavern.{avatar, chat}: ...``, ``dropped creator,
    source: ...``), at the place the first of them is reported."""
    merged: dict[tuple[str, str, str], list[LossGroup]] = {}
    order: list[tuple[str, str, str] | LossGroup] = []
    for g in groups:
        parent, _, name = g.path.rpartition(".")
        if "[" in name:
            order.append(g)
            continue
        key = (g.action, g.reason, parent)
        if key not in merged:
            merged[key] = []
            order.append(key)
        merged[key].append(g)
    out: list[str] = []
    for item in order:
        if isinstance(item, LossGroup):
            out.append(item.line())
            continue
        same = merged[item]
        if len(same) == 1:
            out.append(same[0].line())
            continue
        action, reason, parent = item
        names = ", ".join(g.path.rpartition(".")[2] for g in same)
        owners = {p.rpartition(".")[0] for g in same for p in g.paths}
        many = f" ({len(owners)} {same[0].noun})" if "[*]" in parent else ""
        where = f"{parent}.{{{names}}}" if parent else names
        out.append(f"{action} {where}{many}: {reason}")
    return out


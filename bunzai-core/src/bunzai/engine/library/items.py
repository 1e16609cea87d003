"""The units of a move: a planned item (:class:`Task`) and what became of it (:class:`Item`).

An item is what a user thinks of as one thing: a character with its chats and books, a world,
the personas, a group.  Its result carries no entity and no bytes, only names, hashes and the
loss report's lines, so it is small on its way back from a worker and in the manifest.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from .model import given

ItemKind = Literal["character", "world", "personas", "regex", "group", "chats", "quick_replies",
                   "presets", "themes", "other", "secret", "file"]
Status = Literal["written", "approximated", "dropped", "failed", "unchanged"]
STATUSES: tuple[Status, ...] = ("written", "approximated", "dropped", "failed", "unchanged")


@dataclass(frozen=True, slots=True)
class Task:
    """One item to move, planned in the parent: its sources and where its files go."""

    id: str
    """Stable across runs (``character:characters/Mia.png``): the manifest's key."""
    kind: ItemKind
    name: str
    sources: tuple[str, ...]
    """Files known to belong to it before anything is read, relative to the library."""
    out: str
    """Where its files go, relative to the output folder (a folder or a stem)."""
    size: int = 0
    params: tuple[tuple[str, Any], ...] = ()

    def param(self, key: str, default: Any = None) -> Any:
        return dict(self.params).get(key, default)


@dataclass(slots=True)
class Item:
    """What became of one item: written (nothing lost), approximated (written, with losses),
    dropped (the target has no place for it), failed, or unchanged since the last run."""

    id: str
    kind: ItemKind
    name: str
    status: Status = "written"
    sources: dict[str, str] = field(default_factory=dict)
    """Source file -> sha256 of the bytes read."""
    outputs: dict[str, dict[str, Any]] = field(default_factory=dict)
    """Output file -> ``{sha256, size}``."""
    loss: dict[str, Any] = field(default_factory=dict)
    """The loss report as people read it: ``summary``, ``counts``, ``lines`` and ``groups``
    (each group's pattern, action, reason and count)."""
    notes: list[str] = field(default_factory=list)
    """What the move did beyond the formats' own loss reports (a book merged, a link kept)."""
    reason: str | None = None
    """Why the item is dropped."""
    error: str | None = None
    exit_code: int = 0
    worlds: list[str] = field(default_factory=list)
    """World names the item carried (a card's linked books)."""
    target: str = ""
    options: dict[str, Any] = field(default_factory=dict)
    was: str | None = None
    """An unchanged item's status when it was written."""

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "id": self.id, "kind": self.kind, "name": self.name, "status": self.status,
            "sources": dict(self.sources), "outputs": dict(self.outputs),
            **given(loss=self.loss, notes=self.notes, reason=self.reason, error=self.error,
                    worlds=self.worlds, exit_code=self.exit_code)}
        if self.target:
            out.update(target=self.target, options=dict(self.options))
        return {**out, **given(was=self.was)}

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> Item:
        keys = set(cls.__slots__)
        return cls(**{k: v for k, v in data.items() if k in keys})

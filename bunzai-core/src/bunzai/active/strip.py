"""``--strip-active``: the entities without what the audit finds, every removal said.

A script, a trigger, an embedded file or a regex script whose output is HTML is taken out
whole (a regex script without its replacement would delete the text it matches); in text only
the offending markup goes (a ``<script>`` element, an ``on…`` attribute, a frame, a
``<style>`` element, a remote image, a ``javascript:`` address) and the text around it stays.
The given entities are never changed: what is edited is copied, what is not is shared.  The
result audits clean (a removal that makes new markup, ``<scr<script></script>ipt>``, is
stripped again; text that still is not clean after that is emptied).
"""

from __future__ import annotations

import copy
from collections.abc import Mapping, Sequence
from typing import Any

from ..loss.report import LossReport
from .findings import KINDS, Finding, Registry, audit_entity, path_text
from .markup import remove

ROUNDS = 3
"""Strip passes before text that still holds active content is emptied."""

Segments = tuple[str | int, ...]


def strip_entity(entity: Any, *, registry: Registry, format: str | None = None
                 ) -> tuple[Any, LossReport]:
    """``entity`` without its active content, and what went (each removal ``dropped`` with
    its reason).  Returns the entity itself when there is nothing to strip."""
    loss = LossReport()
    current = entity
    reported: set[str] = set()
    for round_ in range(ROUNDS + 1):
        found = audit_entity(current, format=format, registry=registry)
        if not found:
            return current, loss
        current = _apply(current, found, loss, reported, final=round_ == ROUNDS)
    return current, loss


def strip_entities(entities: Sequence[Any], *, registry: Registry,
                   format: str | None = None) -> tuple[list[Any], list[LossReport], list[int]]:
    """Each entity stripped, its removals, and the indices of entities that are active content
    whole (a regex script that only writes HTML): those are left out."""
    out: list[Any] = []
    losses: list[LossReport] = []
    gone: list[int] = []
    for i, e in enumerate(entities):
        new, loss = strip_entity(e, format=format, registry=registry)
        if new is None:
            gone.append(i)
            continue
        out.append(new)
        losses.append(loss)
    return out, losses, gone


def whole_reason(entity: Any, *, registry: Registry, format: str | None = None) -> str | None:
    """Why an entity is active content as a whole (a regex file's script that writes HTML),
    else None."""
    for f in audit_entity(entity, format=format, registry=registry):
        if f.site is not None and f.site.unit == ():
            return _reason([f])
    return None


def _reason(findings: Sequence[Finding]) -> str:
    first = findings[0]
    kinds: list[str] = []
    for f in findings:
        word = KINDS.get(f.kind, f.kind)
        if word not in kinds:
            kinds.append(word)
    carrier = first.carrier or "field"
    return (f"active content removed ({carrier}: {', '.join(kinds)}; {first.app} runs it "
            f"{first.when})")


def _apply(entity: Any, found: Sequence[Finding], loss: LossReport, reported: set[str], *,
           final: bool) -> Any:
    units: dict[Segments, list[Finding]] = {}
    texts: dict[Segments, list[Finding]] = {}
    for f in found:
        if f.site is None:
            continue
        if f.site.unit is not None:
            units.setdefault(f.site.unit, []).append(f)
        else:
            texts.setdefault(f.site.segments, []).append(f)
    if () in units:
        return None  # the entity itself (a regex script that only writes HTML)
    editor = _Editor(entity)
    for segs, fs in texts.items():
        if any(_under(segs, u) for u in units):
            continue
        old = editor.get(segs)
        if not isinstance(old, str):
            continue
        hits = [h for f in fs for h in (f.site.hits if f.site else ()) if h.kind != "html"]
        new = "" if final else remove(old, hits)
        editor.set(segs, new)
        path = path_text(segs)
        if path not in reported:
            reported.add(path)
            loss.dropped(path, _reason(fs) + ("; the rest of the text is kept" if new else ""))
    lists: dict[Segments, dict[int, str]] = {}
    for unit, fs in units.items():
        if any(_under(unit, u) and u != unit for u in units):
            continue  # inside another unit that goes whole
        if isinstance(unit[-1], int):
            lists.setdefault(unit[:-1], {})[unit[-1]] = _reason(fs)
        else:
            editor.delete(unit)
            path = path_text(unit)
            if path not in reported:
                reported.add(path)
                loss.dropped(path, _reason(fs))
    for parent, gone in sorted(lists.items(), key=lambda kv: -len(kv[0])):  # inner lists first
        items = editor.get(parent)
        count = len(items) if isinstance(items, Sequence) else 0
        editor.remove_items(parent, sorted(gone))
        path = path_text(parent)
        fresh = {i: why for i, why in gone.items() if f"{path}[{i}]" not in reported}
        if fresh:
            reported.update(f"{path}[{i}]" for i in fresh)
            loss.left_out(path, fresh, count)
    return editor.root


def _under(segs: Segments, unit: Segments) -> bool:
    return segs[:len(unit)] == unit


class _Editor:
    """Copy-on-write edits of an entity: each container on an edited path is copied once,
    everything else is shared with the original."""

    def __init__(self, root: Any) -> None:
        self.root = root
        self.fresh: set[int] = set()
        self.root = self._own(root)

    def _own(self, obj: Any) -> Any:
        if id(obj) in self.fresh:
            return obj
        if hasattr(obj, "model_copy"):
            new = obj.model_copy()
        elif isinstance(obj, Mapping):
            new = dict(obj)
        elif isinstance(obj, Sequence):  # a lazily read chat's messages: held from here on
            new = list(obj)
        else:
            new = copy.copy(obj)
        self.fresh.add(id(new))
        return new

    @staticmethod
    def _child(obj: Any, seg: str | int) -> Any:
        if isinstance(seg, int):
            return obj[seg]
        if isinstance(obj, Mapping):
            return obj[seg]
        return getattr(obj, seg)

    @staticmethod
    def _put(obj: Any, seg: str | int, value: Any) -> None:
        if isinstance(seg, int) or isinstance(obj, dict):
            obj[seg] = value
        else:
            setattr(obj, seg, value)

    def get(self, segs: Segments) -> Any:
        cur = self.root
        for s in segs:
            cur = self._child(cur, s)
        return cur

    def _parent(self, segs: Segments) -> Any:
        cur = self.root
        for s in segs[:-1]:
            child = self._own(self._child(cur, s))
            self._put(cur, s, child)
            cur = child
        return cur

    def set(self, segs: Segments, value: Any) -> None:
        self._put(self._parent(segs), segs[-1], value)

    def delete(self, segs: Segments) -> None:
        parent = self._parent(segs)
        last = segs[-1]
        if isinstance(parent, dict) and not isinstance(last, int):
            parent.pop(last, None)
        elif hasattr(type(parent), "model_fields") and isinstance(last, str):
            default = type(parent).model_fields[last].get_default(call_default_factory=True)
            setattr(parent, last, default)

    def remove_items(self, segs: Segments, indices: Sequence[int]) -> None:
        parent = self._parent(segs) if segs else None
        items = self._own(self._child(parent, segs[-1]) if parent is not None else self.root)
        for i in sorted(indices, reverse=True):
            del items[i]
        if parent is not None:
            self._put(parent, segs[-1], items)

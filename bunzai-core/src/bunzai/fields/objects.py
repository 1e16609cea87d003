"""Reading and writing an object key by key, for code with logic between keys, into the same
layout and app data a :class:`~.table.Table` records; and the helpers that keep them on a
model (``keep``, ``kept``, ``reorder``)."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ..errors import Issue
from ..io.frozen import thaw
from ..loss.report import LossReport
from .convert import _MISSING, INT, OMIT, STR, Conv, Unrepresentable, jcopy
from .table import Field, Reading, Table, _fresh, _join, _keep, _quote, _write_one


class ObjectReader:
    """Reads one JSON object key by key, for code that needs its own logic between keys.

    Each :meth:`get` is one single-spelling :class:`Field` read exactly as a :class:`Table`
    reads it, into the same layout and data; :meth:`finish` adds the keys nobody asked for to
    the data and the key order to the layout.  Custom layout goes in :attr:`layout` directly.
    """

    def __init__(self, obj: Mapping[str, Any], path: str, warnings: list[Issue] | None = None,
                 *, owned: bool = False, skip: Sequence[str] = ()) -> None:
        self.src: Mapping[str, Any] = obj if type(obj) is dict else thaw(obj)
        self.path = path
        self.warnings = warnings
        self.owned = owned or self.src is not obj  # a thawed copy is this reader's own
        self.skip = frozenset(skip)
        self.values: dict[str, Any] = {}
        self.layout: dict[str, Any] = {}
        self.data: dict[str, Any] = {}
        self.raw: dict[str, Any] = {}
        """Originals of another type or ``null`` whose canonical value reads the same."""
        self.absent: list[str] = []
        """Keys the source lacked although a writer would add them."""
        self._read: list[str] = []

    def has(self, key: str) -> bool:
        return key in self.src

    def get(self, key: str, conv: Conv = STR, absent: Any = None, *, null: bool = False,
            quiet: bool = False) -> Any:
        """The canonical value of ``key`` (``absent`` when it is missing or unreadable)."""
        self._read.append(key)
        r = self.src.get(key, _MISSING)
        if r is _MISSING:
            # a writer adds the key back for a stated value (or null), so record the gap
            if absent is not None or null:
                self.absent.append(key)
            return _fresh(absent)
        if conv.exact(r):
            t = type(r)
            return r if (t is not list and t is not dict) or self.owned else jcopy(r)
        return Table._slow_one(_field_for(key, conv, absent, null, quiet), key, conv, r,
                               self.path, self.warnings, self.raw, self.data)

    def get_all(self, specs: Sequence[tuple[str, str, Conv, Any]], into: dict[str, Any], *,
                quiet_whole_floats: bool = False) -> None:
        """``into[attr] = self.get(key, conv, absent)`` for each ``(key, attr, conv, absent)``,
        in order, in one call (a card reads twenty keys this way).  ``quiet_whole_floats``:
        an INT key holding a whole float is read as :meth:`get` with ``quiet=True`` reads it."""
        src_get = self.src.get
        read = self._read
        owned = self.owned
        missing = _MISSING
        for key, attr, conv, absent in specs:
            read.append(key)
            r = src_get(key, missing)
            if r is missing:
                if absent is not None:
                    self.absent.append(key)
                into[attr] = _fresh(absent)
                continue
            if conv.exact(r):
                t = type(r)
                into[attr] = r if (t is not list and t is not dict) or owned else jcopy(r)
                continue
            quiet = (quiet_whole_floats and conv is INT and isinstance(r, float)
                     and r.is_integer())
            into[attr] = Table._slow_one(_field_for(key, conv, absent, False, quiet), key, conv,
                                         r, self.path, self.warnings, self.raw, self.data)

    def consume(self, key: str) -> None:
        """Mark ``key`` as handled by the caller (it is neither data nor left over)."""
        self._read.append(key)

    def warn(self, key: str, message: str) -> None:
        if self.warnings is not None:
            self.warnings.append(Issue(f"{self.path}{_quote(key)}", message))

    def finish(self, default_order: Sequence[str] | None = ()) -> Reading:
        """The layout and data of the object (values are what :meth:`get` returned).

        The key order is recorded when it is not ``default_order``'s; ``None``: the caller
        records the order itself."""
        take = _keep if self.owned else jcopy
        read = set(self._read)
        for k, v in self.src.items():
            if k not in read and k not in self.skip and k not in self.data:
                self.data[k] = take(v)
        if self.raw:
            self.layout["raw"] = self.raw
        if self.absent:
            self.layout["absent"] = self.absent
        if default_order is not None and not _keeps_order(self.src, default_order):
            self.layout["order"] = list(self.src)
        return Reading(self.values, self.layout, self.data)


class ObjectWriter:
    """Writes one JSON object key by key, restoring what an :class:`ObjectReader` recorded.

    ``faithful`` is true when the object came from this format (there is a layout to
    restore); writers use it to decide, for a key the source did not have, whether to add
    what their spec requires.
    """

    def __init__(self, layout: Mapping[str, Any] | None = None,
                 data: Mapping[str, Any] | None = None,
                 loss: LossReport | None = None, loss_path: str = "") -> None:
        self.layout: Mapping[str, Any] = layout if isinstance(layout, Mapping) else {}
        self.data: Mapping[str, Any] = data if isinstance(data, Mapping) else {}
        self.faithful = bool(self.layout)
        self.loss = loss
        self.loss_path = loss_path
        self.raw: Mapping[str, Any] = self.layout.get("raw") or {}
        self.absent = frozenset(self.layout.get("absent") or ())
        self.out: dict[str, Any] = {}
        self._dropped: set[str] = set()

    def omit(self, key: str) -> None:
        """Leave ``key`` out, even where the source's data would put it back."""
        self._dropped.add(key)
        self.out.pop(key, None)

    def was_absent(self, key: str) -> bool:
        return key in self.absent

    def was_null(self, key: str) -> bool:
        return key in self.raw and self.raw[key] is None

    def put(self, key: str, value: Any, conv: Conv = STR, absent: Any = None, *,
            null: bool = False, required: Any = _MISSING) -> None:
        """Write ``value`` for ``key``: the original when the value still reads the same,
        nothing for a key the source lacked while the value is ``absent``, ``required`` for
        an unstated value in an object that did not come from this format."""
        if value is None and required is not _MISSING and not self.faithful:
            self.out[key] = required
            return
        if key not in self.raw and key not in self.absent and key not in self.data:
            # nothing recorded for the key: what _write_one does then, converting once
            if value is None:
                if null:
                    self.out[key] = None
                return
            try:
                self.out[key] = conv.source(value)
            except Unrepresentable as exc:
                if self.loss is not None:
                    self.loss.dropped(_join(self.loss_path, key), str(exc))
            return
        f = _field_for(key, conv, absent, null, False)
        w = _write_one(f, key, conv, value, self.raw, self.absent, self.data, False,
                       self.loss, self.loss_path)
        if w is not OMIT:
            self.out[key] = w

    def finish(self, default_order: Sequence[str] = ()) -> dict[str, Any]:
        """Add the object's data (keys nobody wrote) and order everything like the source."""
        for k, v in self.data.items():
            if k not in self.out and k not in self._dropped:
                self.out[k] = jcopy(v)
        order = self.layout.get("order")
        return reorder(self.out, list(order) if isinstance(order, list) else default_order)


_FIELD_CACHE: dict[tuple[Any, ...], Field] = {}


def _field_for(key: str, conv: Conv, absent: Any, null: bool, quiet: bool) -> Field:
    """The one-spelling field an ObjectReader/ObjectWriter call stands for (built once)."""
    t = type(absent)
    marker = ("[]" if not absent else None) if t is list else \
        ("{}" if not absent else None) if t is dict else absent
    if marker is None:  # a non-empty list or object as the absent value: not cached
        return Field(key, ((key, conv),), absent=absent, null=null, quiet=quiet)
    cache_key = (key, id(conv), t, marker, null, quiet)
    f = _FIELD_CACHE.get(cache_key)
    if f is None:
        if len(_FIELD_CACHE) > 4096:  # keys come from code, but stay bounded all the same
            _FIELD_CACHE.clear()
        f = _FIELD_CACHE[cache_key] = Field(key, ((key, conv),), absent=absent, null=null,
                                            quiet=quiet)
    return f


_RANKS: dict[int, tuple[Sequence[str], dict[str, int]]] = {}


def _keeps_order(obj: Mapping[str, Any], order: Sequence[str]) -> bool:
    """Whether :func:`reorder` by ``order`` leaves ``obj``'s keys as they are: the keys
    ``order`` names come first, in its order, and the others after them."""
    hit = _RANKS.get(id(order))
    if hit is None or hit[0] is not order:
        if len(_RANKS) > 256:  # orders are the formats' constants; stay bounded all the same
            _RANKS.clear()
        rank: dict[str, int] = {}
        for k in order:
            if isinstance(k, str) and k not in rank:
                rank[k] = len(rank)
        hit = _RANKS[id(order)] = (order, rank)
    rank = hit[1]
    last = -1
    unnamed = False
    for k in obj:
        r = rank.get(k)
        if r is None:
            unnamed = True
        elif unnamed or r < last:
            return False
        else:
            last = r
    return True


def reorder(obj: dict[str, Any], keys: Any) -> dict[str, Any]:
    """``obj`` with ``keys`` first (in that order, when present), then the rest as they were.

    ``keys`` is often a key order a reader recorded: anything but a list or tuple of it leaves
    ``obj`` as it is, and an entry that is not a string names no key."""
    if not isinstance(keys, list | tuple):
        return obj
    out: dict[str, Any] = {}
    for k in keys:
        if isinstance(k, str) and k in obj and k not in out:
            out[k] = obj[k]
    for k, v in obj.items():
        if k not in out:
            out[k] = v
    return out


# -- where records live on an entity ------------------------------------------------------------

def keep(model: Any, format_id: str, layout: Mapping[str, Any] | None = None,
         data: Mapping[str, Any] | None = None) -> None:
    """Store a reading's layout in ``model.passthrough[format_id]`` and its data in
    ``model.app_data[format_id]`` (empty parts are not stored)."""
    if layout:
        model.passthrough[format_id] = dict(layout)
    if data:
        model.app_data[format_id] = dict(data)


def kept(model: Any, format_id: str) -> tuple[dict[str, Any] | None, dict[str, Any] | None]:
    """This format's layout and data on ``model`` (``None`` where there are none)."""
    layout = model.passthrough.get(format_id)
    data = model.app_data.get(format_id)
    return (layout if isinstance(layout, dict) else None,
            data if isinstance(data, dict) else None)

"""The loss rule: what a target cannot hold, and what changed when an output is read back.

One rule for every writer.  A format declares the canonical paths its writer *carries*
(``FormatInfo.carries``); every other path whose value is not neutral
(:mod:`bunzai.loss.neutral`) is reported as dropped, by its own path, with the reason the format
gives for it.  Values a writer keeps but changes (a macro rewritten, an avatar converted to PNG)
it reports itself.  Reading the output back and comparing (:func:`changes`) checks the report:
the conformance kit and the conversion matrix do it on every test write, ``--verify`` on
demand, and core does it on every write of a format that declares nothing, so a new format is
exact before it is fast.

Paths are loss-report paths (``lorebook.entries[3].depth``); patterns write list indices as
``[*]``.  ``extensions`` and ``app_data`` are reported key by key (``extensions.fav``,
``app_data.sillytavern.chat``): each key is a piece of data of its own.

A chat may hold its messages in a lazy sequence that parses them from the file each time it is
iterated (:class:`bunzai.model.LazyMessages`).  Every walk here iterates such a sequence once,
one item at a time, and never asks for its length or an item by index, so a chat of any size is
checked in the memory of its largest message.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from .neutral import STAMPED, UNORDERED, Neutrality, is_empty, pattern_of

if TYPE_CHECKING:
    from .report import LossReport

BAGS = frozenset({"extensions", "app_data"})
"""Object fields whose keys are separate pieces of data, each reported on its own."""

_SCALARS = (str, int, float, bool, bytes, type(None))
_SCALAR_TYPES = frozenset(_SCALARS)


_NOT_ITEMS = frozenset({str, int, float, bool, bytes, type(None), dict, tuple})


def _is_items(value: Any) -> bool:
    """A list, or a lazy sequence of canonical items (a streamed chat's messages)."""
    t = type(value)
    if t is list:
        return True
    if t in _NOT_ITEMS:  # the usual values, told apart without the ABC checks
        return False
    return isinstance(value, list) or _is_lazy(value)


def _is_lazy(value: Any) -> bool:
    """A sequence that is neither a list nor a string: produced item by item, never indexed."""
    return (isinstance(value, Sequence) and not isinstance(value, list | tuple | str | bytes)
            and not isinstance(value, Mapping))


def _neutral(neutral: Neutrality, pattern: str, value: Any, owner: Any,
             kind: str | None) -> bool:
    """``neutral.neutral``, also for a lazy sequence (neutral when each item is)."""
    if _is_lazy(value):
        item = pattern + "[*]"
        return all(neutral.neutral(item, v, value, kind) for v in value)
    return neutral.neutral(pattern, value, owner, kind)


@dataclass
class Carried:
    """A trie of carried path patterns: segments are field names, keys, ``[*]`` or ``*``.

    A pattern covers every canonical field under it, so ``lorebook.entries[*]`` carries each
    entry whole and ``*`` every field of the entity; the model names the fields, no list of them
    is kept anywhere else.  ``!path`` takes one path back out of a ``*`` beside it:
    ``("*", "!triggers")`` carries every field but ``triggers``.  ``app_data.<format id>``
    patterns say whose app data the writer keeps, wherever it sits (on the entity, its
    entries, its assets): they go to :attr:`app_data`, not the trie.
    """

    full: bool = False
    excluded: bool = False
    """Named by a ``!`` pattern: not carried, whatever a ``*`` beside it says."""
    children: dict[str, Carried] = field(default_factory=dict)
    app_data: frozenset[str] = frozenset()
    plans: dict[type, tuple[tuple[str, Carried | None, bool], ...]] = field(
        default_factory=dict, repr=False, compare=False)
    """How the walk visits each model class's fields under this node (see ``_plan``)."""

    @classmethod
    def of(cls, patterns: Iterable[str]) -> Carried:
        root = cls()
        formats = set()
        excluded: list[tuple[str, Carried, Carried]] = []
        for pattern in patterns:
            if pattern.startswith("app_data.") and pattern.count(".") == 1:
                formats.add(pattern.split(".", 1)[1])
                continue
            if pattern.startswith("!"):
                parent = node = root
                for seg in pattern_segments(pattern[1:]):
                    parent, node = node, node.children.setdefault(seg, cls())
                node.excluded = True
                excluded.append((pattern, parent, node))
                continue
            node = root
            for seg in pattern_segments(pattern):
                if node.full:
                    break
                node = node.children.setdefault(seg, cls())
            else:
                node.full = True
                node.children.clear()
        for pattern, parent, node in excluded:
            star = parent.children.get("*")
            if parent.full or node.full or node.children or star is None or not star.full:
                raise ValueError(f"carried pattern {pattern!r}: a '!' pattern takes a path out "
                                 "of a '*' beside it, and nothing else may name that path")
        root.app_data = frozenset(formats)
        return root

    def child(self, seg: str) -> Carried | None:
        got = self.children.get(seg)
        if got is None:
            return self.children.get("*")
        return None if got.excluded else got


def pattern_segments(pattern: str, *, any_index: bool = False) -> list[str]:
    """``pattern``'s segments: names, and ``[*]`` for an index or ``[*]`` (``[name]`` stays a
    segment of its own unless ``any_index``)."""
    out: list[str] = []
    for part in pattern.split("."):
        while "[" in part:
            head, _, rest = part.partition("[")
            if head:
                out.append(head)
            inner, _, part = rest.partition("]")
            out.append("[*]" if any_index or inner in ("*", "") or inner.isdigit()
                       else f"[{inner}]")
        if part:
            out.append(part)
    return out


def _join(base: str, name: str) -> str:
    return f"{base}.{name}" if base else name


def unheld(entity: Any, carried: Carried, neutral: Neutrality, *,
           own: str | None = None) -> list[str]:
    """Paths of ``entity`` holding user data outside ``carried`` (``own``: the target's format
    id, whose ``app_data`` it always carries).

    A carried pattern covers the canonical fields under it but never another format's app
    data, which a format carries only where it names it (``app_data.risu``).
    """
    out: list[str] = []
    kind = getattr(entity, "kind", None)
    mine = carried.app_data | ({own} if own is not None else set())
    if carried.full:
        _walk_app_data(entity, carried, "", "", neutral, kind, mine, out)
    else:
        _walk_model(entity, carried, "", "", neutral, kind, mine, out)
    return out


def _walk_app_data(obj: Any, node: Carried | None, path: str, pattern: str,
                   neutral: Neutrality, kind: str | None, own: frozenset[str],
                   out: list[str]) -> None:
    """Inside a carried part: report only other formats' app data not named as carried."""
    cls = type(obj)
    if hasattr(cls, "model_fields"):
        for name in _nested_fields(cls):
            value = getattr(obj, name)
            if not value:
                continue  # no app data, no items: nothing below to report
            child = node.child(name) if node is not None and not node.full else None
            p, pat = _join(path, name), _join(pattern, name)
            if name == "app_data":
                if value.keys() - own:
                    _walk_bag(name, value, child, p, pat, neutral, kind, own, obj, out)
            else:
                _walk_app_data(value, child, p, pat, neutral, kind, own, out)
    elif _is_items(obj):
        item = node.child("[*]") if node is not None and not node.full else None
        for i, v in enumerate(obj):
            if isinstance(v, list) or hasattr(type(v), "model_fields"):
                _walk_app_data(v, item, f"{path}[{i}]", f"{pattern}[*]", neutral, kind, own,
                               out)


_NESTED: dict[type, tuple[str, ...]] = {}


def _nested_fields(cls: type) -> tuple[str, ...]:
    """The fields of a model that can hold app data: ``app_data`` itself, and the fields whose
    type can hold models (an entity's lorebook, entries, assets, scripts, messages)."""
    found = _NESTED.get(cls)
    if found is None:
        from pydantic import BaseModel

        def holds_models(annotation: Any) -> bool:
            if isinstance(annotation, type) and issubclass(annotation, BaseModel):
                return True
            return any(holds_models(a) for a in getattr(annotation, "__args__", ()))

        found = _NESTED[cls] = tuple(
            name for name, info in cls.model_fields.items()  # type: ignore[attr-defined]
            if name == "app_data" or holds_models(info.annotation))
    return found


def _plan(cls: type, node: Carried) -> tuple[tuple[str, Carried | None, bool], ...]:
    """(field, its node, carried whole) for every field of a model but ``passthrough``, worked
    out once per model class and trie node."""
    found = node.plans.get(cls)
    if found is None:
        rows = []
        for name in cls.model_fields:  # type: ignore[attr-defined]
            if name != "passthrough":
                child = node.child(name)
                rows.append((name, child, child is not None and child.full))
        found = node.plans[cls] = tuple(rows)
    return found


def _walk_model(obj: Any, node: Carried, path: str, pattern: str, neutral: Neutrality,
                kind: str | None, own: frozenset[str], out: list[str]) -> None:
    for name, child, full in _plan(type(obj), node):
        value = getattr(obj, name)
        if full:
            t = type(value)
            if t in _SCALAR_TYPES:
                continue  # a carried scalar: nothing below it to report
            if _is_items(value) or hasattr(t, "model_fields"):
                _walk_app_data(value, None, _join(path, name), _join(pattern, name), neutral,
                               kind, own, out)
            elif name == "app_data" and isinstance(value, Mapping):
                _walk_bag(name, value, None, _join(path, name), _join(pattern, name), neutral,
                          kind, own, obj, out)
            continue
        p, pat = _join(path, name), _join(pattern, name)
        if name in BAGS and isinstance(value, Mapping):
            _walk_bag(name, value, child, p, pat, neutral, kind, own, obj, out)
        elif child is None:
            if not _neutral(neutral, pat, value, obj, kind):
                out.append(p)
        else:
            _walk_value(value, child, p, pat, neutral, kind, own, obj, out)


def _walk_value(value: Any, node: Carried, path: str, pattern: str, neutral: Neutrality,
                kind: str | None, own: frozenset[str], owner: Any, out: list[str]) -> None:
    if hasattr(type(value), "model_fields"):
        _walk_model(value, node, path, pattern, neutral, kind, own, out)
    elif _is_items(value):
        item_node = node.child("[*]")
        for i, item in enumerate(value):
            p, pat = f"{path}[{i}]", f"{pattern}[*]"
            if item_node is None:
                if not neutral.neutral(pat, item, value, kind):
                    out.append(p)
            elif item_node.full:
                _walk_app_data(item, None, p, pat, neutral, kind, own, out)
            else:
                _walk_value(item, item_node, p, pat, neutral, kind, own, value, out)
    elif isinstance(value, Mapping):
        for k, v in value.items():
            child = node.child(str(k))
            p, pat = _join(path, str(k)), _join(pattern, str(k))
            if child is None:
                if not neutral.neutral(pat, v, value, kind):
                    out.append(p)
            elif not child.full:
                _walk_value(v, child, p, pat, neutral, kind, own, value, out)
    # a scalar where the pattern goes deeper: the target holds what there is


def _walk_bag(name: str, bag: Mapping[str, Any], node: Carried | None, path: str, pattern: str,
              neutral: Neutrality, kind: str | None, own: frozenset[str], owner: Any,
              out: list[str]) -> None:
    for key, value in bag.items():
        child = node.child(str(key)) if node is not None else None
        if child is not None and child.full:
            continue
        p, pat = _join(path, str(key)), _join(pattern, str(key))
        if name == "app_data":
            if key in own or not isinstance(value, Mapping):
                continue
            for k, v in value.items():
                grand = child.child(str(k)) if child is not None else None
                if grand is not None and grand.full:
                    continue
                if not neutral.neutral(_join(pat, str(k)), v, value, kind):
                    out.append(_join(p, str(k)))
        elif child is None:
            if not neutral.neutral(pat, value, bag, kind):
                out.append(p)
        else:
            _walk_value(value, child, p, pat, neutral, kind, own, bag, out)


# -- comparing ------------------------------------------------------------------------------------


def changes(before: Any, after: Any, neutral: Neutrality, *, kind: str | None = None) -> list[str]:
    """Paths where ``after`` (an output read back) differs from ``before`` in user data.

    Passthrough (layout) is not compared; ``app_data`` is.  A difference between two neutral
    values (``constant`` false and unstated, ``insertion_order`` 100 and unstated) is not a
    change, and fields that are never user data (an entry's ``id``, an asset's ``origin``) are
    ignored.
    """
    if kind is None:
        kind = getattr(before, "kind", None)
    out: list[str] = []
    _diff(before, after, "", "", neutral, kind, None, None, out)
    return out


def _same(a: Any, b: Any) -> bool:
    from ..io.compare import json_equal
    return json_equal(a, b)


def _diff(a: Any, b: Any, path: str, pattern: str, neutral: Neutrality, kind: str | None,
          owner_a: Any, owner_b: Any, out: list[str]) -> None:
    ta, tb = type(a), type(b)
    if ta is tb and isinstance(a, _SCALARS):
        if a == b or (neutral.neutral(pattern, a, owner_a, kind)
                      and neutral.neutral(pattern, b, owner_b, kind)):
            return
        out.append(path or "$")
        return
    if hasattr(ta, "model_fields") and ta is tb:
        for name in ta.model_fields:
            if name == "passthrough":
                continue
            va, vb = getattr(a, name), getattr(b, name)
            if type(va) is type(vb) and isinstance(va, _SCALARS) and va == vb:
                continue
            _diff(va, vb, _join(path, name), _join(pattern, name), neutral, kind, a, b, out)
        return
    if (_is_lazy(a) or _is_lazy(b)) and _is_items(a) and _is_items(b):
        _diff_items(a, b, path, pattern, neutral, kind, out)
        return
    if neutral.neutral(pattern, a, owner_a, kind) and neutral.neutral(pattern, b, owner_b, kind):
        return
    if a is None and pattern in STAMPED:
        return
    if isinstance(a, list) and isinstance(b, list):
        if pattern in UNORDERED:
            _diff_unordered(a, b, path, pattern, neutral, kind, out)
        else:
            _diff_items(a, b, path, pattern, neutral, kind, out)
        return
    if isinstance(a, Mapping) and isinstance(b, Mapping):
        for k in sorted(set(a) | set(b), key=str):
            p, pat = _join(path, str(k)), _join(pattern, str(k))
            if k not in a or k not in b:
                present, holder = (a[k], a) if k in a else (b[k], b)
                if _is_app_data(pattern) and isinstance(present, Mapping):
                    # one format's app data is many pieces of data: name each
                    out += [_join(p, str(kk)) for kk, vv in present.items()
                            if not neutral.neutral(_join(pat, str(kk)), vv, present, kind)]
                elif not neutral.neutral(pat, present, holder, kind):
                    out.append(p)
            else:
                _diff(a[k], b[k], p, pat, neutral, kind, a, b, out)
        return
    if not _same(a, b):
        out.append(path or "$")


def _diff_items(a: Sequence[Any], b: Sequence[Any], path: str, pattern: str,
                neutral: Neutrality, kind: str | None, out: list[str]) -> None:
    """Two lists compared item by item, each iterated once (either may be lazy)."""
    end = object()
    mine, theirs = iter(a), iter(b)
    pat = f"{pattern}[*]"
    i = 0
    while True:
        x, y = next(mine, end), next(theirs, end)
        if x is end and y is end:
            return
        p = f"{path}[{i}]"
        if x is end or y is end:
            present, holder = (y, b) if x is end else (x, a)
            if not neutral.neutral(pat, present, holder, kind):
                out.append(p)
        else:
            _diff(x, y, p, pat, neutral, kind, a, b, out)
        i += 1


def _diff_unordered(a: list[Any], b: list[Any], path: str, pattern: str, neutral: Neutrality,
                    kind: str | None, out: list[str]) -> None:
    """Two lists whose order is layout (:data:`~bunzai.loss.neutral.UNORDERED`).

    Each item is paired with an item of the other list holding the same user data, wherever
    it is; then an item with the same bytes is the same file whose other fields changed; the
    items left over are compared in order.  An item of ``a`` is named by its own index.
    """
    pat = f"{pattern}[*]"

    def same(x: Any, y: Any) -> bool:
        found: list[str] = []
        _diff(x, y, "", pat, neutral, kind, a, b, found)
        return not found

    free = dict(enumerate(b))
    pairs: list[tuple[int, int]] = []
    left: list[int] = []
    for i, x in enumerate(a):  # most writers keep the order: try the same place first
        if i in free and same(x, free[i]):
            del free[i]
        else:
            left.append(i)
    for test in (same, _same_bytes):
        unpaired: list[int] = []
        for i in left:
            j = next((j for j, y in free.items() if _same_bytes(a[i], y) and test(a[i], y)),
                     None) if test is same or getattr(a[i], "data", None) is not None else None
            if j is None:
                unpaired.append(i)
            else:
                del free[j]
                if test is not same:
                    pairs.append((i, j))
        left = unpaired
    rest = sorted(free)
    pairs += zip(left, rest, strict=False)
    for i, j in sorted(pairs):
        _diff(a[i], b[j], f"{path}[{i}]", pat, neutral, kind, a, b, out)
    for i in left[len(rest):]:
        if not neutral.neutral(pat, a[i], a, kind):
            out.append(f"{path}[{i}]")
    for j in rest[len(left):]:
        if not neutral.neutral(pat, b[j], b, kind):
            out.append(f"{path}[{j}]")


def _same_bytes(x: Any, y: Any) -> bool:
    return getattr(x, "data", None) == getattr(y, "data", None)


def _is_app_data(pattern: str) -> bool:
    return pattern == "app_data" or pattern.endswith(".app_data")


def report_changes(before: Any, after: Any, neutral: Neutrality, loss: LossReport,
                   reasons: Sequence[tuple[str, str]], default: str | tuple[str, str], *,
                   prefix: str = "") -> list[str]:
    """Add to ``loss`` each change from ``before`` to ``after`` it does not name yet: dropped
    where ``after`` holds nothing, approximated otherwise, with the most specific of
    ``reasons`` (else ``default``, or its (dropped, approximated) pair).  Returns the paths
    added (``prefix`` + path).

    This is core's one read-back rule: verification (``--verify``, the kit, the matrix) and
    formats that declare nothing they carry use it on an output read back.
    """
    added: list[str] = []
    for path in changes(before, after, neutral):
        full = prefix + path
        if loss.covers(full, stashed=True):
            continue
        gone = is_empty(value_at(after, path))
        fallback = default if isinstance(default, str) else default[0 if gone else 1]
        why = reason_for(path, reasons, fallback)
        if gone:
            loss.dropped(full, why)
        else:
            loss.approximated(full, why)
        added.append(full)
    return added


def values_at(obj: Any, pattern: str) -> Iterator[tuple[str, Any]]:
    """(path, value) for every value of ``obj`` at a pattern (``lorebook.entries[*].content``),
    lists walked item by item."""
    def walk(cur: Any, segs: list[str], path: str) -> Iterator[tuple[str, Any]]:
        if cur is None:
            return
        if not segs:
            yield path, cur
            return
        seg, rest = segs[0], segs[1:]
        if seg == "[*]":
            if _is_items(cur):
                for i, item in enumerate(cur):
                    yield from walk(item, rest, f"{path}[{i}]")
            return
        nxt = cur.get(seg) if isinstance(cur, Mapping) else getattr(cur, seg, None)
        yield from walk(nxt, rest, _join(path, seg))

    return walk(obj, pattern_segments(pattern), "")


def value_at(obj: Any, path: str) -> Any:
    """The value at a loss-report path of an entity (None where there is none).

    A list item of a lazy sequence is found by iterating it up to that item."""
    cur = obj
    for name, index in _PATH_PART.findall(path):
        if cur is None:
            return None
        if index:
            i = int(index)
            if isinstance(cur, list):
                cur = cur[i] if i < len(cur) else None
            elif _is_lazy(cur):
                cur = next((v for n, v in enumerate(cur) if n == i), None)
            else:
                cur = None
        else:
            cur = cur.get(name) if isinstance(cur, Mapping) else getattr(cur, name, None)
    return cur


_PATH_PART = re.compile(r"([^.\[\]]+)|\[(\d+)\]")


def explains(reported: str, changed: str) -> bool:
    """Whether a reported path accounts for a changed one (one is the other or its ancestor)."""
    return _ancestor_or_self(reported, changed) or _ancestor_or_self(changed, reported)


def _ancestor_or_self(a: str, b: str) -> bool:
    return b == a or (b.startswith(a) and b[len(a)] in ".[") or a in ("", "$")


def reason_for(path: str, reasons: Sequence[tuple[str, str]], default: str) -> str:
    """The reason a format gives for not carrying ``path``: its most specific matching pattern
    (a pattern matches the path's pattern and everything under it; ``""`` matches every path,
    the format's general reason)."""
    pat = pattern_of(path)
    best, best_len = default, -1
    for pattern, why in reasons:
        p = pattern_of(pattern)
        if (not p or pat == p or (pat.startswith(p) and pat[len(p)] in ".[")) \
                and len(p) > best_len:
            best, best_len = why, len(p)
    return best


def empty(value: Any) -> bool:
    """Re-exported for writers: None, "", [] or {}."""
    return is_empty(value)


def without_layout(entity: Any) -> Any:
    """A deep copy of ``entity`` with every ``passthrough`` emptied: what a writer gets for an
    entity that did not come from its format, or that an app rebuilt from user data alone."""
    copy = entity.model_copy(deep=True)
    _strip(copy)
    return copy


def _strip(obj: Any) -> None:
    if hasattr(type(obj), "model_fields"):
        for name in type(obj).model_fields:
            value = getattr(obj, name)
            if name == "passthrough" and isinstance(value, dict):
                value.clear()
            elif _is_lazy(value) and hasattr(value, "mapped"):
                # a streamed chat: strip each message as it is produced
                setattr(obj, name, value.mapped(_stripped))
            elif isinstance(value, list) or hasattr(type(value), "model_fields"):
                _strip(value)
    elif isinstance(obj, list):
        for item in obj:
            _strip(item)


def _stripped(item: Any) -> Any:
    _strip(item)
    return item

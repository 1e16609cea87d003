"""Read-only views of parsed JSON, so one adapter's detect cannot change what the next one sees.

Wrapping is lazy (a child is wrapped when it is accessed), so a detector that looks at three keys
pays for three keys, not for the whole card.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from typing import Any, overload


def freeze(value: Any) -> Any:
    """Wrap dicts and lists in read-only views; scalars pass through."""
    if isinstance(value, dict):
        return FrozenDict(value)
    if isinstance(value, list):
        return FrozenList(value)
    return value


def thaw(value: Any) -> Any:
    """A deep, mutable copy of a (possibly frozen) JSON value."""
    # Exact-type dispatch first: parsed JSON holds only these types, and ``type(v) is`` costs a
    # fraction of an ABC-backed isinstance on every value of a 20 KB card.
    t = type(value)
    if t is str or t is int or t is float or t is bool or value is None:
        return value
    if t is dict:
        return {k: thaw(v) for k, v in value.items()}
    if t is list:
        return [thaw(v) for v in value]
    return _thaw_other(value)


def unfrozen(value: Any) -> Any:
    """The parsed JSON a read-only view wraps, itself (no copy); other values as they are.

    For code that only reads (compares, hashes, or copies what it keeps): the value is shared
    with every other reader of the input, so nothing may change it.  :func:`thaw` is the copy
    for code that changes what it gets.
    """
    t = type(value)
    if t is FrozenDict:
        return value._d
    if t is FrozenList:
        return value._l
    return value


def _thaw_other(value: Any) -> Any:
    if isinstance(value, FrozenDict):
        value = value._d
    elif isinstance(value, FrozenList):
        value = value._l
    if isinstance(value, dict):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, list):
        return [thaw(v) for v in value]
    return value


class FrozenDict(Mapping[str, Any]):
    """A read-only JSON object. Use ``isinstance(x, Mapping)``, not ``dict``, in detectors."""

    __slots__ = ("_d",)

    def __init__(self, d: dict[str, Any]) -> None:
        self._d = d

    def __getitem__(self, key: str) -> Any:
        return freeze(self._d[key])

    def get(self, key: str, default: Any = None) -> Any:
        v = self._d.get(key, default)
        return freeze(v)

    def __contains__(self, key: object) -> bool:
        return key in self._d

    def __iter__(self) -> Iterator[str]:
        return iter(self._d)

    def __len__(self) -> int:
        return len(self._d)

    def __repr__(self) -> str:
        return f"FrozenDict({self._d!r})"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, FrozenDict):
            return self._d == other._d
        return self._d == other


class FrozenList(Sequence[Any]):
    """A read-only JSON array. Use ``isinstance(x, Sequence)`` (and not ``str``) in detectors."""

    __slots__ = ("_l",)

    def __init__(self, items: list[Any]) -> None:
        self._l = items

    @overload
    def __getitem__(self, i: int) -> Any: ...
    @overload
    def __getitem__(self, i: slice) -> FrozenList: ...
    def __getitem__(self, i: int | slice) -> Any:
        if isinstance(i, slice):
            return FrozenList(self._l[i])
        return freeze(self._l[i])

    def __len__(self) -> int:
        return len(self._l)

    def __iter__(self) -> Iterator[Any]:
        return (freeze(v) for v in self._l)

    def __repr__(self) -> str:
        return f"FrozenList({self._l!r})"

    def __eq__(self, other: object) -> bool:
        if isinstance(other, FrozenList):
            return self._l == other._l
        return self._l == other

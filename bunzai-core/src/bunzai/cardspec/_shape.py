"""Field-by-field reading and writing that remembers the source's shape.

Card JSON in the wild omits fields, writes ``null`` where the spec wants a value, uses the wrong
type (``character_version: 2``, ``tags: ""``) and carries keys no spec names.  The canonical model
cannot hold any of that, so every object (card data, book, entry, asset, regex script) is read
through a :class:`ShapeReader` that records:

``order``    the keys in source order (so the same format re-writes the same bytes),
``absent``   keys the source did not have (absent is not the same as empty),
``null``     keys the source had as ``null``,
``coerced``  keys whose value had the wrong type: the original value, restored on write while
             the canonical value still equals what the reader derived from it,
``extra``    keys the canonical model does not name, kept verbatim.

The record is stored in ``passthrough[format_id]`` and only that format's writer restores it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any

from ..compare import json_equal as json_equal  # re-exported for the codec modules
from ..frozen import FrozenDict, FrozenList
from ..types import Issue

Converter = Callable[[Any], tuple[Any, bool]]
"""``value -> (canonical value, exact)``; ``exact`` False means the value was coerced."""

_MISSING: Any = object()


def plain(value: Any) -> Any:
    """A plain (mutable, dict/list) deep copy of a JSON value, which may be a frozen view."""
    t = type(value)  # scalars and plain containers first: the ABC checks below are slow
    if t is str or t is int or t is float or t is bool or value is None:
        return value
    if t is dict:
        return {str(k): plain(v) for k, v in value.items()}
    if t is list:
        return [plain(v) for v in value]
    if t is FrozenDict:  # skip the view's per-item wrapping
        return {str(k): plain(v) for k, v in value._d.items()}
    if t is FrozenList:
        return [plain(v) for v in value._l]
    if isinstance(value, Mapping):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, Sequence) and not isinstance(value, str | bytes | bytearray):
        return [plain(v) for v in value]
    return value


# -- converters ---------------------------------------------------------------------------------


def conv_str(v: Any) -> tuple[str, bool]:
    if isinstance(v, str):
        return v, True
    if isinstance(v, bool) or v is None:
        return "", False
    if isinstance(v, int | float):
        return str(v), False
    return "", False


def conv_opt_str(v: Any) -> tuple[str | None, bool]:
    if isinstance(v, str):
        return v, True
    if isinstance(v, int | float) and not isinstance(v, bool):
        return str(v), False
    return None, False


def is_array(v: Any) -> bool:
    """A JSON array (a list or a read-only view of one), not a string."""
    return isinstance(v, Sequence) and not isinstance(v, str | bytes | bytearray)


def conv_str_list(v: Any) -> tuple[list[str], bool]:
    """A list of strings; a lone string becomes a one-item list (greetings given as a string)."""
    if is_array(v):
        if all(isinstance(x, str) for x in v):
            return list(v), True
        return [x if isinstance(x, str) else str(x) for x in v
                if isinstance(x, str) or (isinstance(x, int | float) and not isinstance(x, bool))
                ], False
    if isinstance(v, str):
        return ([v] if v else []), False
    return [], False


def conv_tags(v: Any) -> tuple[list[str], bool]:
    """Tags: a comma-separated string (SillyTavern's root copy) is split."""
    if isinstance(v, str):
        return [t.strip() for t in v.split(",") if t.strip()], False
    return conv_str_list(v)


def conv_opt_str_list(v: Any) -> tuple[list[str] | None, bool]:
    if v is None:
        return None, False
    got, exact = conv_str_list(v)
    return got, exact


def conv_bool(v: Any) -> tuple[bool | None, bool]:
    if isinstance(v, bool):
        return v, True
    if isinstance(v, str) and v.strip().lower() in ("true", "false"):
        return v.strip().lower() == "true", False
    if isinstance(v, int | float) and v in (0, 1):
        return bool(v), False
    return None, False


def conv_int(v: Any) -> tuple[int | None, bool]:
    if isinstance(v, bool):
        return None, False
    if isinstance(v, int):
        return v, True
    if isinstance(v, float) and v == v and abs(v) != float("inf"):
        return int(v), False
    if isinstance(v, str):
        try:
            return int(v.strip()), False
        except ValueError:
            try:
                f = float(v.strip())
            except ValueError:
                return None, False
            if f == f and abs(f) != float("inf"):
                return int(f), False
    return None, False


def conv_num(v: Any) -> tuple[int | float | None, bool]:
    if isinstance(v, bool):
        return None, False
    if isinstance(v, int | float):
        return v, True
    if isinstance(v, str):
        try:
            return int(v.strip()), False
        except ValueError:
            try:
                f = float(v.strip())
            except ValueError:
                return None, False
            if f == f and abs(f) != float("inf"):
                return f, False
    return None, False


def conv_dict(v: Any) -> tuple[dict[str, Any], bool]:
    if isinstance(v, Mapping):
        return plain(v), True
    return {}, False


def conv_opt_str_dict(v: Any) -> tuple[dict[str, str] | None, bool]:
    if isinstance(v, Mapping):
        if all(isinstance(x, str) for x in v.values()):
            return {str(k): x for k, x in v.items()}, True
        return {str(k): x for k, x in v.items() if isinstance(x, str)}, False
    return None, False


def conv_id(v: Any) -> tuple[int | str | None, bool]:
    if isinstance(v, bool):
        return None, False
    if isinstance(v, int | str):
        return v, True
    if isinstance(v, float) and v.is_integer():
        return int(v), False
    return None, False


# -- reading ------------------------------------------------------------------------------------


class ShapeReader:
    """Reads fields of one JSON object and records how the object looked."""

    def __init__(self, obj: Mapping[str, Any], known: Iterable[str], *,
                 path: str, warnings: list[Issue] | None) -> None:
        self.obj = obj
        self.path = path
        self.warnings = warnings
        self.order: list[str] = [str(k) for k in obj]
        known_set = set(known)
        self.extra: dict[str, Any] = {
            str(k): plain(v) for k, v in obj.items() if k not in known_set
        }
        self.absent: list[str] = []
        self.null: list[str] = []
        self.coerced: dict[str, Any] = {}
        self.more: dict[str, Any] = {}

    def warn(self, key: str, message: str) -> None:
        if self.warnings is not None:
            self.warnings.append(Issue(f"{self.path}.{key}", message))

    def has(self, key: str) -> bool:
        return key in self.obj

    def raw(self, key: str) -> Any:
        return self.obj.get(key, _MISSING)

    def field(self, key: str, conv: Converter, default: Any, *,
              nullable: bool, expected: str, quiet: bool = False) -> Any:
        """The canonical value of ``key``; records absent / null / coerced.

        ``quiet`` records a coercion without a warning (a legal alternative type, such as
        the old boolean ``substituteRegex``).
        """
        if key not in self.obj:
            self.absent.append(key)
            return default
        value = self.obj[key]
        if value is None and nullable:
            self.null.append(key)
            return None
        got, exact = conv(value)
        if not exact:
            self.coerced[key] = plain(value)
            if not quiet:
                shown = "null" if value is None else type(value).__name__
                self.warn(key, f"expected {expected}, found {shown}; read as {_short(got)}")
            if got is None:
                return default
        return got

    def record(self) -> dict[str, Any]:
        """The passthrough record (only the non-empty parts)."""
        out: dict[str, Any] = {"order": self.order}
        if self.absent:
            out["absent"] = self.absent
        if self.null:
            out["null"] = self.null
        if self.coerced:
            out["coerced"] = self.coerced
        if self.extra:
            out["extra"] = self.extra
        out.update(self.more)
        return out


def _short(value: Any) -> str:
    text = repr(value)
    return text if len(text) <= 40 else text[:37] + "..."


# -- writing ------------------------------------------------------------------------------------


class ShapeWriter:
    """Writes fields of one JSON object, restoring a recorded shape when there is one."""

    def __init__(self, shape: Mapping[str, Any] | None) -> None:
        self.shape: Mapping[str, Any] = shape if isinstance(shape, Mapping) else {}
        self.faithful = bool(self.shape)
        self.out: dict[str, Any] = {}
        absent = self.shape.get("absent")
        null = self.shape.get("null")
        coerced = self.shape.get("coerced")
        self.absent: set[str] = set(absent) if isinstance(absent, list) else set()
        self.null: set[str] = set(null) if isinstance(null, list) else set()
        self.coerced: Mapping[str, Any] = coerced if isinstance(coerced, Mapping) else {}

    def was_absent(self, key: str) -> bool:
        return key in self.absent

    def was_null(self, key: str) -> bool:
        return key in self.null

    def put(self, key: str, value: Any, conv: Converter | None, *, empty: Any,
            required_default: Any = _MISSING) -> None:
        """Write ``value`` for ``key``.

        ``empty`` is the canonical value meaning "the source did not have it" (``""``, ``[]``,
        ``None``).  ``required_default`` is written when there is no recorded shape and the
        value is ``None`` (a field the format requires).
        """
        if conv is not None and key in self.coerced:
            original = self.coerced[key]
            derived, _ = conv(original)
            if derived is None:
                derived = empty
            if json_equal(plain(derived), plain(value)):
                self.out[key] = plain(original)
                return
        if value is None:
            if key in self.null:
                self.out[key] = None
            elif not self.faithful and required_default is not _MISSING:
                self.out[key] = required_default
            return
        if key in self.absent and json_equal(plain(value), plain(empty)):
            return
        self.out[key] = value

    def finish(self, default_order: Sequence[str] = ()) -> dict[str, Any]:
        """Add the recorded extra keys and order everything like the source."""
        extra = self.shape.get("extra")
        if isinstance(extra, Mapping):
            for k, v in extra.items():
                if k not in self.out:
                    self.out[k] = plain(v)
        order = self.shape.get("order")
        keys = list(order) if isinstance(order, list) else list(default_order)
        return reorder(self.out, keys)


def reorder(obj: dict[str, Any], keys: Iterable[str]) -> dict[str, Any]:
    """``obj`` with ``keys`` first (in that order, when present), then the rest as they were."""
    out: dict[str, Any] = {}
    for k in keys:
        if k in obj and k not in out:
            out[k] = obj[k]
    for k, v in obj.items():
        if k not in out:
            out[k] = v
    return out

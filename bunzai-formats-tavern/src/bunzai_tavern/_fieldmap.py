"""Field tables: one JSON object's keys <-> canonical attributes, without losing a byte of shape.

Tavern formats disagree on defaults, types and spellings (``displayIndex`` as ``"3"``, ``role``
null vs 0, ``scanDepth`` vs ``scan_depth``, Chub entries carrying ST *and* V2 names).  A table
maps each canonical attribute to the key(s) that carry it, and reading returns the canonical
values plus a small *record* of everything the values alone cannot reproduce:

``raw``     original values the writer would not regenerate as they were (types, nulls)
``absent``  attributes whose keys were missing although the writer would have written one
``alias``   which spellings were present, when not just the preferred one
``extra``   keys the table does not know (and spellings that disagreed), verbatim
``order``   the source key order, when it differs from the writer's natural order

The writer regenerates every key from the canonical value and uses a recorded raw value only
while the canonical value still equals what that raw value reads as, so an edited entity writes
its new value and an untouched one writes its original bytes.  Records are plain JSON: they
travel through ``vaud-json`` unchanged.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from typing import Any

from bunzai.compare import json_equal
from bunzai.frozen import thaw
from bunzai.loss import LossReport
from bunzai.types import Issue

OMIT: Any = object()
"""Writer sentinel: leave the key out."""


jcopy = thaw
"""A copy of a JSON value that shares nothing mutable with it (scalars are immutable)."""


class Bad(Exception):
    """A source value that does not fit the canonical type; the reader keeps it raw."""


class Unrepresentable(Exception):
    """A canonical value the target cannot express; the writer reports it."""


same = json_equal
"""JSON equality that also compares types (``1`` vs ``1.0`` vs ``true`` differ)."""


def is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def is_num(x: Any) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool)


def type_name(x: Any) -> str:
    if x is None:
        return "null"
    if isinstance(x, bool):
        return "a boolean"
    if is_num(x):
        return "a number"
    if isinstance(x, str):
        return "a string"
    if isinstance(x, Mapping):
        return "an object"
    if isinstance(x, Sequence):
        return "an array"
    return type(x).__name__


# -- converters ---------------------------------------------------------------------------------

@dataclass(frozen=True)
class Conv:
    """How one key's JSON value becomes a canonical value and back."""

    name: str
    canon: Callable[[Any], Any]
    source: Callable[[Any], Any] = jcopy


_INT_TEXT = re.compile(r"-?\d{1,18}")
_NUM_TEXT = re.compile(r"-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?")


def _bool(x: Any) -> bool:
    if isinstance(x, bool):
        return x
    raise Bad(f"expected true/false, got {type_name(x)}")


def _int(x: Any) -> int:
    if is_int(x):
        return int(x)
    if isinstance(x, float) and x.is_integer():
        return int(x)
    if isinstance(x, str) and _INT_TEXT.fullmatch(x.strip()):
        return int(x.strip())
    raise Bad(f"expected a whole number, got {type_name(x)}")


def _num(x: Any) -> int | float:
    if is_num(x):
        return x  # type: ignore[no-any-return]
    if isinstance(x, str) and _NUM_TEXT.fullmatch(x.strip()):
        t = x.strip()
        return int(t) if _INT_TEXT.fullmatch(t) else float(t)
    raise Bad(f"expected a number, got {type_name(x)}")


def _str(x: Any) -> str:
    if isinstance(x, str):
        return x
    if is_num(x):
        return str(x)
    raise Bad(f"expected a string, got {type_name(x)}")


def _id(x: Any) -> int | str:
    if is_int(x) or isinstance(x, str):
        return x  # type: ignore[no-any-return]
    if isinstance(x, float) and x.is_integer():
        return int(x)
    raise Bad(f"expected a number or string id, got {type_name(x)}")


def _strlist(x: Any) -> list[str]:
    if isinstance(x, str):
        return [x]
    if isinstance(x, list):
        out = []
        for item in x:
            if isinstance(item, str):
                out.append(item)
            elif is_num(item):
                out.append(str(item))
            else:
                raise Bad(f"expected a list of strings, found {type_name(item)} in it")
        return out
    raise Bad(f"expected a list of strings, got {type_name(x)}")


def _dict(x: Any) -> dict[str, Any]:
    if isinstance(x, dict):
        return {k: jcopy(v) for k, v in x.items()}
    raise Bad(f"expected an object, got {type_name(x)}")


def _dictlist(x: Any) -> list[dict[str, Any]]:
    if isinstance(x, list) and all(isinstance(i, dict) for i in x):
        return [_dict(i) for i in x]
    raise Bad(f"expected a list of objects, got {type_name(x)}")


def _int_or_bool(x: Any) -> int | bool:
    if isinstance(x, bool) or is_int(x):
        return x  # type: ignore[no-any-return]
    if isinstance(x, float) and x.is_integer():
        return int(x)
    raise Bad(f"expected a number or true/false, got {type_name(x)}")


def _not_bool(x: Any) -> bool:
    return not _bool(x)


def enum(names: Sequence[str], what: str) -> Conv:
    """A numeric code (index into ``names``) that canonically is a name; names are accepted too."""

    def canon(x: Any) -> str:
        if is_int(x) and 0 <= x < len(names):
            return str(names[x])
        if isinstance(x, str) and x in names:
            return x
        raise Bad(f"unknown {what} {x!r}")

    def source(v: Any) -> int:
        if v in names:
            return names.index(v)
        raise Unrepresentable(f"{what} {v!r} has no numeric code here")

    return Conv(what, canon, source)


BOOL = Conv("bool", _bool)
INT = Conv("int", _int)
NUM = Conv("number", _num)
STR = Conv("string", _str)
ID = Conv("id", _id)
STRLIST = Conv("string list", _strlist)
DICT = Conv("object", _dict)
DICTLIST = Conv("object list", _dictlist)
INT_OR_BOOL = Conv("number or bool", _int_or_bool)
NOT_BOOL = Conv("inverted bool", _not_bool, lambda v: not v)


# -- tables -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Field:
    """One canonical attribute and the key(s) carrying it, preferred spelling first."""

    attr: str | None
    """Canonical attribute; None for a *slot*: a key the model does not name, kept verbatim
    (in the record's ``extra``) but written back at its usual place."""
    names: tuple[tuple[str, Conv], ...]
    absent: Any = None
    """Canonical value when no key is present (None for optional attributes)."""
    null: bool = False
    """Write JSON null for a None value (the app's own default is null)."""
    foreign: bool = True
    """Written for data that did not come from this format."""
    omit_empty: bool = False
    """Leave the key out when the value equals ``absent`` (e.g. an empty ``extensions``)."""
    warn_mismatch: bool = False
    """Warn when two spellings of this attribute disagree."""
    quiet: bool = False
    """Do not warn when the value needed a type change (an app's known habit, such as Chub's
    string ``displayIndex``); validation still reports it."""


def field(attr: str, *names: str | tuple[str, Conv], conv: Conv = STR, **kw: Any) -> Field:
    """Shorthand: ``field("keys", "key", "keys", conv=STRLIST)``; names default to ``attr``."""
    spelled = tuple((n, conv) if isinstance(n, str) else n for n in (names or (attr,)))
    return Field(attr, spelled, **kw)


def slot(name: str) -> Field:
    """A key kept verbatim at its usual position (e.g. SillyTavern's UI-only ``addMemo``)."""
    return Field(None, ((name, STR),))


def _default_emit(f: Field, conv: Conv, value: Any, *, forced: bool) -> Any:
    if not (forced or f.foreign):
        return OMIT
    if value is None:
        return None if f.null else OMIT
    if f.omit_empty and not forced and same(value, f.absent):
        return OMIT
    try:
        return conv.source(value)
    except Unrepresentable:
        return OMIT


def _canon_or_absent(f: Field, conv: Conv, raw: Any) -> Any:
    try:
        return conv.canon(raw)
    except Bad:
        return jcopy(f.absent)


def _warn_coerced(f: Field, conv: Conv, value: Any, raw: Any, where: str,
                  warnings: list[Issue] | None) -> None:
    """Warn when a value was readable only by changing its type (``"3"`` for 3)."""
    if warnings is None:
        return
    try:
        back = conv.source(value)
    except Unrepresentable:
        return
    if type(back) is not type(raw) and not (is_num(back) and is_num(raw)):
        warnings.append(Issue(where, f"{type_name(raw)} where {conv.name} is expected; read as "
                                     f"{value!r}, written back as it was"))


_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


@lru_cache(maxsize=1024)
def _quote(key: str) -> str:
    # Called for every key of every record read (warnings name the path); keys repeat, and
    # the bound keeps a hostile file's random keys from growing the cache.
    return f".{key}" if _IDENT.fullmatch(key) else f"[{key!r}]"


@dataclass(frozen=True)
class Table:
    """The fields of one JSON object kind."""

    fields: tuple[Field, ...]

    def known(self) -> set[str]:
        return {n for f in self.fields for n, _ in f.names}

    def read(self, obj: Mapping[str, Any], path: str, warnings: list[Issue] | None = None,
             *, skip: Sequence[str] = ()) -> tuple[dict[str, Any], dict[str, Any]]:
        """Canonical values by attribute, and the record the writer needs to restore ``obj``.

        ``skip`` names keys the caller handles itself (they are neither mapped nor extra).
        """
        src = obj if isinstance(obj, dict) else thaw(obj)
        values: dict[str, Any] = {}
        raw: dict[str, Any] = {}
        absent: list[str] = []
        alias: dict[str, list[str]] = {}
        extra: dict[str, Any] = {}
        natural: list[str] = []
        for f in self.fields:
            if f.attr is None:
                name = f.names[0][0]
                if name in src:
                    extra[name] = jcopy(src[name])
                    natural.append(name)
                continue
            present = [(n, c) for n, c in f.names if n in src]
            if not present:
                value = jcopy(f.absent)
                values[f.attr] = value
                if _default_emit(f, f.names[0][1], value, forced=False) is not OMIT:
                    absent.append(f.attr)
                continue
            first_name, first_conv = present[0]
            try:
                if src[first_name] is None and f.absent is None:
                    value = None  # null on an optional key: "not stated", not an error
                else:
                    value = first_conv.canon(src[first_name])
                    if not f.quiet:
                        _warn_coerced(f, first_conv, value, src[first_name],
                                      f"{path}{_quote(first_name)}", warnings)
            except Bad as exc:
                value = jcopy(f.absent)
                if warnings is not None:
                    warnings.append(Issue(f"{path}{_quote(first_name)}",
                                          f"{exc}; kept as it was"))
            values[f.attr] = value
            emitted: list[str] = []
            for n, c in present:
                r = src[n]
                if n != first_name:
                    try:
                        other = c.canon(r)
                    except Bad:
                        other = OMIT
                    if other is OMIT or not same(other, value):
                        extra[n] = jcopy(r)
                        if f.warn_mismatch and warnings is not None:
                            warnings.append(Issue(
                                f"{path}{_quote(n)}",
                                f"disagrees with {first_name!r}; {first_name!r} is used, "
                                f"{n!r} kept as it was"))
                        continue
                emitted.append(n)
                natural.append(n)
                w = _default_emit(f, c, value, forced=True)
                if w is OMIT or not same(w, r) or not f.foreign \
                        or (f.omit_empty and same(value, f.absent)):
                    raw[n] = jcopy(r)
            if emitted != [f.names[0][0]]:
                alias[f.attr] = emitted
        known = self.known()
        for k, v in src.items():
            if k not in known and k not in skip:
                extra[k] = jcopy(v)
        natural += [k for k in extra if k not in natural]
        natural += [k for k in skip if k in src]
        record: dict[str, Any] = {}
        if raw:
            record["raw"] = raw
        if absent:
            record["absent"] = absent
        if alias:
            record["alias"] = alias
        if extra:
            record["extra"] = extra
        if list(src) != [k for k in natural if k in src]:
            record["order"] = list(src)
        return values, record

    def write(self, get: Callable[[str], Any], record: Mapping[str, Any] | None,
              loss: LossReport | None = None, loss_path: str = "",
              tail: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The JSON object for the canonical values ``get(attr)``, restoring ``record``.

        ``tail`` holds keys the caller built itself (the ``skip`` keys of :meth:`read`).
        """
        rec = record or {}
        raw = rec.get("raw") or {}
        absent = set(rec.get("absent") or ())
        alias = rec.get("alias") or {}
        extra = rec.get("extra") or {}
        out: dict[str, Any] = {}
        for f in self.fields:
            if f.attr is None:
                name = f.names[0][0]
                if name in extra:
                    out[name] = jcopy(extra[name])
                continue
            value = get(f.attr)
            if f.attr in absent and same(value, f.absent):
                continue
            names = alias.get(f.attr) or [f.names[0][0]]
            convs = dict(f.names)
            for n in names:
                conv = convs.get(n, f.names[0][1])
                if n in raw:
                    if same(_canon_or_absent(f, conv, raw[n]), value):
                        out[n] = jcopy(raw[n])
                        continue
                    w = self._emit(f, conv, value, True, loss, loss_path)
                else:
                    w = self._emit(f, conv, value, False, loss, loss_path)
                if w is not OMIT:
                    out[n] = w
        for k, v in extra.items():
            if k not in out:
                out[k] = jcopy(v)
        if tail:
            out.update(tail)
        order = rec.get("order")
        if order:
            head = {k: out[k] for k in order if k in out}
            head.update((k, v) for k, v in out.items() if k not in head)
            out = head
        return out

    @staticmethod
    def _emit(f: Field, conv: Conv, value: Any, forced: bool, loss: LossReport | None,
              loss_path: str) -> Any:
        if value is not None:
            try:
                conv.source(value)
            except Unrepresentable as exc:
                if loss is not None:
                    loss.dropped(_join(loss_path, f.attr or f.names[0][0]), str(exc))
                return OMIT
        return _default_emit(f, conv, value, forced=forced)


def _join(base: str, attr: str) -> str:
    return f"{base}.{attr}" if base else attr


def prune(record: dict[str, Any]) -> dict[str, Any]:
    """Drop empty parts of a record so passthrough stays small."""
    return {k: v for k, v in record.items() if v not in (None, {}, [])}


def unwritable(table: Table, model: Any, record: Mapping[str, Any] | None,
               skip: Sequence[str] = ("passthrough",)) -> list[str]:
    """Canonical attributes of ``model`` holding a non-default value the table cannot write.

    An attribute is unwritable when no field carries it, or when its field is written only for
    data that came from the format (``foreign=False``) and this value did not.
    """
    from bunzai.model import field_defaults

    fields = {f.attr: f for f in table.fields if f.attr}
    raw = (record or {}).get("raw") or {}
    out = []
    for name, default in field_defaults(type(model)).items():
        if name in skip:
            continue
        value = getattr(model, name)
        if value == default and type(value) is type(default):
            continue
        f = fields.get(name)
        if f is None or (not f.foreign and not any(n in raw for n, _ in f.names)):
            out.append(name)
    return out

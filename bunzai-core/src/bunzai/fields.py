"""Field tables: one JSON object's keys <-> canonical attributes, without losing a byte of shape.

Core's card code uses them directly; format adapters reach them as :mod:`bunzai.sdk.fields`.

Formats disagree on defaults, types and spellings (``displayIndex`` as ``"3"``, ``role`` null
vs 0, ``scanDepth`` vs ``scan_depth``, Chub entries carrying ST *and* V2 names).  A
:class:`Table` maps each canonical attribute to the key(s) that carry it.  Reading an object
returns a :class:`Reading`:

``values``  the canonical values, by attribute;
``layout``  what the values alone cannot reproduce of the object's *shape*, for a byte-faithful
            rewrite by the same format (stored in ``passthrough[format_id]``, never a loss):
            ``raw`` (original values of another type or ``null``, where the canonical value
            still reads back the same), ``absent`` (keys the writer would have added),
            ``alias`` (which spellings were present) and ``order`` (the source key order);
``data``    what the canonical model has no field for: unknown keys and values no canonical
            type can hold, verbatim (stored in ``app_data[format_id]``: user data, so another
            format that cannot carry an item reports it by path).

The writer regenerates every key from the canonical value and uses a recorded original only
while the canonical value still equals what that original reads as, so an edited entity writes
its new value and an untouched one writes its original bytes.  Records are plain JSON: they
travel through ``vaud-json`` unchanged.
"""

from __future__ import annotations

import itertools
import linecache
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from dataclasses import field as dc_field
from functools import lru_cache
from typing import Any, NamedTuple

from .errors import Issue
from .io.compare import json_equal
from .io.frozen import thaw
from .io.jsonio import type_name
from .loss.report import LossReport

__all__ = [
    "BOOL", "DICT", "DICTLIST", "ID", "INT", "INT_OR_BOOL", "NOT_BOOL", "NUM", "OMIT", "STR",
    "STRDICT", "STRLIST", "TAGS", "WHOLE", "Bad", "Conv", "Field", "ObjectReader",
    "ObjectWriter", "Reading", "Table", "Unrepresentable", "enum", "field", "is_int", "is_num",
    "jcopy", "keep", "kept", "reorder", "same", "slot", "type_name",
]

OMIT: Any = object()
"""Writer sentinel: leave the key out."""

jcopy = thaw
"""A copy of a JSON value that shares nothing mutable with it (scalars are immutable)."""

same = json_equal
"""JSON equality that also compares types (``1`` vs ``1.0`` vs ``true`` differ)."""

_MISSING: Any = object()


class Bad(Exception):
    """A source value that does not fit the canonical type; the reader keeps it as data."""


class Unrepresentable(Exception):
    """A canonical value the target cannot express; the writer reports it."""


def is_int(x: Any) -> bool:
    return isinstance(x, int) and not isinstance(x, bool)


def is_num(x: Any) -> bool:
    return isinstance(x, int | float) and not isinstance(x, bool)


# -- converters ---------------------------------------------------------------------------------

def _any(x: Any) -> bool:
    return False


@dataclass(frozen=True)
class Conv:
    """How one key's JSON value becomes a canonical value (``canon``, raising :class:`Bad`) and
    back (``source``, raising :class:`Unrepresentable`).

    ``exact(raw)`` is a fast test: true when ``source(canon(raw))`` is ``raw`` itself (same type
    and value) and ``canon(raw)`` equals ``raw``, so reading needs neither conversion nor a
    record.  ``plain(raw)`` is the same test for a value that does need converting but comes
    back as it was (an enum's code, an inverted bool): reading calls ``canon`` and records
    nothing.  Both only ever speed things up, so ``False`` is always a safe answer.

    ``notes`` is for a lenient converter, one whose ``canon`` reads what it can of any value
    instead of raising :class:`Bad` (a number where text belongs read as its text, a list's
    stray items skipped): ``notes(key, raw, value)`` says what the reader is told, as
    ``(path below the key, message)`` pairs, in place of the generic type warning.  The
    original is kept as layout, like every value that does not come back as it was.
    """

    name: str
    canon: Callable[[Any], Any]
    source: Callable[[Any], Any] = jcopy
    exact: Callable[[Any], bool] = _any
    plain: Callable[[Any], bool] = _any
    notes: Callable[[str, Any, Any], Sequence[tuple[str, str]]] | None = None


_INT_TEXT = re.compile(r"-?\d{1,18}")
_NUM_TEXT = re.compile(r"-?(\d+\.?\d*|\.\d+)([eE][-+]?\d+)?")


def _bool(x: Any) -> bool:
    if isinstance(x, bool):
        return x
    if isinstance(x, str) and x.strip().lower() in ("true", "false"):
        return x.strip().lower() == "true"  # hand-edited files; the original is written back
    if is_int(x) and x in (0, 1):
        return bool(x)
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


def _whole(x: Any) -> int:
    """A whole number; a float with an integer value is accepted as the number it is."""
    if is_int(x):
        return int(x)
    if isinstance(x, float) and x.is_integer():
        return int(x)
    raise Bad(f"expected a whole number, got {type_name(x)}")


def _tags(x: Any) -> list[str]:
    """A list of strings; a comma-separated string (SillyTavern's root copy) is split."""
    if isinstance(x, str):
        return [t.strip() for t in x.split(",") if t.strip()]
    return _strlist(x)


def _str_dict(x: Any) -> dict[str, str]:
    if isinstance(x, Mapping) and all(isinstance(v, str) for v in x.values()):
        return {str(k): v for k, v in x.items()}
    raise Bad(f"expected an object of strings, got {type_name(x)}")


def _is_str_dict(x: Any) -> bool:
    return type(x) is dict and all(type(v) is str for v in x.values())


_EXACT_TYPES: dict[Callable[[Any], bool], frozenset[type]] = {}
"""The ``exact`` tests made by :func:`_is` -> the types they accept: :meth:`Table.read` tests
the type itself, with the same answer."""


def _is(*types: type) -> Callable[[Any], bool]:
    test: Callable[[Any], bool]
    if len(types) == 1:
        t0 = types[0]
        test = lambda x: type(x) is t0  # noqa: E731
    else:
        test = lambda x: type(x) in types  # noqa: E731
    _EXACT_TYPES[test] = frozenset(types)
    return test


def _all_str(x: Any) -> bool:
    return type(x) is list and all(type(i) is str for i in x)


_CODES: dict[Callable[[Any], bool], tuple[str, ...]] = {}
"""The ``plain`` tests made by :func:`enum` -> the names by code: for a value that passes,
``canon`` is ``names[value]``, which the compiled reader looks up itself."""


def enum(names: Sequence[str], what: str) -> Conv:
    """A numeric code (index into ``names``) that canonically is a name; names are accepted too."""
    count = len(names)

    def canon(x: Any) -> str:
        if is_int(x) and 0 <= x < count:
            return str(names[x])
        if isinstance(x, str) and x in names:
            return x
        raise Bad(f"unknown {what} {x!r}")

    def source(v: Any) -> int:
        if v in names:
            return names.index(v)
        raise Unrepresentable(f"{what} {v!r} has no numeric code here")

    def plain(x: Any) -> bool:
        return type(x) is int and 0 <= x < count  # a code, written back as the same code

    _CODES[plain] = tuple(str(n) for n in names)
    return Conv(what, canon, source, _any, plain)


BOOL = Conv("bool", _bool, jcopy, _is(bool))
INT = Conv("int", _int, jcopy, _is(int))
NUM = Conv("number", _num, jcopy, _is(int, float))
STR = Conv("string", _str, jcopy, _is(str))
ID = Conv("id", _id, jcopy, _is(int, str))
STRLIST = Conv("string list", _strlist, jcopy, _all_str)
DICT = Conv("object", _dict, jcopy, _is(dict))
DICTLIST = Conv("object list", _dictlist, jcopy,
                lambda x: type(x) is list and all(type(i) is dict for i in x))
INT_OR_BOOL = Conv("number or bool", _int_or_bool, jcopy, _is(int, bool))
NOT_BOOL = Conv("inverted bool", _not_bool, lambda v: not v, _any, _is(bool))
WHOLE = Conv("a whole number", _whole, jcopy, _is(int))
"""Like INT, but text is not a number here (dates, counts written by strict apps)."""
TAGS = Conv("a list of strings", _tags, jcopy, _all_str)
STRDICT = Conv("an object of strings", _str_dict, jcopy, _is_str_dict)


# -- tables -------------------------------------------------------------------------------------

@dataclass(frozen=True)
class Field:
    """One canonical attribute and the key(s) carrying it, preferred spelling first."""

    attr: str | None
    """Canonical attribute; None for a *slot*: a key the model does not name, kept verbatim
    (as data) but written back at its usual place."""
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
    keep_key: bool = True
    """An edited value goes under a key the source had even where the rules would leave it
    out (an emptied ``omit_empty`` text is written as ``""``); False: an edited value is
    written as a new one would be."""


def field(attr: str, *names: str | tuple[str, Conv], conv: Conv = STR, **kw: Any) -> Field:
    """Shorthand: ``field("keys", "key", "keys", conv=STRLIST)``; names default to ``attr``."""
    spelled = tuple((n, conv) if isinstance(n, str) else n for n in (names or (attr,)))
    return Field(attr, spelled, **kw)


def slot(name: str) -> Field:
    """A key kept verbatim at its usual position (e.g. SillyTavern's UI-only ``addMemo``)."""
    return Field(None, ((name, STR),))


class Reading(NamedTuple):
    """What :meth:`Table.read` found: canonical values, the object's layout and its app data."""

    values: dict[str, Any]
    layout: dict[str, Any]
    data: dict[str, Any]


def _default_emit(f: Field, conv: Conv, value: Any, *, forced: bool,
                  converted: Any = OMIT) -> Any:
    """What the key holds for ``value`` by the field's rules (``converted``: ``value``
    already converted back by the caller, so it is not converted twice)."""
    if not (forced or f.foreign):
        return OMIT
    if value is None:
        return None if f.null else OMIT
    if f.omit_empty and not forced and same(value, f.absent):
        return OMIT
    if converted is not OMIT:
        return converted
    try:
        return conv.source(value)
    except Unrepresentable:
        return OMIT


def _warn_coerced(conv: Conv, key: str, value: Any, raw: Any, where: str,
                  warnings: list[Issue] | None) -> None:
    """Warn when a value was readable only by changing its type (``"3"`` for 3), or say what
    the converter's own :attr:`Conv.notes` say."""
    if warnings is None:
        return
    if conv.notes is not None:
        warnings.extend(Issue(where + below, message)
                        for below, message in conv.notes(key, raw, value))
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
    # Warnings name the path of every key they concern; keys repeat, and the bound keeps a
    # hostile file's random keys from growing the cache.
    return f".{key}" if _IDENT.fullmatch(key) else f"[{key!r}]"


def _fresh(value: Any) -> Any:
    """A field's ``absent`` value, as a new object when it is mutable."""
    t = type(value)
    if t is list:
        return [] if not value else jcopy(value)
    if t is dict:
        return {} if not value else jcopy(value)
    return value


_ONE: Any = object()
_SLOT: Any = object()
_SPELLINGS: Any = object()


def _step(f: Field) -> tuple[Any, ...]:
    """How a table reads a field, worked out once per table: which path it takes, and which
    values of the expected type it can take without a record (``fast``).  The reference reader
    follows it field by field; the compiled one is written from it."""
    name, conv = f.names[0]
    if f.attr is None:
        return (_SLOT, f, None, name, conv, None, None, False, False, False, False, False,
                None)
    if len(f.names) > 1:
        return (_SPELLINGS, f, f.attr, name, conv, None, None, False, False, False, False,
                False, None)
    emits = _default_emit(f, conv, _fresh(f.absent), forced=False) is not OMIT
    # ``exact`` is called only when its types are not known (then ``types`` is None).
    types = _EXACT_TYPES.get(conv.exact)
    return (_ONE, f, f.attr, name, conv, conv.exact, conv.plain, f.foreign,
            type(f.absent) in (list, dict), f.omit_empty,
            f.null and f.absent is None and not f.omit_empty, emits, types)


_Reader = Callable[[dict[str, Any], str, "list[Issue] | None", Callable[[Any], Any],
                    Sequence[str]], Reading]
"""A table's compiled reader: ``(src, path, warnings, take, skip) -> Reading``."""


def _close(src: Mapping[str, Any], values: dict[str, Any], raw: dict[str, Any],
           absent: list[str], alias: dict[str, list[str]], data: dict[str, Any],
           natural: list[str], known: frozenset[str], skip: Sequence[str],
           take: Callable[[Any], Any]) -> Reading:
    """The end of a read: unknown keys as data, and the layout of what was found.

    ``natural`` holds the keys read so far, in the order a writer puts them back; the source
    order is recorded when it differs.
    """
    if len(natural) != len(src) or skip:
        for k in src:
            if k not in known and k not in skip:
                data[k] = take(src[k])
        natural += [k for k in data if k not in natural]
        natural += [k for k in skip if k in src]
    layout: dict[str, Any] = {}
    if raw:
        layout["raw"] = raw
    if absent:
        layout["absent"] = absent
    if alias:
        layout["alias"] = alias
    if len(natural) != len(src) or list(src) != natural:
        layout["order"] = list(src)
    return Reading(values, layout, data)


_TYPE_NAMES: dict[type, str] = {t: t.__name__ for t in (bool, int, float, str, list, dict)}


_INLINE_EXACT: dict[Callable[[Any], bool], tuple[str, tuple[type, ...]]] = {
    _all_str: ("T is list and (not r or all(type(i) is str for i in r))", (list,)),
}
"""``exact`` tests the compiled reader writes out (``T``: the value's type), and the types
they accept."""


def _type_test(types: frozenset[type]) -> str:
    test = " or ".join(f"T is {_TYPE_NAMES[t]}" for t in sorted(types, key=str))
    return f"({test})" if len(types) > 1 else test


def _fast_branches(i: int, exact: Any, plain: Any, conv: Conv, types: frozenset[type] | None,
                   omit_empty: bool, null_ok: bool, keep: bool,
                   ns: dict[str, Any]) -> list[tuple[str, str]]:
    """The tests a value of a ``fast`` field is put to, in order, and what it reads as when
    one holds: taken as it is (``exact``), converted (``plain``), a null.  A first pair
    ``("t = type(r)", "")`` says the tests share the value's type."""
    check: str | None
    value_types: tuple[type, ...] | frozenset[type] | None
    if types is not None and all(t in _TYPE_NAMES for t in types):
        check, value_types = _type_test(types), types
    elif types is not None:
        ns[f"types_{i}"] = types
        check, value_types = f"T in types_{i}", types
    elif exact in _INLINE_EXACT:
        check, value_types = _INLINE_EXACT[exact]
    elif exact is _any:
        check, value_types = None, ()
    else:
        ns[f"exact_{i}"] = exact
        check, value_types = f"exact_{i}(r)", None
    if keep or (value_types is not None and not {list, dict} & set(value_types)):
        value = "r"
    elif value_types is not None and set(value_types) <= {list, dict}:
        value = "take(r)"
    else:
        value = "take(r) if t is dict or t is list else r"
    branches: list[tuple[str, str]] = []
    if omit_empty:
        if check is not None:
            branches.append((f"{check} and not same(r, field_{i}.absent)", value))
    else:
        if check is not None:
            branches.append((check, value))
        codes = _CODES.get(plain)
        plain_types = _EXACT_TYPES.get(plain)
        if codes is not None:
            ns[f"codes_{i}"] = codes
            branches.append((f"T is int and 0 <= r < {len(codes)}", f"codes_{i}[r]"))
        elif plain is not _any:
            ns[f"canon_{i}"] = conv.canon
            if plain_types is not None and all(t in _TYPE_NAMES for t in plain_types):
                branches.append((_type_test(plain_types), f"canon_{i}(r)"))
            else:
                ns[f"plain_{i}"] = plain
                branches.append((f"plain_{i}(r)", f"canon_{i}(r)"))
        if null_ok:
            branches.append(("r is None", "None"))
    shared = (sum(test.count("T ") for test, _ in branches) > 1
              or any("t is" in got for _, got in branches))
    spelled = "t " if shared else "type(r) "
    branches = [(test.replace("T ", spelled), got) for test, got in branches]
    return [("t = type(r)", ""), *branches] if shared else branches


def _missing_lines(i: int, f: Field, attr: str, mutable: bool, emits: bool) -> list[str]:
    """What a reader does for field ``i`` when none of its keys is there: its absent value is
    in place already unless it is mutable (then a fresh one), and it is recorded as absent
    when the writer would write it (``emits``)."""
    out = []
    if mutable:
        fresh = "[]" if type(f.absent) is list else "{}"
        if f.absent:
            fresh = f"fresh(field_{i}.absent)"
        out.append(f"        values[{attr!r}] = {fresh}")
    if emits:
        out.append(f"        absent.append({attr!r})")
    return out


def _close_simple(src: Mapping[str, Any], values: dict[str, Any], raw: dict[str, Any],
                  absent: list[str], data: dict[str, Any], names: tuple[str, ...],
                  known: frozenset[str], skip: Sequence[str], take: Callable[[Any], Any],
                  shapes: dict[Any, tuple[tuple[str, ...], bool]]) -> Reading:
    """:func:`_close` for a table with one spelling per field, which reads its keys in field
    order: the keys read are the table's names found, then the unknown keys in source order.
    That depends on the key order (and ``skip``) alone, so what :func:`_close` made of it (the
    unknown keys, whether the order is recorded) is remembered in ``shapes`` for the next
    object."""
    natural = [n for n in names if n in src]
    reading = _close(src, values, raw, absent, {}, data, natural, known, skip, take)
    if len(shapes) < _SHAPES:
        shapes[_shape(src, skip)] = (tuple(k for k in src if k not in known and k not in skip),
                                     "order" in reading.layout)
    return reading


def _shape(src: Mapping[str, Any], skip: Sequence[str]) -> Any:
    """What the end of a read depends on: the key order, and the keys the caller handles."""
    return (tuple(src), tuple(skip)) if skip else tuple(src)


_SHAPES = 64
"""Key orders remembered per table: files repeat a few; a hostile file cannot grow them."""


def _reader_source(table: Table, keep: bool) -> tuple[str, dict[str, Any]]:
    """The text of ``table``'s reader and the names it uses: :meth:`Table.read_interpreted`
    written out for this table's fields, one block per field in field order, with each
    field's decisions (its path, types, absent value, records) taken once, here.

    ``keep``: the values are taken as they are (the reader's own parse); otherwise mutable
    ones are copied with ``take``.  ``values`` starts as a copy of the absent values in field
    order, so a value found takes its attribute's place as it would inserted in order.
    """
    plan = table._plan
    simple = all(step[0] is not _SPELLINGS for step in plan)
    defaults = {attr: f.absent for step, f, attr, *_rest in plan if attr is not None}
    ns: dict[str, Any] = {"MISSING": _MISSING, "slow": Table._slow_one,
                          "spellings": table._read_spellings, "close": _close,
                          "close_simple": _close_simple, "Reading": Reading,
                          "known": table._known, "same": same, "fresh": _fresh,
                          "defaults": defaults, "names": tuple(f.names[0][0] for f in table.fields),
                          "shapes": table._shapes}
    out = ["def read(src, path, warnings, take, skip):",
           "    get = src.get",
           "    values = defaults.copy()",
           "    raw = {}",
           "    absent = []",
           "    data = {}"]
    if not simple:
        out += ["    alias = {}",
                "    natural = []",
                "    seen = natural.append"]

    def seen(key: str) -> list[str]:
        return [] if simple else [f"        seen({key})"]

    for i, (step, f, attr, name, conv, exact, plain, fast, mutable, omit_empty, null_ok,
            emits, types) in enumerate(plan):
        ns[f"field_{i}"] = f
        ns[f"conv_{i}"] = conv
        key = repr(name)
        if step is _SLOT:
            out += [f"    # {name}: kept as data at its place",
                    f"    r = get({key}, MISSING)",
                    "    if r is not MISSING:",
                    f"        data[{key}] = {'r' if keep else 'take(r)'}",
                    *seen(key)]
            continue
        if step is _SPELLINGS:
            present = " or ".join(f"{n!r} in src" for n, _ in f.names)
            out += [f"    # {attr}: {', '.join(n for n, _ in f.names)}",
                    f"    if {present}:",
                    f"        spellings(field_{i}, src, path, warnings, values, raw, absent,"
                    " alias, data, natural)"]
            none = _missing_lines(i, f, attr, mutable,
                                  _default_emit(f, f.names[0][1], _fresh(f.absent),
                                                forced=False) is not OMIT)
            if none:
                out += ["    else:", *none]
            continue
        target = f"values[{attr!r}]"
        slow = f"{target} = slow(field_{i}, {key}, conv_{i}, r, path, warnings, raw, data)"
        out += [f"    # {attr}: {name} ({conv.name})",
                f"    r = get({key}, MISSING)"]
        missing = _missing_lines(i, f, attr, mutable, emits)
        if missing:
            out += ["    if r is MISSING:", *missing, "    else:"]
        else:
            out.append("    if r is not MISSING:")  # the absent value is in place
        out += seen(key)
        if not fast:
            out.append(f"        {slow}")
            continue
        branches = _fast_branches(i, exact, plain, conv, types, omit_empty, null_ok, keep, ns)
        if branches and branches[0][0] == "t = type(r)":
            out.append("        t = type(r)")
            branches = branches[1:]
        for n, (test, got) in enumerate(branches):
            out += [f"        {'elif' if n else 'if'} {test}:",
                    f"            {target} = {got}"]
        if branches:
            out += ["        else:",
                    f"            {slow}"]
        else:
            out.append(f"        {slow}")
    if simple:
        out += ["    # what the key order (and skip, see _shape) made of an object read before",
                "    shape = shapes.get((tuple(src), tuple(skip)) if skip else tuple(src))",
                "    if shape is None:",
                "        return close_simple(src, values, raw, absent, data, names, known, skip,"
                " take, shapes)",
                "    unknown, order = shape",
                "    for k in unknown:",
                f"        data[k] = {'src[k]' if keep else 'take(src[k])'}",
                "    layout = {}",
                "    if raw:",
                "        layout['raw'] = raw",
                "    if absent:",
                "        layout['absent'] = absent",
                "    if order:",
                "        layout['order'] = list(src)",
                "    return Reading(values, layout, data)"]
    else:
        out.append("    return close(src, values, raw, absent, alias, data, natural, known, skip,"
                   " take)")
    return "\n".join(out) + "\n", ns


_COMPILED = itertools.count()


def _compile_reader(table: Table, keep: bool) -> _Reader:
    """:func:`_reader_source`, compiled; its text is registered with :mod:`linecache` so a
    traceback through it shows the line that failed."""
    text, ns = _reader_source(table, keep)
    first = next((f.attr for f in table.fields if f.attr), "slots")
    filename = f"<bunzai.fields reader #{next(_COMPILED)}: {first}, {len(table.fields)} fields>"
    # the text is built from the table's own fields, never from data
    exec(compile(text, filename, "exec"), ns)
    linecache.cache[filename] = (len(text), None, text.splitlines(True), filename)
    reader: _Reader = ns["read"]
    return reader


@dataclass(frozen=True)
class Table:
    """The fields of one JSON object kind.

    :meth:`read` runs a reader compiled for the table on its first use (see
    :func:`_reader_source`; :meth:`reader_source` shows its text), which does what
    :meth:`read_interpreted`, the rule as written, does: the same values, layout, data and
    warnings, in the same order.
    """

    fields: tuple[Field, ...]
    _known: frozenset[str] = dc_field(init=False, repr=False, compare=False)
    _plan: tuple[tuple[Any, ...], ...] = dc_field(init=False, repr=False, compare=False)
    _convs: tuple[dict[str, Conv], ...] = dc_field(init=False, repr=False, compare=False)
    """Each field's spellings -> converter (what write looks up per key), in field order."""
    _readers: dict[bool, _Reader] = dc_field(init=False, repr=False, compare=False)
    """The compiled readers, by whether they take values as they are (owned) or copy them."""
    _shapes: dict[Any, tuple[tuple[str, ...], bool]] = dc_field(
        init=False, repr=False, compare=False)
    """Key orders read before -> their unknown keys, and whether the order is recorded (see
    :func:`_close_simple`)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "_known",
                           frozenset(n for f in self.fields for n, _ in f.names))
        object.__setattr__(self, "_plan", tuple(_step(f) for f in self.fields))
        object.__setattr__(self, "_convs", tuple(dict(f.names) for f in self.fields))
        object.__setattr__(self, "_readers", {})
        object.__setattr__(self, "_shapes", {})

    def known(self) -> frozenset[str]:
        """Every key the table maps (all spellings, slots included)."""
        return self._known

    def attrs(self) -> tuple[str, ...]:
        """The canonical attributes this table carries (for ``FormatInfo.carries``)."""
        return tuple(f.attr for f in self.fields if f.attr is not None)

    def reads_as(self, obj: Mapping[str, Any]) -> dict[str, Any]:
        """The canonical values a reader of this table gets from ``obj``: how a writer learns
        what an object it built will read back as (and so what to report) without writing a
        file and reading it."""
        return self.read(obj, "").values

    def read(self, obj: Mapping[str, Any], path: str, warnings: list[Issue] | None = None,
             *, skip: Sequence[str] = (), owned: bool = False) -> Reading:
        """Canonical values, layout and data of ``obj``.

        ``skip`` names keys the caller handles itself (neither mapped nor data).  ``owned``
        says ``obj`` is the reader's own parse (``AdapterInput.json_mutable``): its values are
        taken as they are instead of copied.
        """
        src: dict[str, Any] = obj if type(obj) is dict else thaw(obj)
        keep = owned or src is not obj
        reader = self._readers.get(keep)
        if reader is None:
            reader = self._readers[keep] = _compile_reader(self, keep)
        return reader(src, path, warnings, _keep if keep else jcopy, skip)

    def reader_source(self, owned: bool = True) -> str:
        """The Python text of the reader :meth:`read` runs (``owned``: the one that takes the
        object's values as they are), for inspection; tracebacks show its lines too."""
        return _reader_source(self, owned)[0]

    def read_interpreted(self, obj: Mapping[str, Any], path: str,
                         warnings: list[Issue] | None = None, *, skip: Sequence[str] = (),
                         owned: bool = False) -> Reading:
        """What :meth:`read` returns, worked out field by field from the plan: the rule the
        compiled reader follows, kept as the reference it is tested against."""
        src: Mapping[str, Any] = obj if type(obj) is dict else thaw(obj)
        take = _keep if owned or src is not obj else jcopy
        values: dict[str, Any] = {}
        raw: dict[str, Any] = {}
        absent: list[str] = []
        alias: dict[str, list[str]] = {}
        data: dict[str, Any] = {}
        natural: list[str] = []
        get = src.get
        missing = _MISSING
        for (step, f, attr, name, conv, exact, plain, fast, mutable, omit_empty, null_ok,
             emits, types) in self._plan:
            if step is _ONE:
                r = get(name, missing)
                if r is missing:
                    values[attr] = _fresh(f.absent) if mutable else f.absent
                    if emits:
                        absent.append(attr)
                    continue
                natural.append(name)
                if fast:
                    t = type(r)
                    if t in types if types is not None else exact(r):
                        if not omit_empty or not same(r, f.absent):
                            values[attr] = take(r) if t is dict or t is list else r
                            continue
                    elif not omit_empty:
                        if plain(r):
                            values[attr] = conv.canon(r)
                            continue
                        if r is None and null_ok:
                            values[attr] = None
                            continue
                values[attr] = self._slow_one(f, name, conv, r, path, warnings, raw, data)
            elif step is _SLOT:
                r = get(name, missing)
                if r is not missing:
                    data[name] = take(r)
                    natural.append(name)
            else:
                self._read_spellings(f, src, path, warnings, values, raw, absent, alias, data,
                                     natural)
        return _close(src, values, raw, absent, alias, data, natural, self._known, skip, take)

    @staticmethod
    def _slow_one(f: Field, name: str, conv: Conv, r: Any, path: str,
                  warnings: list[Issue] | None, raw: dict[str, Any],
                  data: dict[str, Any]) -> Any:
        """One spelling whose value needs converting, is null, or must be recorded."""
        try:
            if r is None and f.absent is None:
                value = None  # null on an optional key: "not stated", not an error
            else:
                value = conv.canon(r)
                if not f.quiet:
                    _warn_coerced(conv, name, value, r, f"{path}{_quote(name)}", warnings)
        except Bad as exc:
            if warnings is not None:
                warnings.append(Issue(f"{path}{_quote(name)}", f"{exc}; kept as it was"))
            data[name] = jcopy(r)
            return _fresh(f.absent)
        w = _default_emit(f, conv, value, forced=True)
        if w is OMIT or not same(w, r) or not f.foreign \
                or (f.omit_empty and same(value, f.absent)):
            raw[name] = jcopy(r)
        return value

    def _read_spellings(self, f: Field, src: Mapping[str, Any], path: str,
                        warnings: list[Issue] | None, values: dict[str, Any],
                        raw: dict[str, Any], absent: list[str], alias: dict[str, list[str]],
                        data: dict[str, Any], natural: list[str]) -> None:
        attr = f.attr
        assert attr is not None
        present = [(n, c) for n, c in f.names if n in src]
        if not present:
            values[attr] = _fresh(f.absent)
            if _default_emit(f, f.names[0][1], values[attr], forced=False) is not OMIT:
                absent.append(attr)
            return
        first_name, first_conv = present[0]
        value = self._slow_one(f, first_name, first_conv, src[first_name], path, warnings, raw,
                               data)
        values[attr] = value
        emitted: list[str] = [first_name]
        natural.append(first_name)
        if first_name in data:  # unreadable: the other spellings are kept as they are too
            for n, _c in present[1:]:
                data[n] = jcopy(src[n])
            alias[attr] = [first_name]
            return
        for n, c in present[1:]:
            r = src[n]
            try:
                other = c.canon(r)
            except Bad:
                other = OMIT
            if other is OMIT or not same(other, value):
                data[n] = jcopy(r)
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
            alias[attr] = emitted

    def write(self, get: Callable[[str], Any], layout: Mapping[str, Any] | None = None,
              data: Mapping[str, Any] | None = None, loss: LossReport | None = None,
              loss_path: str = "", tail: Mapping[str, Any] | None = None) -> dict[str, Any]:
        """The JSON object for the canonical values ``get(attr)``, restoring ``layout`` and
        ``data`` (this format's own, from the entity's passthrough and app data).

        ``tail`` holds keys the caller built itself (the ``skip`` keys of :meth:`read`).
        """
        rec = layout or {}
        raw = rec.get("raw") or {}
        absent = rec.get("absent") or ()
        alias = rec.get("alias") or {}
        kept = data or {}
        out: dict[str, Any] = {}
        for f, convs in zip(self.fields, self._convs, strict=True):
            if f.attr is None:
                name = f.names[0][0]
                if name in kept:
                    out[name] = jcopy(kept[name])
                continue
            value = get(f.attr)
            if f.attr in absent and same(value, f.absent):
                continue
            names = alias.get(f.attr) or (f.names[0][0],)
            for n in names:
                w = _write_one(f, n, convs.get(n, f.names[0][1]), value, raw, (), kept, False,
                               loss, loss_path)
                if w is not OMIT:
                    out[n] = w
        for k, v in kept.items():  # unknown keys, disagreeing spellings, unreadable values
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



def _write_one(f: Field, name: str, conv: Conv, value: Any, raw: Mapping[str, Any],
               absent: Any, kept: Mapping[str, Any], forced: bool, loss: LossReport | None,
               loss_path: str) -> Any:
    """What one key holds for ``value`` (or OMIT): its recorded original while the value
    still reads the same, the value converted back otherwise."""
    if name in absent and same(value, f.absent):
        return OMIT
    if name in kept and same(value, f.absent):
        return jcopy(kept[name])  # a value no canonical type holds, untouched
    if name in raw:
        r = raw[name]
        try:
            back = None if r is None and f.absent is None else conv.canon(r)
        except Bad:
            back = _fresh(f.absent)
        if same(back, value):
            return jcopy(r)
        forced = f.keep_key
    converted: Any = OMIT
    if value is not None:
        try:
            converted = conv.source(value)
        except Unrepresentable as exc:
            if loss is not None:
                loss.dropped(_join(loss_path, f.attr or name), str(exc))
            return OMIT
    return _default_emit(f, conv, value, forced=forced, converted=converted)


def _keep(value: Any) -> Any:
    return value


def _join(base: str, attr: str) -> str:
    return f"{base}.{attr}" if base else attr


# -- one object, key by key ----------------------------------------------------------------------

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

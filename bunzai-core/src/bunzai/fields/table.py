"""Field tables: one JSON object's keys read into canonical attributes and written back, with
what the values alone cannot reproduce recorded as layout.  A table's reader is compiled to
code for its own fields (``_reader_source``); ``Table.read_interpreted`` is the reference it is
held to."""

from __future__ import annotations

import itertools
import linecache
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from dataclasses import field as dc_field
from functools import lru_cache
from typing import Any, NamedTuple

from ..errors import Issue
from ..io.frozen import thaw
from ..io.jsonio import type_name
from ..loss.report import LossReport
from .convert import (
    _CODES,
    _EXACT_TYPES,
    _MISSING,
    OMIT,
    STR,
    Bad,
    Conv,
    Unrepresentable,
    _all_str,
    _any,
    is_num,
    jcopy,
    same,
)


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
    for i, step in enumerate(plan):
        ns[f"field_{i}"] = step[1]
        ns[f"conv_{i}"] = step[4]
        out += _step_lines(i, step, simple, keep, ns)
    out += _closing_lines(simple, keep)
    return "\n".join(out) + "\n", ns


def _step_lines(i: int, step_plan: tuple[Any, ...], simple: bool, keep: bool,
                ns: dict[str, Any]) -> list[str]:
    """The reader's block for the ``i``-th step of a table's plan."""
    (step, f, attr, name, conv, exact, plain, fast, mutable, omit_empty, null_ok,
     emits, types) = step_plan
    key = repr(name)
    seen = [] if simple else [f"        seen({key})"]
    if step is _SLOT:
        return [f"    # {name}: kept as data at its place",
                f"    r = get({key}, MISSING)",
                "    if r is not MISSING:",
                f"        data[{key}] = {'r' if keep else 'take(r)'}",
                *seen]
    if step is _SPELLINGS:
        present = " or ".join(f"{n!r} in src" for n, _ in f.names)
        out = [f"    # {attr}: {', '.join(n for n, _ in f.names)}",
               f"    if {present}:",
               f"        spellings(field_{i}, src, path, warnings, values, raw, absent,"
               " alias, data, natural)"]
        none = _missing_lines(i, f, attr, mutable,
                              _default_emit(f, f.names[0][1], _fresh(f.absent),
                                            forced=False) is not OMIT)
        if none:
            out += ["    else:", *none]
        return out
    target = f"values[{attr!r}]"
    slow = f"{target} = slow(field_{i}, {key}, conv_{i}, r, path, warnings, raw, data)"
    out = [f"    # {attr}: {name} ({conv.name})",
           f"    r = get({key}, MISSING)"]
    missing = _missing_lines(i, f, attr, mutable, emits)
    if missing:
        out += ["    if r is MISSING:", *missing, "    else:"]
    else:
        out.append("    if r is not MISSING:")  # the absent value is in place
    out += seen
    if not fast:
        out.append(f"        {slow}")
        return out
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
    return out


def _closing_lines(simple: bool, keep: bool) -> list[str]:
    """The reader's end: unknown keys and the layout, from the shape of an object of the same
    keys read before (one spelling a field), else by :func:`_close`."""
    if not simple:
        return ["    return close(src, values, raw, absent, alias, data, natural, known, skip,"
                " take)"]
    return ["    # what the key order (and skip, see _shape) made of an object read before",
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

"""Field tables: ObjectWriter.put writes what the field rules say, through its shortcut for
unrecorded keys as through the general path (every writer of every format goes through it);
lenient converters and ``keep_key``."""

from __future__ import annotations

import random
from typing import Any

import pytest

from bunzai.fields import (
    BOOL,
    DICT,
    ID,
    INT,
    NUM,
    OMIT,
    STR,
    STRLIST,
    Conv,
    ObjectWriter,
    Unrepresentable,
    enum,
)
from bunzai.fields.objects import _field_for as field_for
from bunzai.fields.table import _write_one as write_one
from bunzai.loss.report import LossReport

_MISSING: Any = object()
CODES = enum(("a", "b", "c"), "code")
NO_X = Conv("no x", STR.canon, lambda v: _refuse_x(v))
CONVS = (STR, INT, NUM, BOOL, ID, STRLIST, DICT, CODES, NO_X)
VALUES = (None, "", "x", "text", 0, 1, 2, 1.5, True, False, [], ["k"], {}, {"a": 1}, "b")


def _refuse_x(v: Any) -> Any:
    if v == "x":
        raise Unrepresentable("no place for x")
    return v


def _general(w: ObjectWriter, key: str, value: Any, conv: Conv, absent: Any, null: bool,
             required: Any) -> None:
    """ObjectWriter.put as the rule is written: the field, then _write_one."""
    if value is None and required is not _MISSING and not w.faithful:
        w.out[key] = required
        return
    f = field_for(key, conv, absent, null, False)
    got = write_one(f, key, conv, value, w.raw, w.absent, w.data, False, w.loss, w.loss_path)
    if got is not OMIT:
        w.out[key] = got


def test_put_writes_as_the_general_rule_does() -> None:
    rng = random.Random(18)
    for _ in range(20000):
        key = rng.choice(("k", "m"))
        conv = rng.choice(CONVS)
        value = rng.choice(VALUES)
        absent = rng.choice((None, "", [], {}, True, 100))
        null = rng.random() < 0.3
        required = rng.choice((_MISSING, _MISSING, {}, ""))
        layout: dict[str, Any] = {}
        if rng.random() < 0.5:
            layout["raw"] = {rng.choice(("k", "n")): rng.choice(VALUES)}
        if rng.random() < 0.3:
            layout["absent"] = [rng.choice(("k", "n"))]
        data = {rng.choice(("k", "n")): rng.choice(VALUES)} if rng.random() < 0.3 else None
        writers = []
        for _ in range(2):
            w = ObjectWriter(layout or None, data, LossReport(), "$.x")
            writers.append(w)
        kwargs: dict[str, Any] = {} if required is _MISSING else {"required": required}
        writers[0].put(key, value, conv, absent, null=null, **kwargs)
        _general(writers[1], key, value, conv, absent, null, required)
        fast, slow = writers
        assert fast.out == slow.out and [type(v) for v in fast.out.values()] == [
            type(v) for v in slow.out.values()], (key, value, conv.name, absent, null, layout,
                                                  data)
        assert [str(e) for e in fast.loss.entries] == [str(e) for e in slow.loss.entries]


def test_put_copies_what_it_writes() -> None:
    value = {"a": [1]}
    w = ObjectWriter()
    w.put("k", value, DICT)
    assert w.out["k"] == value and w.out["k"] is not value


def test_get_all_reads_as_get_does() -> None:
    """get_all is get key after key: the same values, warnings, layout and data."""
    from bunzai.errors import Issue
    from bunzai.fields import ObjectReader

    rng = random.Random(7)
    specs = [("a", "a", STR, ""), ("b", "b", INT, None), ("c", "c", STRLIST, []),
             ("d", "d", BOOL, True), ("e", "e", NUM, None), ("f", "f", DICT, {})]
    for _ in range(5000):
        obj = {k: rng.choice((*VALUES, "3", 2.0, [1], "x")) for k, *_r in specs
               if rng.random() < 0.7}
        if rng.random() < 0.3:
            obj["extra"] = "kept"
        quiet = rng.random() < 0.5
        w1: list[Issue] = []
        w2: list[Issue] = []
        one = ObjectReader(dict(obj), "$", w1, owned=rng.random() < 0.5)
        two = ObjectReader(dict(obj), "$", w2, owned=one.owned)
        got: dict[str, Any] = {}
        one.get_all(specs, got, quiet_whole_floats=quiet)
        want = {attr: two.get(key, conv, absent, quiet=quiet and conv is INT
                              and isinstance(obj.get(key), float) and obj[key].is_integer())
                for key, attr, conv, absent in specs}
        assert got == want and [type(v) for v in got.values()] == [
            type(v) for v in want.values()]
        assert one.finish(("a", "b")) == two.finish(("a", "b")) and w1 == w2


def _lenient_text(x: Any) -> str:
    return x if isinstance(x, str) else str(x) if isinstance(x, int | float) else ""


LENIENT = Conv("text", _lenient_text, exact=lambda x: type(x) is str,
               notes=lambda key, raw, value: [("", f"{key} held {type(raw).__name__}")])


def test_a_lenient_converter_says_its_own_notes_and_keeps_the_original_as_layout() -> None:
    """A converter that reads anything (rather than raising Bad) warns in its own words, keeps
    what it could not take as layout (not app data), and gets it back while unchanged."""
    from bunzai.errors import Issue
    from bunzai.fields import Table, field

    table = Table((field("text", "Text", conv=LENIENT, absent=""),))
    warnings: list[Issue] = []
    got = table.read({"Text": [1, 2]}, "$", warnings)
    assert got.values == {"text": ""} and got.data == {}
    assert got.layout == {"raw": {"Text": [1, 2]}}
    assert [(w.path, w.message) for w in warnings] == [("$.Text", "Text held list")]
    assert table.write(lambda a: "", got.layout) == {"Text": [1, 2]}
    assert table.write(lambda a: "new", got.layout) == {"Text": "new"}


@pytest.mark.parametrize(("keep", "written"), [(True, {"k": ""}), (False, {})])
def test_keep_key_decides_whether_an_emptied_value_keeps_the_sources_key(
        keep: bool, written: dict[str, Any]) -> None:
    from bunzai.fields import Table, field

    table = Table((field("k", conv=LENIENT, absent="", omit_empty=True, keep_key=keep),))
    layout = table.read({"k": 5}, "$").layout  # "5": a value kept as it was
    assert table.write(lambda a: "5", layout) == {"k": 5}
    assert table.write(lambda a: "", layout) == written


def test_a_reader_records_a_key_order_exactly_when_the_writer_would_change_it() -> None:
    """The order check agrees with ``reorder`` on every arrangement of named and unnamed keys:
    a card read in its spec's order carries no order record, any other order does."""
    import itertools

    from bunzai.fields import ObjectReader, reorder

    order = ("a", "b", "c", 7, "b")  # a repeat and a non-key entry name nothing new
    for n in range(5):
        for keys in itertools.permutations(("a", "b", "c", "x", "y"), n):
            obj = dict.fromkeys(keys, "")
            recorded = "order" in ObjectReader(obj, "$").finish(order).layout  # type: ignore[arg-type]
            assert recorded == (list(reorder(dict(obj), list(order))) != list(keys)), keys
    assert "order" not in ObjectReader({"x": 1}, "$").finish(None).layout


def _random_table(rng: random.Random) -> Any:
    """A table of random fields: every converter, spelling count and option a table can have."""
    from bunzai.fields import (
        DICTLIST,
        INT_OR_BOOL,
        NOT_BOOL,
        STRDICT,
        TAGS,
        WHOLE,
        Field,
        Table,
        slot,
    )

    convs = (*CONVS, DICTLIST, INT_OR_BOOL, NOT_BOOL, STRDICT, TAGS, WHOLE, LENIENT,
             Conv("odd types", STR.canon, exact=lambda x: type(x) in (str, list)))
    absents = (None, None, "", True, 0, [], ["k"], {}, {"a": 1})
    names = iter(f"k{i}" for i in range(100))
    counts = (1,) if rng.random() < 0.5 else (1, 1, 2, 3)  # half of them: one spelling each
    fields = []
    for i in range(rng.randint(1, 8)):
        if rng.random() < 0.15:
            fields.append(slot(next(names)))
            continue
        spelled = tuple((next(names), rng.choice(convs)) for _ in range(rng.choice(counts)))
        fields.append(Field(f"a{i}", spelled, absent=rng.choice(absents),
                            null=rng.random() < 0.3, foreign=rng.random() < 0.8,
                            omit_empty=rng.random() < 0.3, warn_mismatch=rng.random() < 0.5,
                            quiet=rng.random() < 0.2))
    return Table(tuple(fields))


def _shared(reading: Any, src: dict[str, Any]) -> list[tuple[str, str]]:
    """Where a reading holds one of the source's own lists or objects (not a copy)."""
    mine = {id(v) for v in src.values() if isinstance(v, list | dict)}
    return [(place, k) for place, part in zip(("values", "layout", "data"), reading, strict=True)
            for k, v in part.items() if id(v) in mine]


def test_the_compiled_reader_reads_as_the_rule_does() -> None:
    """Table.read runs code compiled for the table; it gives what the rule as written gives:
    the same values (types included), layout, data and warnings, the same copies and shares."""
    from bunzai.errors import Issue
    from bunzai.io.frozen import freeze

    rng = random.Random(18)
    odd = (*VALUES, "3", " true ", 2.0, 3.5, -1, [1], ["a", 2], [{}], {"x": "y"}, "x", 99)
    for _ in range(400):
        table = _random_table(rng)
        keys = [n for f in table.fields for n, _ in f.names] + ["other", "more"]
        for _ in range(25):
            obj = {k: rng.choice(odd) for k in rng.sample(keys, rng.randint(0, len(keys)))}
            owned = rng.random() < 0.5
            skip = tuple(rng.sample(keys, rng.randint(0, 2))) if rng.random() < 0.2 else ()
            source = freeze(obj) if rng.random() < 0.1 else obj
            for again in range(3):  # later reads know the key order from the first
                if again == 2:
                    skip = () if skip else tuple(rng.sample(keys, 1))  # other keys skipped
                w2: list[Issue] = []
                want = table.read_interpreted(source, "$", w2, skip=skip, owned=owned)
                w1: list[Issue] = []
                got = table.read(source, "$", w1, skip=skip, owned=owned)
                assert got == want, table.reader_source(owned)
                assert [(k, type(v)) for k, v in got.values.items()] == [
                    (k, type(v)) for k, v in want.values.items()]
                assert [list(part) for part in got] == [list(part) for part in want]
                assert w1 == w2
                assert _shared(got, obj) == _shared(want, obj)

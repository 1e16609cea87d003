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

from ..io.jsonio import type_name
from .convert import (
    BOOL,
    DICT,
    DICTLIST,
    ID,
    INT,
    INT_OR_BOOL,
    NOT_BOOL,
    NUM,
    OMIT,
    STR,
    STRDICT,
    STRLIST,
    TAGS,
    WHOLE,
    Bad,
    Conv,
    Unrepresentable,
    enum,
    is_int,
    is_num,
    jcopy,
    same,
)
from .objects import ObjectReader, ObjectWriter, keep, kept, reorder
from .table import Field, Reading, Table, field, slot

__all__ = [
    "BOOL", "DICT", "DICTLIST", "ID", "INT", "INT_OR_BOOL", "NOT_BOOL", "NUM", "OMIT", "STR",
    "STRDICT", "STRLIST", "TAGS", "WHOLE", "Bad", "Conv", "Field", "ObjectReader",
    "ObjectWriter", "Reading", "Table", "Unrepresentable", "enum", "field", "is_int", "is_num",
    "jcopy", "keep", "kept", "reorder", "same", "slot", "type_name",
]

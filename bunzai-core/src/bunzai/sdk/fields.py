"""Field tables for format adapters: one JSON object's keys <-> canonical attributes, with the
object's layout (``passthrough``) and unknown keys (``app_data``) kept for a faithful rewrite.

The same tables read and write core's Character Card JSON, so a key means the same thing in
every format; how reading splits an object and how writing restores it is described in
:mod:`bunzai.fields`.
"""

from ..fields import (
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
    Field,
    ObjectReader,
    ObjectWriter,
    Reading,
    Table,
    Unrepresentable,
    enum,
    field,
    is_int,
    is_num,
    jcopy,
    keep,
    kept,
    reorder,
    same,
    slot,
)
from ..io.jsonio import type_name

__all__ = [
    "BOOL", "DICT", "DICTLIST", "ID", "INT", "INT_OR_BOOL", "NOT_BOOL", "NUM", "OMIT", "STR",
    "STRDICT", "STRLIST", "TAGS", "WHOLE", "Bad", "Conv", "Field", "ObjectReader",
    "ObjectWriter", "Reading", "Table", "Unrepresentable", "enum", "field", "is_int", "is_num",
    "jcopy", "keep", "kept", "reorder", "same", "slot", "type_name",
]

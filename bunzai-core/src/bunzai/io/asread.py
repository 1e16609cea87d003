"""What an entity was read from, remembered in memory so that an unchanged rewrite is the file.

A same-format rewrite of a file nobody changed should give back that file, byte for byte,
whatever tool formatted it: short arrays on one line, ``\\u`` escapes, a blank line at the end,
a zip's timestamps and compression.  The layout a reader records (``passthrough``) reproduces
what bunzai's own serializer can express; this module covers the rest.  When a file is read,
core remembers, for each entity read from it, the JSON text itself (a zip archive: its JSON
members and its structure, see :mod:`bunzai.io.containers.zipsafe`).  When a writer is about to
write a JSON value equal to what that text holds, the text is written instead.

The memory is a side table keyed by the entity's identity, dropped when the entity is
garbage-collected: never serialized, never part of model equality (pydantic compares private
attributes, so they cannot hold it).  A copy of an entity (``model_copy``, a trip through
vaud-json or the studio) carries nothing and is written with the recorded layout, as before.
Nothing here can change what is written: the remembered text is used only where it holds the
very value the writer produced.
"""

from __future__ import annotations

import weakref
from collections.abc import Iterable, Sequence
from typing import Any

from ..errors import BunzaiError
from .compare import json_equal
from .outputs import OutputFile

_TABLE: dict[int, dict[str, Any]] = {}
"""id(entity) -> {slot: what was remembered}; an entry leaves with its entity."""

FILE = "file"
"""Slot of the JSON file an entity was read from: ``(format id, text, entities read)``."""
ZIP = "zip"
"""Slot of the zip archive an entity was read from (a :class:`~bunzai.io.containers.zipsafe.
ZipSource`)."""
_REF = "\x00ref"
"""Slot holding the weak reference whose callback drops the entity's entry."""


def remember(entity: object, slot: str, value: Any) -> None:
    """Keep ``value`` for ``entity`` under ``slot`` for as long as the entity lives."""
    key = id(entity)
    slots = _TABLE.get(key)
    if slots is None:
        try:
            # the entry holds the reference, so its callback lives exactly as long as the entry
            ref = weakref.ref(entity, lambda _ref: _TABLE.pop(key, None))
        except TypeError:  # not weak-referenceable: nothing could tell when to forget it
            return
        slots = _TABLE[key] = {_REF: ref}
    slots[slot] = value


def recall(entity: object, slot: str) -> Any:
    """What was remembered for ``entity`` under ``slot``, or None."""
    slots = _TABLE.get(id(entity))
    return None if slots is None else slots.get(slot)


def shared(entities: Iterable[object], slot: str) -> Any:
    """What every one of ``entities`` remembers under ``slot`` when it is one and the same
    object (they were read from one file), else None."""
    found: Any = None
    for n, entity in enumerate(entities):
        value = recall(entity, slot)
        if value is None or (n and value is not found):
            return None
        found = value
    return found


def remember_file(entities: Iterable[object], format_id: str, text: bytes) -> None:
    """``entities`` were read, all of them, from the JSON file ``text`` as ``format_id``."""
    group = list(entities)
    record = (format_id, text, len(group))
    for entity in group:
        remember(entity, FILE, record)


def file_text(entities: Iterable[object], format_id: str) -> bytes | None:
    """The JSON text ``entities`` were read from as ``format_id``, when they are exactly the
    entities read from it (so a rewrite of them may be that file)."""
    group = list(entities)
    record = shared(group, FILE)
    if record is None or record[0] != format_id or record[2] != len(group):
        return None
    text: bytes = record[1]
    return text


def _json_start(data: bytes) -> bool:
    head = data[:64].lstrip(b"\xef\xbb\xbf \t\r\n")
    return head[:1] in (b"{", b"[")


def same_json(out: bytes, source: bytes | None) -> bytes:
    """``source`` when it holds the same JSON value as ``out`` (types told apart, object key
    order aside), else ``out``: the one rule by which a writer gives back the text a file
    was read from.  ``out`` equal to ``source`` costs one comparison, no parse."""
    if source is None or out == source:
        return out
    if not (_json_start(out) and _json_start(source)):
        return out
    from .jsonio import loads

    try:
        same = json_equal(loads(out), loads(source))
    except BunzaiError:
        return out
    return source if same else out


class _Text:
    """A remembered JSON text, parsed the first time a writer compares a value with it."""

    __slots__ = ("_parsed", "_value", "text")

    def __init__(self, text: bytes) -> None:
        self.text = text
        self._value: Any = None
        self._parsed = False

    def holds(self, value: Any) -> bool:
        """Whether the text holds ``value`` (types told apart, object key order aside)."""
        if not self._parsed:
            from .jsonio import loads

            try:
                self._value = loads(self.text)
            except BunzaiError:
                self._value = _UNREADABLE
            self._parsed = True
        return self._value is not _UNREADABLE and json_equal(value, self._value)


_UNREADABLE = object()


def remember_json(entity: object, slot: str, text: bytes) -> None:
    """Keep the JSON ``text`` a reader found for ``entity`` in a place of its own choosing
    (``slot``: a PNG chunk, a member), for :func:`json_as_read` when it is written again.
    Core already does this for a JSON file and a zip archive's JSON members."""
    remember(entity, slot, _Text(bytes(text)))


def json_as_read(entity: object, slot: str, out: bytes, value: Any = _UNREADABLE) -> bytes:
    """``out``, or the text remembered for ``entity`` under ``slot`` when it holds the same
    JSON value (see :func:`same_json`).  ``value``, the value ``out`` serializes, spares
    parsing ``out``; the remembered text is parsed once, however often it is written."""
    source = recall(entity, slot)
    if not isinstance(source, _Text):
        return same_json(out, source if isinstance(source, bytes) else None)
    if out == source.text:
        return out
    if value is _UNREADABLE:
        return same_json(out, source.text)
    if not (_json_start(out) and _json_start(source.text)):
        return out
    return source.text if source.holds(value) else out


def as_read(files: list[OutputFile], entities: Sequence[object], format_id: str) -> None:
    """A JSON file written from entities read, unchanged, from one JSON file of the same
    format becomes that file's text (whatever tool laid it out)."""
    if len(files) != 1 or files[0].streamed:
        return
    source = file_text(entities, format_id)
    if source is None:
        return
    f = files[0]
    data = same_json(f.data, source)
    if data is not f.data:
        files[0] = OutputFile(data, f.suffix, f.name)


__all__ = [
    "FILE",
    "ZIP",
    "as_read",
    "file_text",
    "json_as_read",
    "recall",
    "remember",
    "remember_file",
    "remember_json",

    "same_json",
    "shared",
]

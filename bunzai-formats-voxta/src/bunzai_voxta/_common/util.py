"""Small helpers: lenient field converters, key order, dates and ids.

Voxta's fields are read through field tables (:mod:`bunzai.sdk.fields`) with *lenient*
converters: a number where text belongs is read as its text, a list's stray items are skipped,
an unreadable date reads as none, each with a warning, and the original value is kept as layout
(the table's ``raw`` record), so a same-format rewrite gives it back while the canonical value is
unchanged and an edit wins.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import Any

from bunzai.sdk.chats import iso_seconds
from bunzai.sdk.fields import Conv, type_name

from .macros import examples_to_voxta, to_card, to_voxta

ABSENT: Any = object()
"""Marks a key the source did not have (restored by leaving the key out)."""


def digest(value: Any) -> str:
    """A short, stable fingerprint of a JSON-able value (pydantic models are dumped first)."""
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        value = dump(mode="json")
    raw = json.dumps(value, sort_keys=True, ensure_ascii=False, default=repr,
                     separators=(",", ":"))
    return hashlib.sha1(raw.encode("utf-8", "surrogatepass")).hexdigest()[:16]


def put(obj: dict[str, Any], key: str, value: Any) -> None:
    """Set ``obj[key]`` unless ``value`` is :data:`ABSENT`."""
    if value is not ABSENT:
        obj[key] = value


def ordered(obj: dict[str, Any], order: Sequence[str] | None,
            reference: Sequence[str] = ()) -> dict[str, Any]:
    """``obj`` with its keys in the source's ``order``; a key the source did not have goes where
    ``reference`` (the server's own order) puts it, else at the end."""
    keys = [k for k in (order or reference) if k in obj]
    placed = set(keys)
    rank = {k: i for i, k in enumerate(reference)}
    for key in obj:
        if key in placed:
            continue
        pos = len(keys)
        if key in rank:
            later = [i for i, k in enumerate(keys) if rank.get(k, -1) > rank[key]]
            if later:
                pos = later[0]
        keys.insert(pos, key)
        placed.add(key)
    return {k: obj[k] for k in keys}


# -- lenient converters ------------------------------------------------------------------------


def as_text(value: Any) -> str:
    """A text as Voxta's fields are read: absence and null are ``""``, a number or boolean its
    text, anything else ``""``."""
    if value is None or isinstance(value, str):
        return value or ""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int | float):
        return str(value)
    return ""


def text_notes(key: str, raw: Any, value: Any) -> Sequence[tuple[str, str]]:
    """What :func:`as_text` tells the reader about ``raw``."""
    if raw is None or isinstance(raw, str):
        return ()
    if isinstance(raw, bool | int | float):
        return (("", f"{key} is {type_name(raw)}, not a string; read as text"),)
    return (("", f"{key} is {type_name(raw)}, not a string; ignored (kept for a Voxta rewrite)"),)


def as_texts(value: Any) -> list[str]:
    """A list of strings: other items are skipped, a lone string is one item."""
    if value is None:
        return []
    if isinstance(value, str):
        return [value] if value else []
    if not isinstance(value, Sequence):
        return []
    return [item for item in value if isinstance(item, str)]


def texts_notes(key: str, raw: Any, value: Any) -> Sequence[tuple[str, str]]:
    """What :func:`as_texts` tells the reader about ``raw``."""
    if raw is None:
        return ()
    if isinstance(raw, str):
        return (("", f"{key} is a string, not an array; read as one item"),)
    if not isinstance(raw, Sequence):
        return (("", f"{key} is {type_name(raw)}, not an array; ignored (kept for a Voxta "
                     "rewrite)"),)
    return tuple((f"[{i}]", f"{type_name(item)} where text belongs; skipped (kept for a Voxta "
                  "rewrite)") for i, item in enumerate(raw) if not isinstance(item, str))


def _plain(x: Any) -> bool:
    return type(x) is str and "{" not in x and "<" not in x


def _all_str(x: Any) -> bool:
    return type(x) is list and all(type(i) is str for i in x)


PLAIN = Conv("text", as_text, exact=lambda x: type(x) is str, notes=text_notes)
"""Text written as it is (names, the creator, notes, the version)."""
TEXT = Conv("text", lambda x: to_card(as_text(x)), to_voxta, _plain, notes=text_notes)
"""Text with macros: Voxta's ``{{ char }}`` is the card's ``{{char}}``."""
EXAMPLES = Conv("example dialogue", lambda x: to_card(as_text(x)), examples_to_voxta, _plain,
                notes=text_notes)
"""Example dialogue: ``<START>`` blocks are written as blank-line separated blocks."""
TEXTS = Conv("list of text", as_texts, list, _all_str, notes=texts_notes)
MACRO_TEXTS = Conv("list of text", lambda x: [to_card(v) for v in as_texts(x)],
                   lambda vs: [to_voxta(v) for v in vs],
                   lambda x: type(x) is list and all(_plain(i) for i in x), notes=texts_notes)


# -- dates -------------------------------------------------------------------------------------


def parse_time(value: Any) -> int | None:
    """Unix seconds of a Voxta date, or None (also for .NET's year-1 default, which means none)."""
    seconds = iso_seconds(value)
    return seconds if seconds is not None and seconds >= 0 else None


def format_time(seconds: int) -> str:
    """``seconds`` as System.Text.Json writes a whole-second UTC date (``…T…:…:…+00:00``)."""
    try:
        moment = datetime.fromtimestamp(seconds, UTC)
    except (OverflowError, OSError, ValueError):
        moment = datetime(1970, 1, 1, tzinfo=UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S+00:00")


def _date_notes(key: str, raw: Any, value: Any) -> Sequence[tuple[str, str]]:
    return () if value is not None else (("", f"{key} {raw!r} is not a date bunzai can read; "
                                               "kept as it is"),)


DATE = Conv("date", parse_time, format_time, notes=_date_notes)


# -- ids -------------------------------------------------------------------------------------------


def new_id() -> str:
    """A fresh Voxta resource id (a random UUID, as the server assigns them)."""
    return str(uuid.uuid4())

"""Small helpers: guarded raw values, key order, dates, ids and type-tolerant field access.

A *guard* keeps a same-format rewrite byte-faithful without freezing the entity: when a raw value
would not come back unchanged from ``write(read(raw))`` (``{{char}}`` where Voxta writes
``{{ char }}``, a date with seven fractional digits, a number where text belongs), the raw value is
kept as layout (passthrough) with a fingerprint of the canonical value read from it.  The writer
restores the raw value only while the canonical value still has that fingerprint; an edit wins.
"""

from __future__ import annotations

import hashlib
import json
import uuid
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

from bunzai.sdk import Issue
from bunzai.sdk.chats import iso_seconds
from bunzai.sdk.fields import type_name

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


def same(a: Any, b: Any) -> bool:
    """JSON equality that also tells ``1`` from ``1.0`` and ``true`` from ``1``."""
    if a is ABSENT or b is ABSENT:
        return a is b
    return type(a) is type(b) and digest(a) == digest(b)


def guard(store: dict[str, Any], key: str, raw: Any, canon: Any, rebuilt: Any) -> None:
    """Remember ``raw`` under ``key`` when rebuilding it from ``canon`` gives something else."""
    if raw is ABSENT:
        if rebuilt is not ABSENT:
            store[key] = {"absent": True, "was": digest(canon)}
        return
    if rebuilt is ABSENT or not same(rebuilt, raw):
        store[key] = {"raw": raw, "was": digest(canon)}


def lookup(store: Mapping[str, Any] | None, key: str, canon: Any) -> tuple[bool, Any]:
    """(True, raw) when ``key`` is guarded and ``canon`` is unchanged since reading."""
    g = store.get(key) if isinstance(store, Mapping) else None
    if isinstance(g, Mapping) and g.get("was") == digest(canon):
        return True, ABSENT if g.get("absent") else g.get("raw")
    return False, None


def restore(store: Mapping[str, Any] | None, key: str, canon: Any, rebuilt: Any) -> Any:
    """The raw value guarded under ``key`` if ``canon`` is unchanged, else ``rebuilt``."""
    hit, raw = lookup(store, key, canon)
    return raw if hit else rebuilt


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


# -- tolerant field access ---------------------------------------------------------------------


def text_field(obj: Mapping[str, Any], key: str, where: str, warnings: list[Issue]) -> str:
    """A string field: absence and null read as ``""``, numbers as their text (with a warning)."""
    value = obj.get(key)
    if value is None or isinstance(value, str):
        return value or ""
    if isinstance(value, bool | int | float):
        warnings.append(Issue(f"{where}.{key}", f"{key} is {type_name(value)}, not a string; "
                              "read as text"))
        return str(value).lower() if isinstance(value, bool) else str(value)
    warnings.append(Issue(f"{where}.{key}", f"{key} is {type_name(value)}, not a string; "
                          "ignored (kept for a Voxta rewrite)"))
    return ""


def text_list(obj: Mapping[str, Any], key: str, where: str, warnings: list[Issue]) -> list[str]:
    """A list of strings: other items are skipped (with a warning), a lone string is one item."""
    value = obj.get(key)
    if value is None:
        return []
    if isinstance(value, str):
        warnings.append(Issue(f"{where}.{key}", f"{key} is a string, not an array; read as one "
                              "item"))
        return [value] if value else []
    if not isinstance(value, Sequence):
        warnings.append(Issue(f"{where}.{key}", f"{key} is {type_name(value)}, not an "
                              "array; ignored (kept for a Voxta rewrite)"))
        return []
    out: list[str] = []
    for i, item in enumerate(value):
        if isinstance(item, str):
            out.append(item)
        else:
            warnings.append(Issue(f"{where}.{key}[{i}]", f"{type_name(item)} where text "
                                  "belongs; skipped (kept for a Voxta rewrite)"))
    return out


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


# -- ids -------------------------------------------------------------------------------------------


def new_id() -> str:
    """A fresh Voxta resource id (a random UUID, as the server assigns them)."""
    return str(uuid.uuid4())

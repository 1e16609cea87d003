"""Small helpers: guarded raw values, timestamps and type-tolerant field access.

A *guard* is how both Backyard adapters stay byte-faithful without freezing the card: when a raw
value does not come back unchanged from ``write(read(raw))`` (odd macro spelling, a number where a
string belongs, a missing key), the raw value is kept in passthrough together with a digest of the
canonical value it produced.  The writer restores the raw value only while the canonical value is
still the same; once a user edits the field, the edit wins.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from datetime import UTC, datetime
from typing import Any

import orjson

from bunzai.types import Issue

ABSENT: Any = object()
"""Marks a key that the source did not have (restored by leaving the key out)."""

_ABSENT_TAG = {"absent": True}


def digest(value: Any) -> str:
    """A short, stable fingerprint of a JSON-able value (pydantic models are dumped first)."""
    dump = getattr(value, "model_dump", None)
    if callable(dump):
        value = dump(mode="json")
    try:
        raw = orjson.dumps(value, option=orjson.OPT_SORT_KEYS | orjson.OPT_NON_STR_KEYS)
    except TypeError:  # integers beyond 64 bits are valid JSON that orjson cannot encode
        raw = json.dumps(value, sort_keys=True, ensure_ascii=False, default=repr).encode(
            "utf-8", "surrogatepass")
    return hashlib.sha1(raw).hexdigest()[:16]


def guard(store: dict[str, Any], key: str, raw: Any, canon: Any, rebuilt: Any) -> None:
    """Remember ``raw`` under ``key`` when rebuilding it from ``canon`` gives something else."""
    if raw is ABSENT:
        if rebuilt is not ABSENT:
            store[key] = {**_ABSENT_TAG, "was": digest(canon)}
        return
    if rebuilt is ABSENT or not same(rebuilt, raw):
        store[key] = {"raw": raw, "was": digest(canon)}


def same(a: Any, b: Any) -> bool:
    """JSON equality that also tells ``1`` from ``1.0`` and ``true`` from ``1``."""
    if a is ABSENT or b is ABSENT:
        return a is b
    return digest(a) == digest(b)


def lookup(store: Mapping[str, Any] | None, key: str, canon: Any) -> tuple[bool, Any]:
    """(True, raw) when ``key`` is guarded and ``canon`` is unchanged since reading."""
    g = store.get(key) if store else None
    if isinstance(g, Mapping) and g.get("was") == digest(canon):
        return True, ABSENT if g.get("absent") else g.get("raw")
    return False, None


def restore(store: Mapping[str, Any] | None, key: str, canon: Any, rebuilt: Any) -> Any:
    """The raw value guarded under ``key`` if ``canon`` is unchanged, else ``rebuilt``."""
    hit, raw = lookup(store, key, canon)
    return raw if hit else rebuilt


def ordered(obj: dict[str, Any], order: Sequence[str] | None) -> dict[str, Any]:
    """``obj`` with keys in the source's order (known keys first, new ones after)."""
    if not order:
        return obj
    out = {k: obj[k] for k in order if k in obj}
    out.update((k, v) for k, v in obj.items() if k not in out)
    return out


def put(obj: dict[str, Any], key: str, value: Any) -> None:
    """Set ``obj[key]`` unless ``value`` is :data:`ABSENT`."""
    if value is not ABSENT:
        obj[key] = value


# -- tolerant field access ---------------------------------------------------------------------


def text_field(obj: Mapping[str, Any], key: str, where: str, warnings: list[Issue]) -> str:
    """A string field, tolerating absence (``""``) and scalars (stringified, with a warning)."""
    value = obj.get(key)
    if value is None or isinstance(value, str):
        return value or ""
    if isinstance(value, bool | int | float):
        warnings.append(Issue(f"{where}.{key}", f"{key} is a {type(value).__name__}, "
                              "not a string; read as text"))
        return str(value).lower() if isinstance(value, bool) else str(value)
    warnings.append(Issue(f"{where}.{key}", f"{key} is a {type(value).__name__}, not a "
                          "string; ignored (kept for a Backyard round trip)"))
    return ""


def bool_field(obj: Mapping[str, Any], key: str, where: str, warnings: list[Issue]) -> bool:
    value = obj.get(key)
    if value is None or isinstance(value, bool):
        return bool(value)
    warnings.append(Issue(f"{where}.{key}", f"{key} is a {type(value).__name__}, not a boolean"))
    if isinstance(value, str):
        return value.strip().lower() == "true"
    return bool(value) if isinstance(value, int | float) else False


def type_name(value: Any) -> str:
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, Mapping):
        return "object"
    if isinstance(value, Sequence):
        return "array"
    return type(value).__name__


# -- timestamps --------------------------------------------------------------------------------

_ISO_Z = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$")


def parse_time(value: Any) -> int | None:
    """Unix seconds of an ISO-8601 timestamp (Backyard writes ``…T…:…:….mmmZ``), or None."""
    if not isinstance(value, str) or not value:
        return None
    text = value.strip()
    if text.endswith(("z", "Z")):
        text = text[:-1] + "+00:00"
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    try:
        return int(moment.timestamp())
    except (OverflowError, OSError, ValueError):
        return None


def format_time(seconds: int | None) -> str:
    """``seconds`` (or now) as the UTC ``Z`` form with milliseconds that Backyard writes."""
    if seconds is None:
        moment = datetime.now(UTC)
    else:
        try:
            moment = datetime.fromtimestamp(seconds, UTC)
        except (OverflowError, OSError, ValueError):
            moment = datetime(1970, 1, 1, tzinfo=UTC)
    return moment.strftime("%Y-%m-%dT%H:%M:%S.") + f"{moment.microsecond // 1000:03d}Z"


def is_z_time(value: Any) -> bool:
    """Whether ``value`` is a UTC ``Z`` timestamp (what the byaf library's validator accepts)."""
    return isinstance(value, str) and _ISO_Z.match(value) is not None



# -- identifiers -------------------------------------------------------------------------------

_UNSAFE = re.compile(r"[^A-Za-z0-9_-]+")


def slug(text: str, fallback: str) -> str:
    """A folder-safe id (``[A-Za-z0-9_-]``) from a display name."""
    out = _UNSAFE.sub("-", text).strip("-_")[:48]
    return out or fallback


def stable_id(*parts: str) -> str:
    """A deterministic cuid-shaped id (``c`` + 24 base-36 characters) for new Backyard records.

    Deterministic so that converting the same card twice gives the same bytes.
    """
    number = int.from_bytes(hashlib.sha256("\x00".join(parts).encode("utf-8")).digest(), "big")
    alphabet = "0123456789abcdefghijklmnopqrstuvwxyz"
    chars = []
    for _ in range(24):
        number, rem = divmod(number, 36)
        chars.append(alphabet[rem])
    return "c" + "".join(chars)

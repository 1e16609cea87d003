"""Small helpers both Backyard formats share: timestamps, key order and new ids."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import Any

ABSENT: Any = object()
"""A key the source did not have (written by leaving the key out)."""


def put(obj: dict[str, Any], key: str, value: Any) -> None:
    """Set ``obj[key]`` unless ``value`` is :data:`ABSENT`."""
    if value is not ABSENT:
        obj[key] = value



def record(layout: Mapping[str, Any] | None, key: str) -> dict[str, Any] | None:
    """``layout[key]`` when it is an object (a passthrough record may have been edited)."""
    value = layout.get(key) if isinstance(layout, Mapping) else None
    return value if isinstance(value, dict) else None


def records(layout: Mapping[str, Any] | None, key: str) -> list[dict[str, Any]]:
    """The objects of ``layout[key]`` when it is a list."""
    value = layout.get(key) if isinstance(layout, Mapping) else None
    return [r for r in value if isinstance(r, dict)] if isinstance(value, list) else []


# -- timestamps --------------------------------------------------------------------------------

_ISO_Z = re.compile(r"^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,9})?Z$")


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


def now_seconds() -> int:
    return int(datetime.now(UTC).timestamp())


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

"""Writer options as they arrive from the command line (``-O jpeg=true``) or from Python."""

from __future__ import annotations

from typing import Any

from bunzai.errors import UsageError


def flag(value: Any, name: str) -> bool | None:
    """A yes/no option: None when not given."""
    if value is None or isinstance(value, bool):
        return value
    text = str(value).strip().lower()
    if text in ("1", "true", "yes", "on"):
        return True
    if text in ("0", "false", "no", "off"):
        return False
    raise UsageError(f"option {name} takes true or false, not {value!r}")

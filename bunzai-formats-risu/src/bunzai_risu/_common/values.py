"""Tolerant typed access to untrusted RisuAI JSON.

RisuAI's own code is lenient (it coerces with ``String()``/``Number()`` in many places), and
hand-edited exports put numbers where strings belong.  A wrong type becomes the nearest sensible
value plus a warning with the JSON path, never a crash and never a silent change.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any

from bunzai.types import Issue


class Notes:
    """Collects warnings while a reader walks a document."""

    def __init__(self) -> None:
        self.warnings: list[Issue] = []

    def warn(self, path: str, message: str) -> None:
        self.warnings.append(Issue(path, message, "warning"))

    def text(self, obj: Mapping[str, Any], key: str, path: str, default: str = "") -> str:
        v = obj.get(key)
        if v is None:
            return default
        if isinstance(v, str):
            return v
        if isinstance(v, bool | int | float):
            self.warn(f"{path}.{key}", f"expected a string, got {type(v).__name__} {v!r}")
            return str(v).lower() if isinstance(v, bool) else str(v)
        self.warn(f"{path}.{key}", f"expected a string, got {type(v).__name__}; ignored")
        return default

    def opt_text(self, obj: Mapping[str, Any], key: str, path: str) -> str | None:
        return self.text(obj, key, path) if obj.get(key) is not None else None

    def flag(self, obj: Mapping[str, Any], key: str, path: str) -> bool | None:
        v = obj.get(key)
        if v is None or isinstance(v, bool):
            return v
        if v in (0, 1) and isinstance(v, int):
            self.warn(f"{path}.{key}", f"expected true/false, got {v}")
            return bool(v)
        if isinstance(v, str) and v.strip().lower() in ("true", "false"):
            self.warn(f"{path}.{key}", f"expected true/false, got the string {v!r}")
            return v.strip().lower() == "true"
        self.warn(f"{path}.{key}", f"expected true/false, got {type(v).__name__}; ignored")
        return None

    def number(self, obj: Mapping[str, Any], key: str, path: str) -> int | float | None:
        v = obj.get(key)
        if v is None:
            return None
        if isinstance(v, int | float) and not isinstance(v, bool):
            return v
        if isinstance(v, str):
            try:
                f = float(v.strip())
            except ValueError:
                f = math.nan
            if math.isfinite(f):
                self.warn(f"{path}.{key}", f"expected a number, got the string {v!r}")
                return int(f) if f.is_integer() else f
        self.warn(f"{path}.{key}", f"expected a number, got {type(v).__name__} {v!r}; ignored")
        return None

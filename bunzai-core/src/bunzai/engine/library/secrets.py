"""Which values of SillyTavern's settings (or of a preset saved with them) are secrets: the
library scan names them, a move empties them.  Kept apart so that every step can ask without
importing the scan."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

_SECRET_WORDS = ("apikey", "api_key", "password", "secret", "token_key", "_auth", "cookie",
                 "reverse_proxy")
"""Keys holding a secret (a proxy URL can embed credentials); a ``…_mode`` key holds a choice
(``vertexai_auth_mode``), never one."""


def secret_keys(settings: Mapping[str, Any]) -> list[str]:
    """Paths of the values of settings.json (or of a preset's settings) that hold a secret (an
    API key, a password, a proxy with credentials): named in the report, never copied."""
    found: list[str] = []

    def walk(value: Any, path: str) -> None:
        if isinstance(value, Mapping):
            for k, v in value.items():
                walk(v, f"{path}.{k}" if path else str(k))
        elif isinstance(value, list):
            for i, v in enumerate(value):
                walk(v, f"{path}[{i}]")
        elif isinstance(value, str) and value.strip() and value != "None":
            low = path.rsplit(".", 1)[-1].lower()
            if any(w in low for w in _SECRET_WORDS) and not low.endswith("_mode"):
                found.append(path)

    walk(settings, "")
    return found

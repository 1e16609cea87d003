"""What the Voxta adapters declare at import (import-light: detection imports them)."""

from __future__ import annotations

from typing import Any

BOOK_NEUTRAL: dict[str, Any] = {"ExplicitContent": False}
"""Book settings that ask nothing of an app (declared neutral by both adapters)."""

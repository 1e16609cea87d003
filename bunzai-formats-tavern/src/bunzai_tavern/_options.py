"""Writer options shared by the SillyTavern-family JSON writers."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bunzai.errors import UsageError


def indent_option(options: Mapping[str, Any], default: int = 4) -> int | None:
    """``indent`` as ``jsonio.dumps`` wants it: 4 or 2 spaces, or ``None`` for compact (0)."""
    raw = options.get("indent", default)
    try:
        n = int(raw)
    except (TypeError, ValueError):
        raise UsageError(f"indent must be 0, 2 or 4, not {raw!r}") from None
    if n not in (0, 2, 4):
        raise UsageError(f"indent must be 0, 2 or 4, not {raw!r}")
    return n or None


def truthy(value: Any) -> bool:
    """A boolean option given as text on the command line (``--opt split=true``)."""
    if isinstance(value, bool):
        return value
    return str(value).strip().lower() in ("1", "true", "yes", "on")


def sniff_layout(data: bytes, default_indent: int = 4) -> dict[str, Any]:
    """How the source JSON was laid out (indent width, final newline), when it differs from
    what the writer does by default; kept so a round trip diffs cleanly against the source."""
    stripped = data[:4096].lstrip(b"\xef\xbb\xbf").lstrip()
    if stripped[:1] not in (b"{", b"["):
        return {}
    indent: int | None = default_indent
    nl = stripped.find(b"\n")
    if nl == -1 or len(stripped[:nl].strip()) > 1:
        indent = None  # the first line holds more than the bracket: compact JSON
    else:
        line = stripped[nl + 1:].split(b"\n", 1)[0]
        width = len(line) - len(line.lstrip(b" "))
        indent = width if width in (2, 4) else default_indent
    out: dict[str, Any] = {}
    if indent != default_indent:
        out["indent"] = 0 if indent is None else indent
    if data.endswith(b"\n"):
        out["newline"] = True
    return out


def layout_of(options: Mapping[str, Any], recorded: Any, default: int = 4) -> tuple[int | None,
                                                                                   bool]:
    """(indent, final newline) for a writer: an explicit option wins, then the source's."""
    rec = recorded if isinstance(recorded, Mapping) else {}
    if "indent" in options:
        return indent_option(options, default), bool(rec.get("newline"))
    indent = rec.get("indent", default)
    return (indent_option({"indent": indent}, default), bool(rec.get("newline")))

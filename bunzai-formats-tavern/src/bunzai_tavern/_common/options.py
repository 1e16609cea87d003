"""Writer options shared by the SillyTavern-family JSON writers."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from bunzai.sdk import Option


def indent_option(default: int, help: str) -> Option:
    """The ``indent`` writer option of a SillyTavern-family JSON writer (0 is compact)."""
    return Option("indent", int, choices=(0, 2, 4), default=f"as read, else {default}",
                  help=help, layout=True)


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
    indent = options["indent"] if "indent" in options else rec.get("indent", default)
    return (int(indent) or None), bool(rec.get("newline"))

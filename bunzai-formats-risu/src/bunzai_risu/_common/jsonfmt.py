"""How a JSON file was laid out, so a same-format write reproduces it.

RisuAI writes its exports compact, cards 4-space indented, ``.risum`` main blocks 2-space; files
kept in repositories are often re-indented by hand.  The layout is recorded on read and reused.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from bunzai.sdk import dumps

_INDENT = re.compile(rb"\s*[\[{][ \t]*\r?\n([ \t]+)\S")


def layout(data: bytes) -> dict[str, Any]:
    """``{"indent": n|None, "newline": bool}`` of a JSON document's bytes."""
    m = _INDENT.match(data[:4096])
    indent = len(m.group(1)) if m and b"\t" not in m.group(1) else None
    return {"indent": indent, "newline": data.endswith(b"\n")}


def dump(obj: Any, fmt: Mapping[str, Any] | None, default_indent: int | None = None) -> bytes:
    """``obj`` as JSON in the recorded layout (or the format's default)."""
    indent = fmt.get("indent", default_indent) if fmt else default_indent
    out = dumps(obj, indent=indent if isinstance(indent, int) else None)
    if fmt and fmt.get("newline"):
        out += b"\n"
    return out

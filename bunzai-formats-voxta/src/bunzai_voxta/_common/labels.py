"""Origin-labeler evidence in Voxta packages: the Voxta server's exports, and the exports of
Character Foundry's Voxta writer (which Card Architect uses for its own Voxta export).

The server writes the zip comment ``Voxta Package``, compact JSON with .NET escapes and
``$type`` first / ``Id`` last.  Character Foundry writes ``JSON.stringify(…, null, 2)``, puts
``Id`` right after ``$type`` and sets no comment.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

from bunzai.sdk import LabelRule

_RESOURCE = re.compile(r"^(Characters|Books|Scenarios|Collections)/[^/]+/"
                       r"(character|book|scenario|collection)\.json$")


def _members(input: Any) -> list[tuple[str, bytes, Mapping[str, Any]]]:
    """(name, raw bytes, parsed object) of the package's resource JSON members."""
    try:
        z = input.zip
        if z is None:
            return []
        out = []
        for name in z.names():
            if name == "package.json" or _RESOURCE.match(name):
                value = input.zip_json(name)
                if isinstance(value, Mapping):
                    out.append((name, z.read(name), value))
        return out
    except Exception:  # evidence gathering never breaks labeling
        return []


def _comment(input: Any) -> str | None:
    from .package import zip_comment

    try:
        z = input.zip
        return zip_comment(z) if z is not None else None
    except Exception:
        return None


def _server(input: Any, entities: Sequence[Any]) -> list[str]:
    from .jsonfmt import DOTNET, style_of
    from .package import COMMENT

    members = _members(input)
    if not members:
        return []
    out = []
    if _comment(input) == COMMENT:
        out.append(f"zip comment {COMMENT!r} (the Voxta server's package writer)")
    if all(style_of(raw, _thawed(value)) == DOTNET for _, raw, value in members):
        escaped = any(b"\\u00" in raw for _, raw, _ in members)
        out.append("compact JSON as .NET's System.Text.Json writes it"
                   + (" (\\u0027-style escapes)" if escaped else ""))
    keys = [list(value) for _, _, value in members if value.get("$type")]
    if keys and all(k[0] == "$type" and k[-1] == "Id" for k in keys):
        out.append("$type first and Id last in every resource (the server's key order)")
    return out if len(out) >= 2 else []


def _foundry(input: Any, entities: Sequence[Any]) -> list[str]:
    from .jsonfmt import JS_INDENT, style_of

    members = _members(input)
    if not members or _comment(input):
        return []
    if not all(style_of(raw, _thawed(value)) == JS_INDENT for _, raw, value in members):
        return []
    out = ["JSON indented with two spaces, as JSON.stringify writes it, and no zip comment "
           "(@character-foundry/voxta's writer; Card Architect exports Voxta through it)"]
    chars = [v for n, _, v in members if n.startswith("Characters/")]
    if chars and all(list(v)[:2] == ["$type", "Id"] for v in chars):
        out.append("character.json starts with $type then Id (Character Foundry's key order)")
    return out


def _thawed(value: Any) -> Any:
    from bunzai.sdk import thaw

    return thaw(value)


def rules() -> list[LabelRule]:
    return [
        LabelRule("Voxta", 0.9, _server, "origin", "voxta-server-package"),
        LabelRule("Character Foundry", 0.8, _foundry, "last_writer", "character-foundry-voxpkg"),
    ]

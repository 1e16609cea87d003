"""How a written file differs from the file it was read from, beyond the keys a spec-following
writer adds: JSON, JSON Lines, PNG chunks and zip members compared (``tests/rewrites.py`` and
the round-trip checks use it)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

import pytest

from ..errors import BunzaiError
from . import diff_paths

if TYPE_CHECKING:
    from ..io.input import AdapterInput


# -- comparing files -----------------------------------------------------------------------------


def _json_differences(a: Any, b: Any, completed: tuple[str, ...]) -> list[str]:
    """Paths where two JSON documents differ, leaving out keys the writer may add (a spec's
    required keys the source lacked): only where the original has no such key."""
    from ..loss.neutral import pattern_of

    out = []
    for path in diff_paths(a, b):
        if completed and pattern_of(path) in completed and _absent_in(a, path):
            continue
        out.append(path)
    return out


def _absent_in(doc: Any, path: str) -> bool:
    import re

    parts = re.findall(r"([^.\[\]]+)|\[(\d+)\]", path)
    cur = doc
    for i, (name, index) in enumerate(parts):
        last = i == len(parts) - 1
        if index:
            if not isinstance(cur, list) or int(index) >= len(cur):
                return False
            cur = cur[int(index)]
        else:
            if not isinstance(cur, dict):
                return False
            if name not in cur:
                return last
            cur = cur[name]
    return False


def rewrite_problems(original: AdapterInput, written: AdapterInput,
                     completed: Sequence[str] = ()) -> list[str]:
    """Where a same-format rewrite differs from the file it was read from, beyond keys the
    writer may add where the file lacked them (``completed`` JSON paths, the spec's required
    keys).  A rewrite that adds none must be the file byte for byte: core gives back the text
    of an unchanged JSON document and the bytes of an unchanged zip archive, whatever tool
    laid them out (:mod:`bunzai.io.asread`)."""
    if original.data == written.data:
        return []
    problems = _file_differences(original, written, tuple(completed))
    if problems:
        return problems
    if completed and _file_differences(original, written, ()):
        return []  # keys were completed: the text cannot be the file's
    return [f"the same content in other bytes ({original.size:,} -> {written.size:,}): the "
            "file's layout was not kept"]


def _file_differences(original: AdapterInput, written: AdapterInput,
                      completed: tuple[str, ...] = ()) -> list[str]:
    from ..io.frozen import thaw

    if original.container != written.container:
        return [f"container changed from {original.container} to {written.container}"]
    if original.container == "json":
        if original.json is None or written.json is None:
            return ["the JSON could not be parsed"]
        return [f"JSON differs at {p}" for p in _json_differences(
            thaw(original.json), thaw(written.json), completed)]
    if original.container in ("png", "apng"):
        return _png_differences(original, written, completed)
    if original.container in ("zip", "jpeg+zip"):
        return _zip_differences(original, written, completed)
    if original.container in ("jsonl", "text"):
        return _line_differences(original, written)
    pytest.skip(f"no file-level comparison for {original.container} files; the entity-level "
                "round trip covers them")


def _line_differences(original: AdapterInput, written: AdapterInput) -> list[str]:
    """JSON Lines and text are compared byte for byte: a same-format rewrite is the file."""
    a, b = list(original.lines()), list(written.lines())
    for i, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            return [f"line {i + 1} differs: {x[:80]!r} -> {y[:80]!r}"]
    if len(a) != len(b):
        return [f"{len(a)} lines became {len(b)}"]
    return []


def _png_differences(original: AdapterInput, written: AdapterInput,
                     completed: tuple[str, ...] = ()) -> list[str]:
    from ..io.containers.png import TEXT_CHUNK_TYPES
    from ..io.frozen import thaw

    a, b = original.png, written.png
    if a is None or b is None:
        return ["the PNG could not be parsed"]

    def binary(png: Any) -> list[bytes]:
        return [bytes(c.raw) for c in png.chunks if c.type not in TEXT_CHUNK_TYPES]

    problems = []
    if binary(a) != binary(b):
        problems.append("non-text chunks (image data, metadata) are not byte-identical: "
                        f"{[c.type for c in a.chunks]} -> {[c.type for c in b.chunks]}")
    keys_a = sorted(t.keyword for t in a.text_chunks())
    keys_b = sorted(t.keyword for t in b.text_chunks())
    if keys_a != keys_b:
        problems.append(f"text chunks changed from {keys_a} to {keys_b}")
        return problems
    for key in sorted(set(keys_a)):
        va = [p.value for p in original.png_json(key)]
        vb = [p.value for p in written.png_json(key)]
        if any(v is None for v in va + vb):
            ta = [t.value_bytes() for t in a.find_text(key)]
            tb = [t.value_bytes() for t in b.find_text(key)]
            if ta != tb:
                problems.append(f"text chunk {key!r} changed")
            continue
        for x, y in zip(va, vb, strict=False):
            problems += [f"chunk {key!r} JSON differs at {p}"
                         for p in _json_differences(thaw(x), thaw(y), completed)]
    return problems


def _zip_differences(original: AdapterInput, written: AdapterInput,
                     completed: tuple[str, ...] = ()) -> list[str]:
    from ..io.jsonio import loads

    a, b = original.zip, written.zip
    if a is None or b is None:
        return ["the zip could not be opened"]
    if sorted(a.names()) != sorted(b.names()):
        return [f"members changed: {sorted(set(a.names()) ^ set(b.names()))}"]
    problems = []
    for name in a.names():
        if name.endswith("/"):
            continue
        x, y = a.read(name), b.read(name)
        if x == y:
            continue
        if name.lower().endswith(".json"):
            try:
                problems += [f"{name}: JSON differs at {p}"
                             for p in _json_differences(loads(x), loads(y), completed)]
            except BunzaiError:
                problems.append(f"{name}: differs")
        else:
            problems.append(f"{name}: bytes differ ({len(x)} -> {len(y)})")
    return problems

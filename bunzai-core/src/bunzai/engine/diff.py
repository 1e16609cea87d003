"""Semantic diff of two entities of the same kind, whatever formats they came from.

Fields are compared by canonical path; lorebook entries are matched by id, then by keys, so a
reordered book is not reported as rewritten; assets are compared by the hash of their bytes.
Format-specific passthrough is not compared, and a key one side leaves out while the other
gives it a neutral value (``false``, ``""``, a default) is not a change: two files that say the
same thing are equal, by the same rules the loss report uses.
"""

from __future__ import annotations

import difflib
import hashlib
import json
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel

from ..errors import UsageError
from ..host.registry import get_registry
from ..io.input import Source
from ..loss.neutral import Neutrality, pattern_of
from .reading import Outcome, Reading, read_file

if TYPE_CHECKING:
    from ..host.registry import Registry

_SKIP = {"passthrough", "schema_version"}


@dataclass(frozen=True, slots=True)
class Change:
    path: str
    change: str  # changed, added, removed
    a: Any = None
    b: Any = None

    def to_dict(self, *, unified: bool = False) -> dict[str, Any]:
        """Old (``a``) and new (``b``) values whole; with ``unified``, a long text field's
        line-by-line diff too."""
        out = {"path": self.path, "change": self.change, "a": self.a, "b": self.b}
        if unified and self.long_text:
            out["unified"] = self.unified()
        return out

    @property
    def long_text(self) -> bool:
        """Text too long to read side by side: over a line, or over :data:`SHORT` characters."""
        texts = [v for v in (self.a, self.b) if v is not None]
        return bool(texts) and all(isinstance(v, str) for v in texts) and any(
            len(v) > SHORT or "\n" in v for v in texts)

    def unified(self) -> list[str]:
        """A unified diff of a text field, old to new (no header lines)."""
        old = self.a.splitlines() if isinstance(self.a, str) else []
        new = self.b.splitlines() if isinstance(self.b, str) else []
        return list(difflib.unified_diff(old, new, lineterm="", n=1))[2:]

    def line(self) -> str:
        """``changed description: "A pilot." -> "A retired pilot."`` (values shortened)."""
        if self.change == "added":
            return f"added   {self.path}: {shorten(self.b)}"
        if self.change == "removed":
            return f"removed {self.path}: {shorten(self.a)}"
        if isinstance(self.a, str) and isinstance(self.b, str):
            old, new = _around_change(self.a, self.b)
            return f"changed {self.path}: {old} -> {new}"
        return f"changed {self.path}: {shorten(self.a)} -> {shorten(self.b)}"


SHORT = 60
"""Values longer than this many characters are shortened on a line."""


def shorten(value: Any, width: int = SHORT) -> str:
    """A value as JSON on one line, cut to ``width`` characters with an ellipsis."""
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= width else text[: width - 1] + "…"


def _around_change(a: str, b: str, width: int = SHORT) -> tuple[str, str]:
    """Two long texts cut to the same window around where they first differ, so the cut
    shows the change rather than the shared beginning."""
    first = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y),
                 min(len(a), len(b)))
    start = max(0, min(first - width // 3, max(len(a), len(b)) - width))

    def cut(text: str) -> str:
        piece = text[start: start + width]
        return json.dumps(("…" if start else "") + piece
                          + ("…" if start + width < len(text) else ""), ensure_ascii=False)

    return cut(a), cut(b)


def diff_all(a: Sequence[Any], b: Sequence[Any], neutral: Neutrality | None = None
             ) -> list[Change]:
    """Every difference between the entities of two files, paired by position; paths get an
    ``[i].`` prefix when a file holds several (persona backups, regex arrays). ``neutral``
    (core's rules by default; a registry's adds its formats') says which values are defaults."""
    n = max(len(a), len(b))
    out: list[Change] = []
    for i in range(n):
        prefix = f"[{i}]." if n > 1 else ""
        if i >= len(a):
            out.append(Change(f"[{i}]", "added", None, getattr(b[i], "name", None)))
        elif i >= len(b):
            out.append(Change(f"[{i}]", "removed", getattr(a[i], "name", None), None))
        else:
            out.extend(Change(prefix + c.path, c.change, c.a, c.b)
                       for c in diff_entities(a[i], b[i], neutral))
    return out


def _plain(v: Any) -> Any:
    if isinstance(v, BaseModel):
        return v.model_dump(mode="json", exclude={"passthrough"})
    if isinstance(v, bytes):
        return f"sha256:{hashlib.sha256(v).hexdigest()}"
    if isinstance(v, list):
        return [_plain(x) for x in v]
    return v


def diff_entities(a: Any, b: Any, neutral: Neutrality | None = None) -> list[Change]:
    """Every difference between two canonical entities, by path."""
    out: list[Change] = []
    _diff(a, b, "", out)
    rules = neutral or Neutrality()
    kind = getattr(a, "kind", None)

    def default(path: str, value: Any) -> bool:
        return value is None or rules.neutral(pattern_of(path), value, kind=kind)

    return [c for c in out if not (default(c.path, c.a) and default(c.path, c.b))]


def _diff(a: Any, b: Any, path: str, out: list[Change]) -> None:
    if isinstance(a, BaseModel) and isinstance(b, BaseModel) and type(a) is type(b):
        for name in type(a).model_fields:
            if name in _SKIP:
                continue
            sub = f"{path}.{name}" if path else name
            va, vb = getattr(a, name), getattr(b, name)
            if name == "entries" and isinstance(va, list):
                _diff_entries(va, vb, sub, out)
            elif name == "assets" and isinstance(va, list):
                _diff_assets(va, vb, sub, out)
            else:
                _diff(va, vb, sub, out)
        return
    if isinstance(a, dict) and isinstance(b, dict):
        for k in sorted(set(a) | set(b), key=str):
            sub = f"{path}.{k}"
            if k not in a:
                out.append(Change(sub, "added", None, _plain(b[k])))
            elif k not in b:
                out.append(Change(sub, "removed", _plain(a[k]), None))
            else:
                _diff(a[k], b[k], sub, out)
        return
    if isinstance(a, list) and isinstance(b, list):
        for i in range(max(len(a), len(b))):
            sub = f"{path}[{i}]"
            if i >= len(a):
                out.append(Change(sub, "added", None, _plain(b[i])))
            elif i >= len(b):
                out.append(Change(sub, "removed", _plain(a[i]), None))
            else:
                _diff(a[i], b[i], sub, out)
        return
    if a is None and b is not None:
        out.append(Change(path, "added", None, _plain(b)))
    elif b is None and a is not None:
        out.append(Change(path, "removed", _plain(a), None))
    elif _plain(a) != _plain(b):
        out.append(Change(path, "changed", _plain(a), _plain(b)))


def _entry_label(e: Any, i: int) -> str:
    if e.id is not None:
        return f"[id={e.id}]"
    if e.keys:
        return f"[keys={','.join(e.keys)}]"
    return f"[{i}]"


def _diff_entries(a: list[Any], b: list[Any], path: str, out: list[Change]) -> None:
    unmatched_b = list(range(len(b)))
    for i, ea in enumerate(a):
        j = next((j for j in unmatched_b if ea.id is not None and b[j].id == ea.id), None)
        if j is None:
            j = next((j for j in unmatched_b if b[j].keys == ea.keys and ea.keys), None)
        if j is None:
            out.append(Change(f"{path}{_entry_label(ea, i)}", "removed", _plain(ea), None))
            continue
        unmatched_b.remove(j)
        _diff(ea, b[j], f"{path}{_entry_label(ea, i)}", out)
    for j in unmatched_b:
        out.append(Change(f"{path}{_entry_label(b[j], j)}", "added", None, _plain(b[j])))


def _asset_key(x: Any) -> tuple[str, str]:
    return (x.type, x.name)


def _asset_hash(x: Any) -> str | None:
    if x.data is not None:
        return hashlib.sha256(x.data).hexdigest()
    return None


def _diff_assets(a: list[Any], b: list[Any], path: str, out: list[Change]) -> None:
    bmap: dict[tuple[str, str], list[Any]] = {}
    for x in b:
        bmap.setdefault(_asset_key(x), []).append(x)
    for x in a:
        label = f"{path}[{x.type}:{x.name}]"
        candidates = bmap.get(_asset_key(x), [])
        if not candidates:
            out.append(Change(label, "removed", _asset_hash(x) or x.uri, None))
            continue
        y = candidates.pop(0)
        ha, hb = _asset_hash(x), _asset_hash(y)
        if ha != hb or (ha is None and x.uri != y.uri):
            out.append(Change(label, "changed", ha or x.uri, hb or y.uri))
    for rest in bmap.values():
        for y in rest:
            out.append(Change(f"{path}[{y.type}:{y.name}]", "added", None,
                              _asset_hash(y) or y.uri))


# -- files and folders ----------------------------------------------------------------------------



@dataclass(eq=False, repr=False)
class Difference(Outcome):
    """``bunzai diff``: two files of one kind compared field by field, whatever their formats.
    ``only`` marks a file of a folder comparison that has no counterpart on the other side."""

    other: str | None = None
    a: Reading | None = None
    b: Reading | None = None
    changes: list[Change] = field(default_factory=list)
    only: Literal["a", "b"] | None = None

    @property
    def equal(self) -> bool:
        return self.ok and self.only is None and not self.changes

    @property
    def exit_code(self) -> int:
        if self.error is not None:
            return self.error.exit_code
        return 0 if self.equal else 1

    def to_dict(self, *, unified: bool = False) -> dict[str, Any]:
        out: dict[str, Any] = {"path": self.path, "other": self.other}
        if self.a is not None and self.a.handle is not None:
            out["format"] = self.a.handle.id
            out["kind"] = self.a.kind
        if self.b is not None and self.b.handle is not None:
            out["other_format"] = self.b.handle.id
        if self.only is not None:
            out["only_in"] = self.only
        if self.ok:
            out.update({"equal": self.equal,
                        "changes": [c.to_dict(unified=unified) for c in self.changes]})
        out.update(self._error())
        return out


def diff_files(a: Source, b: Source, *, registry: Registry | None = None) -> Difference:
    """Every difference between two files of the same kind (lorebook entries matched by id or
    keys, assets by hash); format-specific data that says nothing new is not a difference."""

    reg = registry or get_registry()
    ra, rb = read_file(a, registry=reg), read_file(b, registry=reg)
    found = Difference(ra.path, other=rb.path, a=ra, b=rb)
    found.error = ra.error or rb.error
    if found.ok:
        if ra.kind != rb.kind:
            found.error = UsageError(f"cannot diff a {ra.kind} against a {rb.kind}",
                                     path=ra.path)
        else:
            found.changes = diff_all(ra.entities, rb.entities, reg.neutrality)
    ra.input = rb.input = None
    return found


def diff_folders(a: str | os.PathLike[str], b: str | os.PathLike[str], *,
                 registry: Registry | None = None) -> list[Difference]:
    """Two folders compared file by file: files pair up by their path without the suffix
    (``old/seraphina.png`` with ``new/seraphina.charx``), and a file without a counterpart is
    a difference of its own."""
    from ..io.outputs import source_stem

    def index(root: Path) -> dict[str, Path]:
        found: dict[str, Path] = {}
        for p in sorted(q for q in root.rglob("*") if q.is_file() and not q.name.startswith(".")):
            key = str(p.relative_to(root).with_name(source_stem(p.name))).casefold()
            found.setdefault(key, p)
        return found

    left, right = index(Path(a)), index(Path(b))
    out: list[Difference] = []
    for key in sorted(set(left) | set(right)):
        if key not in right:
            out.append(Difference(str(left[key]), only="a"))
        elif key not in left:
            out.append(Difference(str(right[key]), only="b"))
        else:
            out.append(diff_files(left[key], right[key], registry=registry))
    return out

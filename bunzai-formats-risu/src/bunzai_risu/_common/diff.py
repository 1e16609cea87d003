"""Where two canonical values differ, as loss-report paths (``entries[2].depth``).

Writers in this family report loss by reading back what they wrote and comparing: every field
the format could not carry shows up as a difference, so the report cannot forget one.
"""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel


def diff_paths(a: Any, b: Any, base: str = "") -> list[str]:
    """Differing paths between two models or JSON values; ``passthrough`` is skipped."""
    if isinstance(a, BaseModel) and isinstance(b, BaseModel):
        if type(a) is not type(b):
            return [base.rstrip(".") or "$"]
        out: list[str] = []
        for name in type(a).model_fields:
            if name != "passthrough":
                out += diff_paths(getattr(a, name), getattr(b, name), f"{base}{name}.")
        return out
    if isinstance(a, list) and isinstance(b, list):
        stem = base.rstrip(".")
        if len(a) != len(b):
            common = min(len(a), len(b))
            out = [p for i in range(common) for p in diff_paths(a[i], b[i], f"{stem}[{i}].")]
            return out + [f"{stem}[{i}]" for i in range(common, max(len(a), len(b)))]
        return [p for i in range(len(a)) for p in diff_paths(a[i], b[i], f"{stem}[{i}].")]
    if isinstance(a, dict) and isinstance(b, dict):
        out = []
        for k in sorted(set(a) | set(b), key=str):
            if k not in a or k not in b:
                out.append(f"{base}{k}")
            else:
                out += diff_paths(a[k], b[k], f"{base}{k}.")
        return out
    if type(a) is not type(b) or a != b:
        return [base.rstrip(".") or "$"]
    return []


def field_of(path: str) -> str:
    """The last field name of a path: ``entries[2].depth`` -> ``depth``."""
    last = path.rsplit(".", 1)[-1]
    return last.split("[", 1)[0]


def report(loss: Any, before: Any, after: Any, *, prefix: str = "",
           reasons: dict[str, str] | None = None, approximated: frozenset[str] = frozenset(),
           default: str, skip: tuple[str, ...] = ()) -> None:
    """Put every difference between ``before`` and its read-back ``after`` into ``loss``.

    ``reasons`` and ``approximated`` are keyed by field name (the last path segment); paths
    starting with one of ``skip`` were reported elsewhere.
    """
    for p in diff_paths(before, after):
        if skip and p.startswith(skip):
            continue
        name = field_of(p)
        why = (reasons or {}).get(name, default)
        if name in approximated:
            loss.approximated(f"{prefix}{p}", why)
        else:
            loss.dropped(f"{prefix}{p}", why)

"""What the RisuAI readers and writers share: reading lists of objects, and what the loss
rule calls a change (neutral values, lists of texts)."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from functools import cache
from typing import Any, TypeVar

from bunzai.sdk import Issue
from bunzai.sdk.fields import type_name

T = TypeVar("T")


def read_objects(raw: Any, path: str, warnings: list[Issue], what: tuple[str, str],
                 read_one: Callable[[Mapping[str, Any], str], T]) -> list[T]:
    """Each object of the JSON list ``raw`` read by ``read_one(item, path)``; anything but a
    list is ignored, and so is an item that is not an object, each with a warning naming
    ``what`` (plural and singular: ``("entries", "an entry")``)."""
    if not isinstance(raw, list | tuple):
        warnings.append(Issue(path, f"expected a list of {what[0]}, got {type_name(raw)}; "
                                    "ignored"))
        return []
    out = []
    for i, item in enumerate(raw):
        at = f"{path}[{i}]"
        if isinstance(item, Mapping):
            out.append(read_one(item, at))
        else:
            warnings.append(Issue(at, f"expected {what[1]} object, got {type_name(item)}; "
                                      "skipped"))
    return out


def same_texts(a: list[str], b: list[str]) -> bool:
    """Whether two lists of strings say the same, as the loss rule compares them: item by
    item, an empty string being the same as no item."""
    for i in range(max(len(a), len(b))):
        x = a[i] if i < len(a) else ""
        y = b[i] if i < len(b) else ""
        if x != y:
            return False
    return True


@cache
def neutral_values() -> Any:
    """Core's neutral values for canonical fields (what a writer never reports)."""
    from bunzai.sdk import Neutrality
    return Neutrality()

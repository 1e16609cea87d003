"""What the RisuAI formats share: the loss rule's neutral values and list comparison."""

from __future__ import annotations

from functools import cache
from typing import Any


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

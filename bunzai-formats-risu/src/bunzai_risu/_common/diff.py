"""Loss by read-back for this family: core's comparison with RisuAI's reason tables.

Writers in this family report loss by reading back what they wrote and comparing: every field
the format could not carry shows up as a difference, so the report cannot forget one.
"""

from __future__ import annotations

from typing import Any

from bunzai.compare import diff_paths, field_of, readback_losses

__all__ = ["diff_paths", "field_of", "report"]


def report(loss: Any, before: Any, after: Any, *, prefix: str = "",
           reasons: dict[str, str] | None = None, approximated: frozenset[str] = frozenset(),
           default: str, skip: tuple[str, ...] = ()) -> None:
    """Put every difference between ``before`` and its read-back ``after`` into ``loss``."""
    readback_losses(loss, before, after, default=default, prefix=prefix, reasons=reasons,
                    approximated=approximated, skip=skip, skip_covered=False)

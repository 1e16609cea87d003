"""Same-format rewrites of every routed corpus file and sample: the file, byte for byte, or a
file the writer completed.

A V2/V3 writer always writes every field its spec requires (issue 15), so the rewrite of a
card that lacks some may add them (``COMPLETED_KEYS``); anything else that differs is layout
the writer lost.  Counted with::

    .venv/bin/python -m tests.rewrites        # each rewrite that is not the file, then the count
"""

from __future__ import annotations

from pathlib import Path

from bunzai.cardspec import COMPLETED_KEYS
from bunzai.host.registry import Registry
from bunzai.io.input import as_input
from bunzai.testing.kit import rewrite_problems

from .corpus_routes import REWRITE_OPTIONS
from .routing import is_read_only_shape, is_unreadable, routed_files


def rewrite_cases(reg: Registry) -> list[tuple[Path, str]]:
    """(file, format) for every routed file its format reads and writes in its own shape."""
    return [(p, f) for p, f in routed_files()
            if f is not None and f in reg.adapters and reg.adapters[f].info.can_write
            and not is_unreadable(p) and not is_read_only_shape(p)]


def rewrite(reg: Registry, path: Path, fmt: str) -> bytes | None:
    """The file written back as ``fmt`` from what ``fmt`` read of it (None: several files)."""
    _, res, _ = reg.read(as_input(path), format=fmt)
    out = reg.write(list(res.entities), fmt, REWRITE_OPTIONS.get(path.name, {}))
    return out.files[0].data if len(out.files) == 1 else None


def problems(path: Path, written: bytes) -> list[str]:
    """Where ``written`` differs from the file beyond the keys a card writer completes."""
    return rewrite_problems(as_input(path), as_input(written, f"rewrite{path.suffix}"),
                            COMPLETED_KEYS)


def main() -> int:
    import pytest

    from bunzai.testing import load_registry

    reg = load_registry()
    cases = rewrite_cases(reg)
    same = completed = 0
    for path, fmt in cases:
        written = rewrite(reg, path, fmt)
        if written == path.read_bytes():
            same += 1
            continue
        try:
            found = ["several files"] if written is None else problems(path, written)
        except pytest.skip.Exception as exc:  # a container the comparison cannot look into
            found = [str(exc)]
        completed += not found
        print(f"{fmt}\t{path.name}\t{found[:4] if found else 'completed'}")
    print(f"same-format rewrites byte-identical: {same} of {len(cases)}; completed by the "
          f"writer: {completed}; other: {len(cases) - same - completed}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())

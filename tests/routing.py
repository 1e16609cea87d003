"""The files whose routing the cross-package tests check, with their expected format."""

from __future__ import annotations

from pathlib import Path

from bunzai.testing import corpus_rows, samples_dir

from .corpus_routes import (
    CLASS_ROUTES,
    FILE_ROUTES,
    READ_ONLY_SHAPES,
    REPO_ROUTES,
    SAMPLE_ROUTES,
    UNREADABLE,
)

ROOT = Path(__file__).resolve().parents[1]


def routed_files() -> list[tuple[Path, str | None]]:
    """(path, expected format id or None) for every corpus file and every routed sample,
    shared or in the repository."""
    out: list[tuple[Path, str | None]] = []
    for path, row in corpus_rows():
        if path.name in FILE_ROUTES:
            out.append((path, FILE_ROUTES[path.name]))
        elif row["class"] in CLASS_ROUTES:
            out.append((path, CLASS_ROUTES[row["class"]]))
        else:
            raise AssertionError(f"corpus file {row['file']} has no route in corpus_routes.py")
    for rel, fmt in sorted(SAMPLE_ROUTES.items()):
        out.append((samples_dir() / rel, fmt))
    for rel, fmt in sorted(REPO_ROUTES.items()):
        out.append((ROOT / rel, fmt))
    return out


def short_id(path: Path) -> str:
    parts = path.name.split("__")
    return f"{parts[0]}:{parts[-2]}" if len(parts) >= 3 else path.name


def is_unreadable(path: Path) -> bool:
    """Recognised but deliberately refused on read (see ``UNREADABLE``)."""
    rel = path.relative_to(samples_dir()).as_posix() if path.is_relative_to(samples_dir()) \
        else path.name
    return rel in UNREADABLE


def is_read_only_shape(path: Path) -> bool:
    """Read by its format but written in another shape (see ``READ_ONLY_SHAPES``)."""
    return path.name in READ_ONLY_SHAPES

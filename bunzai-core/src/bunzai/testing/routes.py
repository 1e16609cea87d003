"""The repository's routing table (``tests/corpus_routes.py``) as sample lists per format.

bunzai's own format distributions feed the conformance kit from the same table the firewall test
reads, so a file is declared once: its route says which adapter owns it, and that makes it an own
sample for that adapter and a foreign sample for every other one.  Third-party plugins do not
need this module; they list their samples directly.
"""

from __future__ import annotations

import importlib.util
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path
from types import ModuleType
from typing import Any, ClassVar

from . import ROUTES, corpus_rows, repo_root, samples_dir
from .base import PathLike
from .kit import AdapterConformance


def _load(path: Path) -> ModuleType | None:
    if not path.is_file():
        return None
    spec = importlib.util.spec_from_file_location("_bunzai_corpus_routes", path)
    if spec is None or spec.loader is None:
        return None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@dataclass
class Routes:
    """Every routed corpus file and sample with the format it belongs to (None: no format)."""

    files: list[tuple[Path, str | None]] = field(default_factory=list)
    unreadable: set[str] = field(default_factory=set)
    """Names (corpus file names or sample paths) that route to a format but must be refused."""
    missing: list[str] = field(default_factory=list)
    """Corpus files the table gives no route (the firewall test fails on them)."""

    def _is_unreadable(self, path: Path) -> bool:
        return path.name in self.unreadable or any(
            path.as_posix().endswith("/" + u) for u in self.unreadable)

    def samples_of(self, format_id: str) -> list[Path]:
        """Readable files that route to ``format_id``."""
        return [p for p, f in self.files if f == format_id and not self._is_unreadable(p)]

    def malformed_of(self, format_id: str) -> list[Path]:
        """Files that route to ``format_id`` but must be refused when read."""
        return [p for p, f in self.files if f == format_id and self._is_unreadable(p)]

    def foreign_to(self, format_id: str) -> dict[Path, str | None]:
        """Every other routed file, mapped to its owner (None: owned by no format)."""
        return {p: f for p, f in self.files if f != format_id}


def load_routes(table: Path | None = None) -> Routes:
    """Read the routing table; an absent table or corpus gives empty routes."""
    if table is None:
        root = repo_root()
        if root is None:  # an installed bunzai: a plugin lists its samples itself
            return Routes()
        table = root / ROUTES
    module = _load(table)
    if module is None:
        return Routes()
    class_routes: dict[str, str | None] = getattr(module, "CLASS_ROUTES", {})
    file_routes: dict[str, str | None] = getattr(module, "FILE_ROUTES", {})
    sample_routes: dict[str, str | None] = getattr(module, "SAMPLE_ROUTES", {})
    repo_routes: dict[str, str | None] = getattr(module, "REPO_ROUTES", {})
    routes = Routes(unreadable=set(getattr(module, "UNREADABLE", set())))
    for path, row in corpus_rows():
        name = path.name
        if name in file_routes:
            routes.files.append((path, file_routes[name]))
        elif row["class"] in class_routes:
            routes.files.append((path, class_routes[row["class"]]))
        else:
            routes.missing.append(row["file"])
    if (samples_dir()).is_dir():
        for rel, fmt in sorted(sample_routes.items()):
            routes.files.append((samples_dir() / rel, fmt))
    root = table.resolve().parents[1]  # the table lives in <repository>/tests
    for rel, fmt in sorted(repo_routes.items()):
        routes.files.append((root / rel, fmt))
    return routes


def spread(paths: Iterable[Path], n: int) -> list[Path]:
    """Up to ``n`` paths covering every file suffix first, smallest files first.

    For the costly robustness checks (truncation, wrong types), a handful of files of each
    container shape finds what every file would, in a fraction of the time.
    """
    by_suffix: dict[str, list[Path]] = {}
    for p in sorted(paths, key=lambda p: (p.stat().st_size if p.exists() else 0, p.name)):
        by_suffix.setdefault(p.suffix.lower(), []).append(p)
    out: list[Path] = []
    while len(out) < n and any(by_suffix.values()):
        for group in by_suffix.values():
            if group and len(out) < n:
                out.append(group.pop(0))
    return sorted(out)


@cache
def _repo_routes() -> Routes:
    return load_routes()


class RoutedConformance(AdapterConformance):
    """The conformance kit fed from the routing table: own samples are the files routed to
    ``format_id``, malformed samples the routed files listed as unreadable, foreign samples every
    other routed file (with its owner, so the cross-kind rule applies).

    Adapters still being written are skipped with the reason rather than failed.
    """

    skip_if_not_installed = True
    extra_samples: ClassVar[Sequence[PathLike]] = ()
    """Own files the table does not route (fixtures written for formats with no public file)."""
    robustness_count: ClassVar[int] = 6
    """How many samples (spread over file types) the truncation and wrong-type checks use."""

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        if not cls.format_id:
            return
        routes = _repo_routes()
        # a routed file may be listed as an extra sample too: each is checked once
        own = list(dict.fromkeys([*routes.samples_of(cls.format_id),
                                  *(Path(p).resolve() for p in cls.extra_samples)]))
        defaults: dict[str, Any] = {
            "samples": own,
            "malformed_samples": routes.malformed_of(cls.format_id),
            "foreign_samples": routes.foreign_to(cls.format_id),
            "robustness_samples": spread(own, cls.robustness_count),
        }
        for name, value in defaults.items():
            if name not in cls.__dict__:
                setattr(cls, name, value)


__all__ = ["RoutedConformance", "Routes", "load_routes", "spread"]

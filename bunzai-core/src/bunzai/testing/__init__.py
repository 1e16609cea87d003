"""Helpers for testing bunzai and bunzai format plugins.

Import-light; nothing here runs unless a test asks.  Real files are read in place from the shared
corpus (``BUNZAI_CORPUS``, default ``<repo>/../shared/corpus``); they are never copied.
"""

from __future__ import annotations

import csv
import os
from collections.abc import Iterable, Sequence
from functools import cache
from pathlib import Path
from typing import Any

from ..api import as_input
from ..compare import diff_paths
from ..registry import Registry
from ..types import ReadResult

REPO_ROOT = Path(__file__).resolve().parents[4]
"""The checkout root when bunzai-core is installed from the repository (editable)."""


def shared_dir() -> Path:
    return Path(os.environ.get("BUNZAI_SHARED", REPO_ROOT.parent / "shared"))


def corpus_dir() -> Path:
    """The real-file corpus, read in place."""
    return Path(os.environ.get("BUNZAI_CORPUS", shared_dir() / "corpus"))


def chats_corpus_dir() -> Path:
    """Real chat histories (``corpus-chats``), read in place like the corpus."""
    return Path(os.environ.get("BUNZAI_CHATS_CORPUS", shared_dir() / "corpus-chats"))


def samples_dir() -> Path:
    """Generated app-faithful samples (never the only test of a reader)."""
    return Path(os.environ.get("BUNZAI_SAMPLES", shared_dir() / "samples"))


def require_corpus() -> None:
    """Skip the calling test module when the shared corpus is absent; under CI, fail instead.

    A CI run without the corpus would otherwise pass the firewall vacuously.
    """
    import pytest

    if (corpus_dir() / "MANIFEST.tsv").exists():
        return
    message = f"shared corpus not found at {corpus_dir()} (set BUNZAI_CORPUS)"
    if os.environ.get("CI"):
        pytest.fail(message, pytrace=False)
    pytest.skip(message, allow_module_level=True)


@cache
def manifest() -> list[dict[str, str]]:
    """Rows of ``MANIFEST.tsv`` (file, class, sha256, bytes, repo, path, commit)."""
    path = corpus_dir() / "MANIFEST.tsv"
    if not path.exists():
        return []
    with path.open(encoding="utf-8") as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


@cache
def chat_manifest() -> list[dict[str, str]]:
    """Rows of the chat corpus's ``MANIFEST.tsv`` (same columns as the corpus's)."""
    path = chats_corpus_dir() / "MANIFEST.tsv"
    if not path.exists():
        return []
    with path.open(encoding="utf-8") as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


def corpus_rows() -> list[tuple[Path, dict[str, str]]]:
    """Every real file with its manifest row: the corpus, then the chat corpus."""
    return ([(corpus_dir() / r["file"], r) for r in manifest()]
            + [(chats_corpus_dir() / r["file"], r) for r in chat_manifest()])


def corpus_files(*classes: str) -> list[Path]:
    """Real files (corpus and chat corpus) of the given classes (all when none given), sorted."""
    return sorted(p for p, r in corpus_rows() if not classes or r["class"] in classes)


def load_registry(*extra: tuple[str, Any], autoload: bool = True) -> Registry:
    """A fresh registry: installed plugins (unless ``autoload=False``) plus in-process ones."""
    return Registry.load(autoload=autoload, extra=extra)


def route(registry: Registry, path: Path | str | bytes, filename: str | None = None) -> str | None:
    """The format id detection picks for a file, or None."""
    inp = as_input(path, filename)
    rep = registry.detect(inp)
    return rep.winner.format if rep.winner else None


def document_bytes(doc: Any) -> bytes:
    """Test input as bytes: bytes as they are, a path's contents, anything else as JSON."""
    if isinstance(doc, bytes | bytearray):
        return bytes(doc)
    if isinstance(doc, Path):
        return doc.read_bytes()
    import json

    return json.dumps(doc).encode()


def scores(registry: Registry, doc: Any, filename: str = "x.json") -> dict[str, float]:
    """Every adapter's non-zero detection score for ``doc`` (bytes, a path or a JSON value)."""
    rep = registry.detect(as_input(document_bytes(doc), filename))
    return {c.format: c.score for c in rep.candidates}


def read(registry: Registry, doc: Any, format: str | None = None, filename: str = "x.json",
         **options: Any) -> ReadResult:
    """Read ``doc`` (bytes, a path or a JSON value) as ``format``, or as detected."""
    _, res, _ = registry.read(as_input(document_bytes(doc), filename), format=format,
                              options=options)
    return res


def ids(paths: Iterable[Path]) -> list[str]:
    """Short pytest ids for corpus paths."""
    return [p.name.split("__")[-2] if "__" in p.name else p.name for p in paths]


def uncovered_differences(before: Any, after: Any, loss: Any) -> list[str]:
    """Differences between two entities that a loss report does not list."""
    return [p for p in diff_paths(before, after) if not loss.covers(p)]


def conversion_problems(registry: Registry, entities: Sequence[Any], target: str,
                        options: dict[str, Any] | None = None) -> list[str]:
    """Write ``entities`` as ``target``, read the result back as ``target``, and list every
    canonical difference the loss report does not explain (empty means honest).

    Same-format conversions (the entities came from ``target``) must also report no loss.
    """
    problems: list[str] = []
    result = registry.write(list(entities), target, options or {})
    back: list[Any] = []
    for f in result.files:
        _, read_back, _ = registry.read(as_input(f.data, f"out{f.suffix}"), format=target)
        back.extend(read_back.entities)
    if len(back) != len(entities):
        return [f"{target}: wrote {len(entities)} entities, read back {len(back)}"]
    many = len(result.files) > 1
    for i, (before, after) in enumerate(zip(entities, back, strict=True)):
        for path in diff_paths(before, after):
            prefixed = f"[{i}].{path}"
            if not (result.loss.covers(prefixed) if many else result.loss.covers(path)
                    or result.loss.covers(prefixed)):
                problems.append(f"{target}: {prefixed if many else path} changed but the "
                                "loss report does not say so")
    return problems


__all__: Sequence[str] = [
    "chat_manifest",
    "chats_corpus_dir",
    "conversion_problems",
    "corpus_dir",
    "corpus_files",
    "corpus_rows",
    "diff_paths",
    "ids",
    "load_registry",
    "manifest",
    "require_corpus",
    "route",
    "samples_dir",
    "shared_dir",
    "uncovered_differences",
]

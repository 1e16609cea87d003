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

from ..host.detection import DetectionReport
from ..host.registry import Registry, set_registry
from ..host.types import ReadResult
from ..io.compare import diff_paths as diff_paths
from ..io.input import as_input
from ..io.limits import get_limits, set_limits

ROUTES = Path("tests") / "corpus_routes.py"
"""Where a bunzai checkout keeps its routing table, relative to its root."""


@cache
def repo_root() -> Path | None:
    """The bunzai checkout the tests run in: the nearest folder holding :data:`ROUTES` above
    the working directory, or above this package (an editable install).  None when bunzai is
    installed from a wheel and used by a plugin's own tests."""
    for start in (Path.cwd(), Path(__file__).resolve().parent):
        for folder in (start, *start.parents):
            if (folder / ROUTES).is_file():
                return folder
    return None


def shared_dir() -> Path:
    """The shared reference folder (``BUNZAI_SHARED``; default: ``shared`` beside the
    checkout, or beside the working directory)."""
    env = os.environ.get("BUNZAI_SHARED")
    if env:
        return Path(env)
    return (repo_root() or Path.cwd()).parent / "shared"


def corpus_dir() -> Path:
    """The real-file corpus, read in place."""
    return Path(os.environ.get("BUNZAI_CORPUS", shared_dir() / "corpus"))


def chats_corpus_dir() -> Path:
    """Real chat histories (``corpus-chats``), read in place like the corpus."""
    return Path(os.environ.get("BUNZAI_CHATS_CORPUS", shared_dir() / "corpus-chats"))


def presets_corpus_dir() -> Path:
    """Real presets and prompt templates (``corpus-presets``), read in place like the corpus."""
    return Path(os.environ.get("BUNZAI_PRESETS_CORPUS", shared_dir() / "corpus-presets"))


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


def _manifest_rows(folder: Path) -> list[dict[str, str]]:
    """The rows of a corpus folder's ``MANIFEST.tsv``, every corpus listing its files the same
    way; none when the corpus is not there."""
    path = folder / "MANIFEST.tsv"
    if not path.exists():
        return []
    with path.open(encoding="utf-8") as fh:
        return list(csv.DictReader(fh, delimiter="\t"))


@cache
def manifest() -> list[dict[str, str]]:
    """Rows of ``MANIFEST.tsv`` (file, class, sha256, bytes, repo, path, commit)."""
    return _manifest_rows(corpus_dir())


@cache
def chat_manifest() -> list[dict[str, str]]:
    """Rows of the chat corpus's ``MANIFEST.tsv`` (same columns as the corpus's)."""
    return _manifest_rows(chats_corpus_dir())


@cache
def preset_manifest() -> list[dict[str, str]]:
    """Rows of the preset corpus's ``MANIFEST.tsv`` (same columns as the corpus's)."""
    return _manifest_rows(presets_corpus_dir())


def corpus_rows() -> list[tuple[Path, dict[str, str]]]:
    """Every real file with its manifest row: the corpus, the chat corpus, the presets."""
    return ([(corpus_dir() / r["file"], r) for r in manifest()]
            + [(chats_corpus_dir() / r["file"], r) for r in chat_manifest()]
            + [(presets_corpus_dir() / r["file"], r) for r in preset_manifest()])


def corpus_files(*classes: str) -> list[Path]:
    """Real files (corpus and chat corpus) of the given classes (all when none given), sorted."""
    return sorted(p for p, r in corpus_rows() if not classes or r["class"] in classes)


def load_registry(*extra: tuple[str, Any], autoload: bool = True) -> Registry:
    """A fresh registry: installed plugins (unless ``autoload=False``) plus in-process ones."""
    return Registry.load(autoload=autoload, extra=extra)


def without_signatures(registry: Registry) -> Registry:
    """``registry`` with every adapter's declared signature set aside: detection asks every
    adapter about every file.  A signature may only spare calls, so detection must find the
    same candidates either way."""
    from dataclasses import replace

    from ..host.registry import AdapterHandle

    return Registry(registry.host, {fid: AdapterHandle(replace(h.info, signature=None), h.record)
                                     for fid, h in registry.adapters.items()})


def detection_outline(report: DetectionReport) -> tuple[Any, ...]:
    """What a detection report says, as comparable values: the container, every candidate
    (format, score, reason), the faults, the winner and a tie."""
    return (report.container, [(c.format, c.score, c.reason) for c in report.candidates],
            [(f.format, f.message) for f in report.faults],
            report.winner.format if report.winner else None, report.tied)


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


def without_completed(original: Any, written: Any, completed: Sequence[str]) -> Any:
    """``written`` without the keys a writer added where ``original`` had none, at the JSON
    path patterns ``completed`` (a spec's required keys, ``data.tags``,
    ``data.character_book.entries[*].extensions``): what must then equal ``original`` exactly,
    key order included, for a same-format rewrite to count as faithful."""
    from ..loss.neutral import pattern_of

    patterns = frozenset(completed)

    def strip(a: Any, b: Any, path: str) -> Any:
        if isinstance(a, dict) and isinstance(b, dict):
            out = {}
            for k, v in b.items():
                p = f"{path}.{k}" if path else str(k)
                if k not in a and pattern_of(p) in patterns:
                    continue
                out[k] = strip(a[k], v, p) if k in a else v
            return out
        if isinstance(a, list) and isinstance(b, list) and len(a) == len(b):
            return [strip(x, y, f"{path}[{i}]") for i, (x, y) in enumerate(zip(a, b,
                                                                              strict=True))]
        return b

    return strip(original, written, "")


def uncovered_differences(before: Any, after: Any, loss: Any,
                          registry: Registry | None = None) -> list[str]:
    """Changes in user data between two entities that a loss report does not list."""
    from ..host.registry import get_registry
    from ..loss.rule import changes

    neutral = (registry or get_registry()).neutrality
    return [p for p in changes(before, after, neutral) if not loss.covers(p)]


def conversion_problems(registry: Registry, entities: Sequence[Any], target: str,
                        options: dict[str, Any] | None = None) -> list[str]:
    """Write ``entities`` as ``target``, read the result back as ``target``, and list where the
    loss report and the output disagree (empty means honest), in both directions:

    * a change in user data that the report does not name (a silent loss), and
    * a reported path whose data did not change (a report a user would learn to ignore).
    """
    from ..loss.rule import changes, explains

    problems: list[str] = []
    result = registry.write(list(entities), target, options or {})
    back: list[Any] = []
    for f in result.files:
        _, read_back, _ = registry.read(as_input(f.data, f"out{f.suffix}"), format=target)
        back.extend(read_back.entities)
    if len(back) != len(entities):
        return [f"{target}: wrote {len(entities)} entities, read back {len(back)}"]
    neutral = registry.neutrality
    many = len(entities) > 1
    changed: list[str] = []
    for i, (before, after) in enumerate(zip(entities, back, strict=True)):
        for path in changes(before, after, neutral):
            shown = f"[{i}].{path}" if many else path
            changed.append(shown)
            if not (result.loss.covers(shown) or (not many and result.loss.covers(f"[0].{path}"))):
                problems.append(f"{target}: {shown} changed but the loss report does not say so")
    for entry in result.loss:
        if entry.action == "stashed":
            continue
        path = entry.path[4:] if not many and entry.path.startswith("[0].") else entry.path
        if not any(explains(path, c) for c in changed):
            problems.append(f"{target}: the loss report names {entry.path} ({entry.action}: "
                            f"{entry.reason}) but it reads back unchanged")
    return problems


def label(registry: Registry, source: Any, filename: str | None = None) -> Any:
    """The origin label of a file (bytes, a path or a JSON value), as ``bunzai label`` gives
    it: read, then every installed label rule."""
    from ..engine.label import label as run

    inp = as_input(document_bytes(source) if not isinstance(source, Path) else source,
                   filename)
    _, result, _ = registry.read(inp)
    return run(registry, inp, result.entities)


def validate(registry: Registry, source: Any, filename: str | None = None) -> Any:
    """The validation issues of a file, as ``bunzai validate`` finds them."""
    from ..engine.validate import file_issues

    inp = as_input(document_bytes(source) if not isinstance(source, Path) else source,
                   filename)
    handle, result, _ = registry.read(inp)
    return file_issues(registry, handle, inp, result)


def hand_laid(value: Any, indent: int | str = 2, *, ascii: bool = False,
              end: str = "\n\n") -> bytes:
    """``value`` as JSON laid out the way editors and many tools write it, and bunzai's own
    serializer does not: arrays of strings on one line (``"tags": ["a", "b"]``), ``indent``
    (a number or a tab), ``\\u`` escapes with ``ascii``, ``end`` after the last brace (a
    blank line by default)."""
    import json
    import re

    text = json.dumps(value, indent=indent, ensure_ascii=ascii)

    def one_line(m: re.Match[str]) -> str:
        return "[" + ", ".join(re.findall(r'"[^"\n]*"', m.group(1))) + "]"

    return (re.sub(r'\[(\s+"[^"\n]*"(?:,\s+"[^"\n]*")*\s+)\]', one_line, text)
            + end).encode()


def rezipped(data: bytes, *, folders: bool = False, comment: bytes | None = None,
             level: int = 9) -> bytes:
    """The members of the zip ``data``, zipped again as another tool would: its own timestamp
    and permissions, every file deflated at ``level`` (0: stored blocks, as tools write data
    that does not compress), folder entries only with ``folders``, ``comment`` (default: the
    archive's own).  A same-format rewrite of such an archive must give it back unchanged."""
    import io
    import zipfile

    with zipfile.ZipFile(io.BytesIO(data)) as src:
        members = [(i.filename, src.read(i)) for i in src.infolist()]
        kept = src.comment if comment is None else comment
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w") as zf:
        for name, payload in members:
            if name.endswith("/") and not folders:
                continue
            info = zipfile.ZipInfo(name, (2024, 2, 29, 23, 58, 30))
            info.external_attr = 0o664 << 16
            info.compress_type = zipfile.ZIP_STORED if name.endswith("/") else zipfile.ZIP_DEFLATED
            zf.writestr(info, payload, compresslevel=level)
        zf.comment = kept
    return buf.getvalue()


__all__: Sequence[str] = [
    "Registry",
    "as_input",
    "chat_manifest",
    "chats_corpus_dir",
    "conversion_problems",
    "corpus_dir",
    "corpus_files",
    "corpus_rows",
    "diff_paths",
    "get_limits",
    "hand_laid",
    "ids",
    "label",
    "load_registry",
    "manifest",
    "require_corpus",
    "rezipped",
    "route",
    "samples_dir",
    "set_limits",
    "set_registry",
    "shared_dir",
    "uncovered_differences",
    "validate",
    "without_completed",
]

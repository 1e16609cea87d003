"""What bunzai writes, its own validator accepts: ``bunzai validate --strict`` finds nothing in
a card or lorebook bunzai wrote, except what the source file already had.

Every readable corpus file and sample of those kinds is written to every writable format of
its kind (the routes of :mod:`tests.routing`); each output is validated as its format and
compared with the source's own findings.  A finding is the source's when the source has the
same message at the same path.  Two conditions each container words in its own way are
matched by what they are about rather than by their words: an entry that can never activate
(by its index) and an asset no card entry refers to (by count).

One consequence is allowed, because the writer already says it: an entry the target cannot
make always-on or keep as a folder (the report names its ``constant`` or ``is_folder``), and
which has no keys, can never activate in the target.

Every other writing command's outputs (``lorebook extract|embed|merge``, ``chat
extract|embed``, the studio's convert: the cases of :mod:`tests.command_outputs`, run once for
this test and the oracle) are held to the same rule.  There "the source" is every file the
command read together with what it made of them (the canonical checks of the merged book or the
card with its new book, so a finding the made entity already had is not the writer's).  Entries
move there (a card's book becomes a standalone one, a merge appends), so a finding is also the
source's when its message matches one the inputs had with the counts in it aside, at the same
path; one more allowance: a format that stores times without a zone (its reader warns so) when
the source's times had none either, or the report names the times as approximated; and
``chat embed``'s notice that the archive now holds chat messages (private data).
"""

from __future__ import annotations

import re
from collections import Counter
from functools import cache
from pathlib import Path
from typing import Any

import pytest

from bunzai.api import as_input
from bunzai.engine.inspecting import validate_file
from bunzai.host.registry import Registry
from bunzai.testing import load_registry, require_corpus

from .routing import is_unreadable, routed_files, short_id

require_corpus()

KINDS = ("character", "lorebook")
_ENTRY = re.compile(r"entries\[(\d+)\]")
_NEVER = ("entry has no keys and is not constant: it can never activate",
          "no keys and not forceActivation: the entry never activates")
_ORPHAN = "no asset refers to; kept as an orphan asset"


@cache
def _registry() -> Registry:
    return load_registry()


def _cases() -> list[Any]:
    reg = _registry()
    cases = []
    for path, fmt in routed_files():
        if fmt is None or is_unreadable(path) or fmt not in reg.adapters:
            continue
        kind = reg.adapters[fmt].kind
        if kind in KINDS:
            cases += [pytest.param(path, fmt, info.id, id=f"{short_id(path)}->{info.id}")
                      for info in reg.formats(kind) if info.can_write]
    return cases


def _findings(data: Path | bytes, fmt: str, name: str | None = None) -> list[tuple[str, str]]:
    found = validate_file(data, filename=name, from_format=fmt, strict=True,
                          registry=_registry())
    assert found.ok, f"{fmt} cannot read it back: {found.error}"
    return [(i.path, i.message) for i in found.issues]


def _kind_of(message: str) -> str | None:
    if message in _NEVER:
        return "never"
    return "orphan" if message.endswith(_ORPHAN) else None


def _entry(path: str) -> int | None:
    hit = _ENTRY.search(path)
    return int(hit.group(1)) if hit else None


@cache
def _source(path: Path, fmt: str) -> tuple[frozenset[tuple[str, str]], frozenset[int], int]:
    """The source's findings, the entries it finds can never activate, its orphan count."""
    found = _findings(path, fmt)
    never = {_entry(p) for p, m in found if _kind_of(m) == "never"}
    orphans = sum(1 for _, m in found if _kind_of(m) == "orphan")
    return frozenset(found), frozenset(i for i in never if i is not None), orphans


@pytest.mark.parametrize(("path", "source", "target"), _cases())
def test_what_bunzai_writes_its_validator_accepts(path: Path, source: str, target: str
                                                  ) -> None:
    reg = _registry()
    had, never, orphans = _source(path, source)
    _, read, _ = reg.read(as_input(path), format=source)
    out = reg.write(list(read.entities), target)
    new: list[str] = []
    for n, file in enumerate(out.files):
        stem = "lorebook." if reg.adapters[target].kind == "character" else ""
        prefix = f"[{n}]." if len(out.files) > 1 else ""
        counted: Counter[str] = Counter()
        for p, message in _findings(file.data, target, f"out{file.suffix}"):
            kind = _kind_of(message)
            if (p, message) in had:
                continue
            if kind == "orphan":
                counted[kind] += 1
                if counted[kind] <= orphans:
                    continue
            if kind == "never":
                i = _entry(p)
                if i in never or (i is not None and any(
                        out.loss.covers(f"{prefix}{stem}entries[{i}].{f}")
                        for f in ("constant", "is_folder"))):
                    continue
            new.append(f"{p}: {message}")
    assert not new, f"{target} wrote what its own validator finds: {new[:8]}"


# -- every other writing command ------------------------------------------------------------------

_ZONELESS = "times are written without a zone"
_PRIVATE = "chat message(s) in this character's scenarios: private data, kept only for BYAF"
_TIME = re.compile(r"messages\[\d+\]\.time$")


def _op_cases() -> list[Any]:
    from .command_outputs import cases

    return [pytest.param(c, id=c.id) for c in cases()
            if c.op != "extract-assets"]


def _counts_aside(message: str) -> str:
    return re.sub(r"\d+", "#", message)


@pytest.mark.parametrize("case", _op_cases())
def test_what_every_command_writes_its_validator_accepts(case: Any) -> None:
    from bunzai.engine.validate import canonical_issues

    from .command_outputs import run

    done = run(case)
    if done.refused is not None or done.written is None or done.target is None:
        return  # a refusal is the oracle's to judge (test_command_outputs.py)
    had: set[tuple[str, str]] = {(i.path, i.message) for i in canonical_issues(done.made)}
    never: set[int] = {i for p, m in had if _kind_of(m) == "never"
                       for i in [_entry(p)] if i is not None}
    orphans = 0
    for path, fmt in done.inputs:
        found, _, count = _source(path, fmt)
        had |= found
        orphans += count
    loose = {(p, _counts_aside(m)) for p, m in had}
    zoneless = any(m.startswith(_ZONELESS) for _, m in had)
    loss = done.written.loss
    new: list[str] = []
    for n, file in enumerate(done.written.files):
        prefix = f"[{n}]." if len(done.written.files) > 1 else ""
        stem = "lorebook." if registry_kind(done.target) == "character" else ""
        counted = 0
        for p, message in _findings(file.data, done.target, f"out{file.suffix}"):
            kind = _kind_of(message)
            if (p, message) in had or (p, _counts_aside(message)) in loose:
                continue
            if kind == "orphan":
                counted += 1
                if counted <= orphans:
                    continue
            if kind == "never":
                i = _entry(p)
                if i in never or (i is not None and any(
                        loss.covers(f"{prefix}{stem}entries[{i}].{f}")
                        for f in ("constant", "is_folder"))):
                    continue
            if case.op == "chat-embed" and message.endswith(_PRIVATE):
                continue  # the notice of the chat it was asked to embed
            if message.startswith(_ZONELESS) and (zoneless or any(
                    _TIME.search(e.path) for e in loss if e.action == "approximated")):
                continue
            new.append(f"{p}: {message}")
    assert not new, f"{case.id} wrote what its own validator finds: {new[:8]}"


def registry_kind(fmt: str) -> str:
    return str(_registry().adapters[fmt].kind)

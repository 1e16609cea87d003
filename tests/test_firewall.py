"""The firewall: every real file and sample routes to exactly its own adapter, across kinds.

Iterates over every installed adapter: adding a format may add a detector, but it must not steal
another format's files.  Routes live in ``corpus_routes.py``; format issues add theirs there.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from bunzai.errors import MalformedInput, UnrecognizedInput
from bunzai.host.registry import Registry, set_registry
from bunzai.io.input import as_input
from bunzai.testing import require_corpus

from .corpus_routes import EXITS
from .routing import is_unreadable, routed_files, short_id

FILES = routed_files()
require_corpus()


@pytest.mark.parametrize(("path", "expected"), FILES, ids=[short_id(p) for p, _ in FILES])
def test_file_routes_to_its_own_adapter(registry: Registry, path: Path,
                                        expected: str | None) -> None:
    if expected is not None and expected not in registry.adapters:
        pytest.skip(f"{expected} is not installed")
    report = registry.detect(as_input(path))
    scores = ", ".join(f"{c.format}={c.score:g}" for c in report.candidates) or "none"
    assert not report.faults, f"adapter faults on {path.name}: {report.faults}"
    if expected is None:
        assert report.winner is None, (
            f"{report.winner.format} claims {path.name}, which no adapter should "  # type: ignore[union-attr]
            f"(scores: {scores})")
        return
    assert report.winner is not None, f"nothing won {path.name} (scores: {scores})"
    assert report.winner.format == expected, (
        f"{path.name} routed to {report.winner.format}, expected {expected} (scores: {scores})")


NEGATIVES = [p for p, fmt in FILES if fmt is None]


@pytest.mark.parametrize("path", NEGATIVES, ids=[short_id(p) for p in NEGATIVES])
def test_negative_files_exit_3_or_4_without_traceback(registry: Registry, path: Path) -> None:
    with pytest.raises((UnrecognizedInput, MalformedInput)):
        registry.read(as_input(path))
    from bunzai.cli import app
    set_registry(registry)
    try:
        res = CliRunner().invoke(app, ["inspect", str(path)])
    finally:
        set_registry(None)
    assert res.exit_code == EXITS.get(path.name, res.exit_code) and res.exit_code in (3, 4), (
        res.output)
    assert "Traceback" not in res.stderr
    assert res.stderr.strip().count("\n") == 0 and path.name in res.stderr


def test_every_installed_adapter_is_kind_discriminated(registry: Registry) -> None:
    from bunzai.kinds import ANY_KIND, KINDS
    for info in registry.formats():
        assert info.kind in KINDS or (info.kind == ANY_KIND and info.id == "vaud-json"), info.id


def test_core_refuses_every_cross_kind_write(registry: Registry) -> None:
    """No writer checks the kind of what it is given: core refuses another kind, and a mix of
    kinds, before any writer runs."""
    from bunzai.errors import ConversionRefused
    from bunzai.model import Character, Chat, Lorebook, Module, Persona, Preset, RegexScript

    samples = [Character(name="A"), Lorebook(name="B"), Persona(name="C"),
               RegexScript(name="D", pattern="x"), Module(name="E"), Chat(), Preset(name="F")]
    writers = [i for i in registry.formats() if i.can_write and i.id != "vaud-json"]
    assert writers
    for info in writers:
        own = next(e for e in samples if e.kind == info.kind)
        for other in samples:
            if other.kind == info.kind:
                continue
            with pytest.raises(ConversionRefused, match="cross-kind"):
                registry.write([other], info.id)
            with pytest.raises(ConversionRefused, match="different kinds"):
                registry.write([own, other], info.id)


def test_no_plugin_is_broken(registry: Registry) -> None:
    assert registry.broken == [], [b.to_dict() for b in registry.broken]


UNREADABLE_FILES = [(p, f) for p, f in FILES if f is not None and is_unreadable(p)]


@pytest.mark.parametrize(("path", "expected"), UNREADABLE_FILES,
                         ids=[short_id(p) for p, _ in UNREADABLE_FILES])
def test_recognised_but_broken_files_are_refused_clearly(registry: Registry, path: Path,
                                                        expected: str) -> None:
    with pytest.raises(MalformedInput) as info:
        registry.read(as_input(path))
    assert info.value.exit_code == 4 and info.value.message

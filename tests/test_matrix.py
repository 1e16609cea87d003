"""The conversion matrix: every readable file, converted to every same-kind installed format
(including itself and vaud-json), read back, compared: what changed must be what the loss
report says.  Same-format conversions must lose nothing.
"""

from __future__ import annotations

from functools import cache
from pathlib import Path
from typing import Any

import pytest

from bunzai.host.registry import Registry
from bunzai.io.input import as_input
from bunzai.testing import conversion_problems, load_registry, require_corpus

from .routing import is_read_only_shape, is_unreadable, routed_files, short_id

require_corpus()

READABLE = [(p, f) for p, f in routed_files() if f is not None and not is_unreadable(p)]


@cache
def _registry() -> Registry:
    return load_registry()


_AS_READ: dict[tuple[Path, str], list[Any]] = {}


@cache
def _read(path: Path, fmt: str) -> tuple[Any, ...]:
    _, result, _ = _registry().read(as_input(path), format=fmt)
    _AS_READ[path, fmt] = [e.model_dump() for e in result.entities]
    return tuple(result.entities)


def _cases() -> list[Any]:
    reg = _registry()
    cases = []
    for path, fmt in READABLE:
        if fmt not in reg.adapters:
            continue
        kind = reg.adapters[fmt].kind
        for info in reg.formats(kind):
            if info.can_write:
                cases.append(pytest.param(path, fmt, info.id,
                                          id=f"{short_id(path)}->{info.id}"))
    return cases


@pytest.mark.parametrize(("path", "source", "target"), _cases())
def test_conversion_is_honest(path: Path, source: str, target: str) -> None:
    reg = _registry()
    entities = _read(path, source)
    problems = conversion_problems(reg, list(entities), target)
    assert not problems, "\n".join(problems)
    # One entity is written to every format in turn (the API, the studio, batch fan-out):
    # a writer must never change what it was given.
    assert [e.model_dump() for e in entities] == _AS_READ[path, source], (
        f"writing {target} changed the entity read from {source}")
    if target == source and not is_read_only_shape(path):
        out = reg.write(list(entities), target)
        assert not out.loss, f"same-format round trip lost: {[str(e) for e in out.loss]}"


def _rewrite_cases() -> list[Any]:
    from .rewrites import rewrite_cases

    return [pytest.param(p, f, id=f"{short_id(p)}->{f}") for p, f in rewrite_cases(_registry())]


@pytest.mark.parametrize(("path", "fmt"), _rewrite_cases())
def test_same_format_rewrite_is_the_file(path: Path, fmt: str) -> None:
    """Written back as its own format, a file is itself byte for byte, whatever tool laid it
    out; only a file that lacks keys its spec requires may come back with them added."""
    from .rewrites import problems, rewrite

    written = rewrite(_registry(), path, fmt)
    assert written is not None, f"{fmt} wrote several files from one"
    found = problems(path, written)
    assert not found, f"the rewrite differs from the file beyond completed keys: {found[:8]}"


def test_every_route_names_an_installed_format() -> None:
    reg = _registry()
    missing = sorted({f for _, f in READABLE if f not in reg.adapters})
    assert not missing, f"routes name formats that are not installed: {missing}"


def _byaf_chat_cases() -> list[Any]:
    from bunzai.engine.chats import extract

    reg = _registry()
    if "backyard-byaf" not in reg.adapters:
        return []
    cases = []
    for path, fmt in READABLE:
        if fmt != "backyard-byaf":
            continue
        for entity in _read(path, fmt):
            for i, _ in enumerate(extract(reg, entity)):
                for info in reg.formats("chat"):
                    if info.can_write:
                        cases.append(pytest.param(path, i, info.id,
                                                  id=f"{short_id(path)}-chat{i}->{info.id}"))
    return cases


@pytest.mark.parametrize(("path", "index", "target"), _byaf_chat_cases())
def test_every_chat_inside_a_backyard_archive_converts_honestly(path: Path, index: int,
                                                                target: str) -> None:
    from bunzai.engine.chats import extract

    reg = _registry()
    chat = extract(reg, _read(path, "backyard-byaf")[0])[index]
    problems = conversion_problems(reg, [chat], target)
    assert not problems, "\n".join(problems)

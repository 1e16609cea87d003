"""bunzai's pytest plugin for format authors: fixtures, and the kit's report header.

Opt-in, like pytest's own ``pytester``: it is not registered under ``pytest11``, so installing
bunzai never changes anyone else's test runs.  Enable it in a test module or in the conftest.py
at your project's root::

    pytest_plugins = ["bunzai.testing.plugin"]

or on the command line with ``pytest -p bunzai.testing.plugin``.

Fixtures:

``bunzai_registry``
    every installed adapter, loaded once per session (what ``bunzai`` itself would see);
``bunzai_isolated_registry``
    a factory: ``bunzai_isolated_registry(MyAdapter())`` gives a registry with core's adapters
    and only the adapters you pass, for unit tests that must not depend on what is installed;
``bunzai_input``
    a factory turning bytes or a path into the :class:`~bunzai.io.input.AdapterInput` adapters get;
``bunzai_examples``
    a factory for the kit's generated canonical entities: ``bunzai_examples("lorebook")``.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from ..host.registry import Registry
from ..io.input import AdapterInput, as_input
from .generated import canonical_examples
from .kit import session_registry


def pytest_report_header(config: pytest.Config) -> list[str]:
    """Name what the conformance checks run against: installed formats and refused plugins."""
    from .._version import __version__

    reg = session_registry(config)
    lines = [f"bunzai {__version__}: {len(reg.adapters)} formats installed "
             f"({', '.join(sorted(reg.adapters))})"]
    for b in reg.broken:
        lines.append(f"bunzai: refused plugin {b.name} ({b.distribution}): {b.reason}")
    return lines


@pytest.fixture(scope="session")
def bunzai_registry(request: pytest.FixtureRequest) -> Registry:
    """Every installed adapter (honours BUNZAI_LOAD_PLUGINS / BUNZAI_DISABLE_PLUGIN_AUTOLOAD)."""
    return session_registry(request.config)


@pytest.fixture
def bunzai_isolated_registry() -> Callable[..., Registry]:
    """Build a registry holding core's adapters plus the in-process adapters given."""

    def build(*adapters: Any) -> Registry:
        extra = []
        for adapter in adapters:
            obj = adapter() if isinstance(adapter, type) else adapter
            extra.append((obj.bunzai_format_info().id, obj))
        return Registry.load(autoload=False, extra=extra, environ={})

    return build


@pytest.fixture
def bunzai_input() -> Callable[..., AdapterInput]:
    """Wrap bytes (with an optional file name) or a path as an AdapterInput."""

    def build(source: Any, filename: str | None = None) -> AdapterInput:
        return as_input(source, filename)

    return build


@pytest.fixture
def bunzai_examples() -> Callable[[str, str], list[Any]]:
    """Generated canonical entities: ``bunzai_examples(kind, "rich" | "minimal")``."""

    def build(kind: str, variant: str = "rich") -> list[Any]:
        return canonical_examples(kind, variant)

    return build

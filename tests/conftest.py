"""Cross-package tests: they run against every installed adapter."""

from __future__ import annotations

import pytest

from bunzai.host.registry import Registry
from bunzai.testing import load_registry


@pytest.fixture(scope="session")
def registry() -> Registry:
    return load_registry()

"""Fixtures for the Voxta tests: one registry of every installed adapter."""

from __future__ import annotations

import pytest

from bunzai.registry import Registry
from bunzai.testing import load_registry


@pytest.fixture(scope="session")
def registry() -> Registry:
    return load_registry()

"""Fixtures for the Voxta tests: one registry of every installed adapter."""

from __future__ import annotations

from typing import Any

import pytest

from bunzai.testing import load_registry


@pytest.fixture(scope="session")
def registry() -> Any:
    return load_registry()

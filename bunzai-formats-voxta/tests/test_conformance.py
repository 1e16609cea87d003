"""The conformance kit on every bunzai-formats-voxta adapter (dogfood).

Each class takes its samples from the repository's routing table (``tests/corpus_routes.py``):
the real corpus files routed to that format, read in place, plus the packages our own fixtures
build (``fixtures.py``); every other routed file is a foreign sample it must not claim.
"""

from __future__ import annotations

from bunzai.testing import require_corpus
from bunzai.testing.routes import RoutedConformance
from bunzai_voxta.voxta.tests.fixtures import (
    book_samples,
    character_samples,
    malformed_book_samples,
)

pytest_plugins = ["bunzai.testing.plugin"]
require_corpus()


class TestVoxta(RoutedConformance):
    format_id = "voxta"
    extra_samples = character_samples()


class TestVoxtaLorebook(RoutedConformance):
    format_id = "voxta-lorebook"
    extra_samples = book_samples()
    malformed_samples = malformed_book_samples()

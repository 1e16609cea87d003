"""The conformance kit on every bunzai-formats-backyard adapter (dogfood).

Each class takes its samples from the repository's routing table (``tests/corpus_routes.py``):
the real corpus files and generated samples routed to that format, read in place; every other
routed file is a foreign sample it must not claim.  An adapter that is not installed yet is
skipped with the reason.
"""

from __future__ import annotations

from bunzai.testing import require_corpus
from bunzai.testing.routes import RoutedConformance

pytest_plugins = ["bunzai.testing.plugin"]
require_corpus()


class TestBackyardArchive(RoutedConformance):
    format_id = "backyard-byaf"


class TestBackyardLegacy(RoutedConformance):
    format_id = "backyard"


class TestBackyardChat(RoutedConformance):
    format_id = "backyard-chat"

"""The conformance kit on every bunzai-formats-risu adapter (dogfood).

Each class takes its samples from the repository's routing table (``tests/corpus_routes.py``):
the real corpus files and generated samples routed to that format, read in place; files routed
to it but listed as unreadable are its malformed samples; every other routed file is a foreign
sample it must not claim.  An adapter that is not installed yet is skipped with the reason.
"""

from __future__ import annotations

from bunzai.sdk.cards import COMPLETED_KEYS
from bunzai.testing import require_corpus
from bunzai.testing.routes import RoutedConformance

pytest_plugins = ["bunzai.testing.plugin"]
require_corpus()


class TestRisuCharx(RoutedConformance):
    format_id = "risu-charx"
    completed_keys = COMPLETED_KEYS


class TestRisuCard(RoutedConformance):
    format_id = "risu"
    completed_keys = COMPLETED_KEYS


class TestRisuModule(RoutedConformance):
    format_id = "risu-module"


_bare = ("RisuAI imports only its export envelope, so the writer wraps a bare array in it by "
         "default (option array=true keeps the bare shape; see the adapter's README); this file, "
         "from a repository, is a bare array")


class TestRisuLorebook(RoutedConformance):
    format_id = "risu-lorebook"
    sample_waivers = {
        "test_same_format_round_trip_is_lossless": {"other__*__lorebook__*": _bare},
        "test_same_format_round_trip_keeps_the_file": {"other__*__lorebook__*": _bare},
    }


class TestRisuRegex(RoutedConformance):
    format_id = "risu-regex"
    sample_waivers = {
        "test_same_format_round_trip_is_lossless": {"other__*__regex__*": _bare},
        "test_same_format_round_trip_keeps_the_file": {"other__*__regex__*": _bare},
    }


class TestRisuPersona(RoutedConformance):
    format_id = "risu-persona"


class TestRisuChat(RoutedConformance):
    format_id = "risu-chat"
    sample_waivers = {"test_passthrough_is_layout_only": {
        "risu-chat-export.json": "bunzai writes a message's name only where the source had "
                                 "one (RisuAI names the user and the character itself); "
                                 "without that layout the name is dropped (reported)",
    }}


class TestRisuPreset(RoutedConformance):
    format_id = "risu-preset"

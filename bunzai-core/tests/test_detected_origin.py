"""A format only one app writes says so once (``origin``): detection that is sure of the file
is then the labeler's origin evidence, with no rule testing the file a second time."""

from __future__ import annotations

from collections.abc import Callable

import pytest

from bunzai.sdk import AdapterInput, DetectedOrigin, FormatAdapter


class StoryAdapter(FormatAdapter):
    """Story files: ``#story`` is the app's own header, ``#`` any other line of text."""

    format_id = "story"
    kind = "chat"
    origin = DetectedOrigin("Story App", 0.8, "story-header", at_least=0.9)

    def detect(self, input: AdapterInput) -> tuple[float, str]:
        if input.data.startswith(b"#story"):
            return 0.95, "#story header"
        return (0.6, "a # line") if input.data.startswith(b"#") else (0.0, "")


class NotedStoryAdapter(StoryAdapter):
    def origin_evidence(self, input: AdapterInput, reason: str) -> str:
        return reason + (" naming its chapter" if b"chapter" in input.data else "")


def _evidence(adapter: FormatAdapter, data: bytes) -> list[list[str]]:
    return [rule.test(AdapterInput(data, "a.txt"), []) for rule in adapter.label_rules()]


def test_the_declared_origin_is_a_rule_firing_on_sure_detection_only() -> None:
    (rule,) = StoryAdapter().label_rules()
    assert (rule.app, rule.weight, rule.role, rule.name) == ("Story App", 0.8, "origin",
                                                             "story-header")
    assert _evidence(StoryAdapter(), b"#story one") == [["#story header"]]
    assert _evidence(StoryAdapter(), b"# one") == [[]]  # 0.6: below at_least
    assert _evidence(StoryAdapter(), b"one") == [[]]


def test_origin_evidence_adds_to_the_detection_reason() -> None:
    assert _evidence(NotedStoryAdapter(), b"#story chapter 1") == [
        ["#story header naming its chapter"]]
    assert _evidence(NotedStoryAdapter(), b"#story") == [["#story header"]]
    assert _evidence(NotedStoryAdapter(), b"# chapter") == [[]]


def test_an_adapter_without_origin_has_no_such_rule() -> None:
    class Plain(FormatAdapter):
        format_id = "plain"
        kind = "chat"

    assert Plain().label_rules() == []


@pytest.fixture
def labelled(write_package: Callable[[dict[str, str]], None]) -> None:
    write_package({"origin_plugin/story/__init__.py": '''
        from bunzai.sdk import DetectedOrigin, FormatAdapter

        class LabelledAdapter(FormatAdapter):
            format_id = "story"
            kind = "chat"
            origin = DetectedOrigin("Story App", 0.8, "story-header")

            def detect(self, input):
                return 1.0, "story"
    ''', "origin_plugin/story/labels.py": '''
        from bunzai.sdk import LabelRule

        def rules():
            return [LabelRule("Other App", 0.5, lambda input, entities: ["other"], "origin",
                              "other-shape")]
    '''})


def test_the_labelers_rules_follow_the_declared_origin(labelled: None) -> None:
    from origin_plugin.story import LabelledAdapter  # type: ignore[import-not-found]

    rules = LabelledAdapter().label_rules()
    assert [r.name for r in rules] == ["story-header", "other-shape"]
    assert _evidence(LabelledAdapter(), b"x") == [["story"], ["other"]]

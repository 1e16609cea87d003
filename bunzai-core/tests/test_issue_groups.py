"""Findings are said once and grouped by cause, so a file with 34 alike entries is one line."""

from __future__ import annotations

from bunzai.engine.validate import group_issues
from bunzai.errors import Issue


def test_alike_findings_at_indexed_paths_are_one_group_with_every_path() -> None:
    issues = [Issue(f"$.entries['{i}'].uid", "uid does not match its key; both kept")
              for i in range(34)]
    issues.append(Issue("$.name", "expected a string"))
    groups = group_issues(issues)
    assert [(g.count, g.message) for g in groups] == [
        (34, "uid does not match its key; both kept"), (1, "expected a string")]
    assert groups[0].paths[:2] == ("$.entries['0'].uid", "$.entries['1'].uid")
    assert groups[0].to_dict()["count"] == 34


def test_different_messages_or_severities_stay_apart() -> None:
    issues = [Issue("$.a[0]", "x"), Issue("$.a[1]", "y"), Issue("$.a[2]", "x", "error")]
    assert [g.count for g in group_issues(issues)] == [1, 1, 1]

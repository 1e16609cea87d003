"""How a loss report reads to people: a summary, then one line per repeated field and reason."""

from __future__ import annotations

from bunzai.loss.report import LossReport


def _report() -> LossReport:
    r = LossReport()
    for i in range(12):
        r.dropped(f"lorebook.entries[{i}].extensions.probability", "Backyard has no probability")
    r.approximated("creator_notes", "appended to the description")
    r.dropped("lorebook.entries[3].sticky", "no timed effects")
    r.approximated("lorebook.entries[5].extensions.probability", "rounded")
    return r


def test_repeats_are_grouped_under_a_summary_line() -> None:
    assert _report().lines() == [
        "13 dropped, 2 approximated",
        "dropped lorebook.entries[*].extensions.probability (12 entries): "
        "Backyard has no probability",
        "approximated creator_notes: appended to the description",
        "dropped lorebook.entries[3].sticky: no timed effects",  # a group of one keeps its index
        "approximated lorebook.entries[5].extensions.probability: rounded",  # another reason
    ]


def test_verbose_shows_every_path_and_json_every_entry() -> None:
    r = _report()
    lines = r.lines(verbose=True)
    assert lines[0] == "13 dropped, 2 approximated" and len(lines) == 1 + 15
    assert "dropped lorebook.entries[11].extensions.probability: Backyard has no probability" \
        in lines
    assert len(r.to_list()) == 15
    summary = r.to_summary()
    assert summary["counts"] == {"dropped": 13, "approximated": 2}
    assert summary["groups"][0]["count"] == 12 and len(summary["groups"][0]["paths"]) == 12


def test_an_empty_report_says_so() -> None:
    assert LossReport().lines() == ["nothing lost"]
    assert LossReport().summary() == "nothing lost"


def test_entities_of_a_fanned_out_write_group_by_position() -> None:
    r = LossReport()
    r.dropped("[0].avatar", "no images")
    r.dropped("[1].avatar", "no images")
    assert r.lines()[1] == "dropped [*].avatar (2 items): no images"


def test_fields_of_one_object_lost_for_one_reason_share_a_line() -> None:
    r = LossReport()
    for key in ("avatar", "chat", "create_date"):
        r.dropped(f"app_data.sillytavern.{key}", "kept only for SillyTavern")
    r.dropped("creator", "no author")
    r.dropped("source", "no author")
    for i in range(4):
        r.dropped(f"lorebook.entries[{i}].use_regex", "keys and text only")
        r.dropped(f"lorebook.entries[{i}].sticky", "keys and text only")
    r.dropped("lorebook.entries[9].delay", "keys and text only")
    assert r.lines() == [
        "14 dropped",
        "dropped app_data.sillytavern.{avatar, chat, create_date}: kept only for SillyTavern",
        "dropped creator, source: no author",
        "dropped lorebook.entries[*].{use_regex, sticky} (4 entries): keys and text only",
        "dropped lorebook.entries[9].delay: keys and text only",
    ]
    assert len(r.lines(verbose=True)) == 15 and len(r.groups()) == 8  # --json stays complete

"""Chat times: every form real files use reads into one aware UTC time and writes back as it was."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from bunzai.chatkit.times import (
    exact_in,
    format_time,
    iso_seconds,
    parse_form,
    parse_time,
    restore,
    to_epoch_ms,
)

CASES = [
    # (stored value, form, the time it means)
    ("April 26, 2025 4:40pm", "st_meridiem", datetime(2025, 4, 26, 16, 40, tzinfo=UTC)),
    ("May 25, 2025 2:36am", "st_meridiem", datetime(2025, 5, 25, 2, 36, tzinfo=UTC)),
    ("June 19, 2023 12:05am", "st_meridiem", datetime(2023, 6, 19, 0, 5, tzinfo=UTC)),
    ("June 19, 2023 12:05pm", "st_meridiem", datetime(2023, 6, 19, 12, 5, tzinfo=UTC)),
    ("2025-04-26@16h40m30s", "st_humanized", datetime(2025, 4, 26, 16, 40, 30, tzinfo=UTC)),
    ("2023-4-21 @20h 02m 47s 124ms", "st_humanized_ms",
     datetime(2023, 4, 21, 20, 2, 47, 124000, tzinfo=UTC)),
    ("2026-01-11T11:40:38.254Z", "iso_js", datetime(2026, 1, 11, 11, 40, 38, 254000, tzinfo=UTC)),
    ("2025-06-12T19:03:56+02:00", "iso", datetime(2025, 6, 12, 17, 3, 56, tzinfo=UTC)),
    ("2024-03-21T12:00:00Z", "iso", datetime(2024, 3, 21, 12, tzinfo=UTC)),
    (1768132243455, "epoch_ms", datetime(2026, 1, 11, 11, 50, 43, 455000, tzinfo=UTC)),
    ("1677261616514", "epoch_ms_text", datetime(2023, 2, 24, 18, 0, 16, 514000, tzinfo=UTC)),
    ("May 03, 2026 14:20", "ooba", datetime(2026, 5, 3, 14, 20, tzinfo=UTC)),
]


@pytest.mark.parametrize(("raw", "form", "expected"), CASES, ids=[str(c[0]) for c in CASES])
def test_every_real_form_reads_as_an_aware_utc_time(raw: object, form: str,
                                                     expected: datetime) -> None:
    found = parse_form(raw)
    assert found is not None
    assert found == (expected, form)
    assert found[0].tzinfo is not None and found[0].utcoffset() == timedelta(0)


@pytest.mark.parametrize(("raw", "form", "expected"), CASES, ids=[str(c[0]) for c in CASES])
def test_the_original_text_is_restored_when_the_time_is_unchanged(raw: object, form: str,
                                                                  expected: datetime) -> None:
    assert restore(expected, raw, "iso_js") == raw
    later = expected + timedelta(minutes=3)
    assert restore(later, raw, form) == format_time(later, form)
    assert parse_time(format_time(later, form)) == later


def test_forms_written_fresh_follow_the_apps_writers() -> None:
    t = datetime(2025, 4, 6, 9, 5, 7, 45000, tzinfo=UTC)
    assert format_time(t, "st_meridiem") == "April 6, 2025 9:05am"
    assert format_time(t, "st_humanized") == "2025-04-06@09h05m07s"
    assert format_time(t, "iso_js") == "2025-04-06T09:05:07.045Z"
    assert format_time(t, "epoch_ms") == to_epoch_ms(t) == 1743930307045
    assert format_time(t, "ooba") == "Apr 06, 2025 09:05"


def test_a_mixed_file_compares_across_forms() -> None:
    times = [parse_time(v) for v in ("May 25, 2025 2:36am", 1748140560000,
                                     "2025-05-25T02:36:00.000Z", "2025-05-25@02h36m00s")]
    assert len(set(times)) == 1


def test_precision_is_reported_by_exact_in() -> None:
    t = datetime(2025, 1, 1, 10, 0, 30, tzinfo=UTC)
    assert exact_in(t, "iso_js") and exact_in(t, "epoch_ms")
    assert not exact_in(t, "st_meridiem")  # minutes only
    naive_zone = datetime(2025, 1, 1, 10, tzinfo=timezone(timedelta(hours=9)))
    assert parse_time(format_time(naive_zone, "iso_js")) == naive_zone


@pytest.mark.parametrize("raw", ["", "hello", "2025-13-40@99h00m00s", True, None, [], {},
                                 "April 31, 2025 4:40pm", 10**20, "Apr 06, 2025"])
def test_what_is_not_a_time_reads_as_none(raw: object) -> None:
    assert parse_time(raw) is None


@pytest.mark.parametrize(("raw", "seconds"), [
    ("2024-03-21T12:00:00.250Z", 1711022400),  # Backyard: milliseconds and Z
    ("2024-03-21T14:00:00.1234567+02:00", 1711022400),  # .NET: seven fraction digits
    ("2024-03-21T12:00:00", 1711022400),  # no zone: UTC
    (" 2024-03-21T12:00:00z ", 1711022400),
    ("1969-12-31T23:59:59Z", -1),  # before the epoch: the caller decides what it means
    ("soon", None),
    ("April 26, 2025 4:40pm", None),
    ("2024-13-01T00:00:00Z", None), ("", None), (None, None), (1711022400, None),
])
def test_card_dates_read_as_unix_seconds(raw: object, seconds: int | None) -> None:
    assert iso_seconds(raw) == seconds

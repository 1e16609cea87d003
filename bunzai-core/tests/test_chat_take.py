"""What chat readers take from a message: a text into its field, or kept as it was for the
writer; a time parsed, with its text kept so the writer writes it back unchanged."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

from bunzai.sdk.chats import put_kept, put_time, take_text, take_time


def test_take_text_holds_a_text_and_keeps_anything_else_as_it_was() -> None:
    fields: dict[str, Any] = {}
    raw: dict[str, Any] = {}
    take_text({"mes": "hi", "name": 7}, "mes", fields, "text", raw)
    take_text({"mes": "hi", "name": 7}, "name", fields, "speaker", raw)
    take_text({}, "id", fields, "id", raw)
    assert (fields, raw) == ({"text": "hi"}, {"name": 7})


def test_take_text_keeps_an_empty_text_when_the_field_wants_one() -> None:
    fields: dict[str, Any] = {}
    raw: dict[str, Any] = {}
    take_text({"data": "", "name": ""}, "data", fields, "text", raw)
    take_text({"data": "", "name": ""}, "name", fields, "speaker", raw, empty=False)
    assert (fields, raw) == ({"text": ""}, {"name": ""})


def test_put_kept_writes_a_value_else_what_the_reader_kept() -> None:
    fields: dict[str, Any] = {}
    raw: dict[str, Any] = {}
    source = {"name": "", "mes": None}
    take_text(source, "name", fields, "speaker", raw, empty=False)
    take_text(source, "mes", fields, "text", raw)
    out: dict[str, Any] = {}
    put_kept(out, "name", fields.get("speaker"), raw)
    put_kept(out, "mes", fields.get("text"), raw)
    put_kept(out, "extra", None, raw)
    assert out == source
    put_kept(out, "name", "Ada", raw)
    assert out["name"] == "Ada"


def test_take_time_parses_and_keeps_the_text_put_time_writes_back() -> None:
    record: dict[str, Any] = {}
    fields: dict[str, Any] = {}
    take_time({"send_date": "2024-03-01T10:00:00"}, "send_date", record, fields, "time",
              zone="utc")
    assert fields == {"time": datetime(2024, 3, 1, 10, tzinfo=UTC)}
    out: dict[str, Any] = {}
    put_time(out, "send_date", fields["time"], record, "epoch_ms", None, "time", "")
    assert out == {"send_date": "2024-03-01T10:00:00"}


def test_take_time_of_no_time_keeps_the_value_and_holds_none() -> None:
    record: dict[str, Any] = {}
    fields: dict[str, Any] = {}
    take_time({"createdAt": "soon"}, "createdAt", record, fields)
    take_time({}, "timestamp", record, fields, "created")
    assert (record, fields) == ({"createdAt": "soon"}, {"time": None})

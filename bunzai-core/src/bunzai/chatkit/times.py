"""Message times in every form real chat files use, read into one type and written back.

The canonical time is a timezone-aware :class:`datetime.datetime` in UTC.  Several forms carry
no zone: SillyTavern's ``"April 26, 2025 4:40pm"`` and its humanized ``"2025-04-26@16h40m30s"``
/ ``"2023-4-21 @20h 02m 47s 124ms"`` (the wall-clock time of the machine that wrote them:
SillyTavern takes them from ``Date``'s local getters), oobabooga's ``"May 03, 2026 14:20"``,
and ISO 8601 without an offset.  Those need a zone to become an instant: ``zone`` says which,
``"local"`` (this machine's, with its daylight saving) or ``"utc"``, and no zone given means
UTC.  A chat reader takes it from its ``zone`` option (local by default) and says so (see
:func:`zone_note`); :func:`is_wall` tells such a text from an instant.  Epoch milliseconds and
ISO 8601 with an offset name an instant and are converted exactly.

A reader keeps the original text (or number) in its format's passthrough as layout and a
writer calls :func:`restore`: when the canonical time still equals what that text reads as, the
text is written unchanged, so a same-format rewrite is byte-exact; when the time was edited or
came from another format, it is written in the form the writer asks for.

Import-light (``re`` and ``datetime`` only): detectors may call it.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from contextlib import suppress
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ..loss.report import LossReport

EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MS = timedelta(milliseconds=1)

MONTHS = ("January", "February", "March", "April", "May", "June", "July", "August",
          "September", "October", "November", "December")
_MONTH_NUMBER = {m.lower(): i for i, m in enumerate(MONTHS, 1)}
_MONTH_NUMBER.update({m[:3].lower(): i for i, m in enumerate(MONTHS, 1)})

# SillyTavern getMessageTimeStamp(): "June 19, 2023 2:20pm" (12-hour, minute precision)
_MERIDIEM = re.compile(r"([A-Za-z]+)\s(\d{1,2}),\s(\d{4})\s(\d{1,2}):(\d{1,2})(am|pm)",
                       re.IGNORECASE)
# SillyTavern humanizedDateTime(): "2024-07-12@01h31m37s"
_HUMANIZED = re.compile(r"(\d{4})-(\d{1,2})-(\d{1,2})@(\d{1,2})h(\d{1,2})m(\d{1,2})s")
# TavernAI / early SillyTavern humanizedISO8601DateTime(): "2023-4-21 @20h 02m 47s 124ms"
_HUMANIZED_MS = re.compile(
    r"(\d{4})-(\d{1,2})-(\d{1,2}) @(\d{1,2})h (\d{1,2})m (\d{1,2})s (\d{1,3})ms")
# oobabooga get_current_timestamp(): "May 03, 2026 14:20" (strftime "%b %d, %Y %H:%M")
_OOBA = re.compile(r"([A-Za-z]{3}) (\d{2}), (\d{4}) (\d{2}):(\d{2})")
_ISO = re.compile(r"\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?"
                  r"(Z|[+-]\d{2}:?\d{2})?")
_DIGITS = re.compile(r"\d{1,16}")

FORMS = ("epoch_ms", "epoch_ms_text", "iso", "iso_js", "st_meridiem", "st_humanized",
         "st_humanized_ms", "ooba")
"""Every form :func:`parse_form` can name and :func:`format_time` can write."""
WALL_FORMS = frozenset({"st_meridiem", "st_humanized", "st_humanized_ms", "ooba"})
"""Forms that write a wall-clock time and no zone (ISO 8601 without an offset is one too)."""
ZONES = ("local", "utc")
"""The zones a wall-clock time is read in: this machine's local time, or UTC."""

_MAX_MS = 253402300799999  # 9999-12-31T23:59:59.999Z


def from_epoch_ms(ms: int | float) -> datetime | None:
    """An epoch-milliseconds number as an aware UTC time (None when out of range)."""
    if isinstance(ms, bool) or not -_MAX_MS <= ms <= _MAX_MS or ms != ms:
        return None
    whole = int(ms)
    micro = round((ms - whole) * 1000) if isinstance(ms, float) else 0
    return EPOCH + timedelta(milliseconds=whole, microseconds=micro)


def to_epoch_ms(value: datetime) -> int:
    """Milliseconds since the epoch (sub-millisecond parts are dropped, as JavaScript does)."""
    return (_aware(value) - EPOCH) // _MS


def _aware(value: datetime) -> datetime:
    return value if value.tzinfo is not None else value.replace(tzinfo=UTC)


def _wall(year: str, month: int, day: str, hour: int, minute: str, second: str = "0",
          ms: str = "0") -> datetime | None:
    try:
        return datetime(int(year), month, int(day), hour, int(minute), int(second),
                        int(ms.ljust(3, "0")[:3]) * 1000, tzinfo=UTC)
    except ValueError:
        return None


def _in_zone(dt: datetime, zone: str | None) -> datetime:
    """A wall-clock time read as UTC (``dt``) taken as the same clock time in ``zone``."""
    if zone != "local":
        return dt
    try:
        return dt.replace(tzinfo=None).astimezone().astimezone(UTC)
    except (OverflowError, OSError, ValueError):
        return dt  # beyond what the platform's clock functions take: left as UTC


def parse_form(raw: Any, zone: str | None = None) -> tuple[datetime, str] | None:
    """``(time, form)`` for a time value as a chat file stores it, or None when it is no time.

    Numbers are epoch milliseconds; strings are tried against every known form.  A form that
    merely contains a time inside other text does not count: the whole string must match.  A
    wall-clock text is read in ``zone`` (``"local"`` or ``"utc"``; None: UTC).
    """
    found = _parse_form(raw)
    if found is None or zone != "local" or not is_wall(raw, found[1]):
        return found
    return _in_zone(found[0], zone), found[1]


def is_wall(raw: Any, form: str | None = None) -> bool:
    """Whether a stored time is a wall-clock text with no zone (``form``: its form, when the
    caller has it from :func:`parse_form`)."""
    if form is None:
        found = _parse_form(raw)
        if found is None:
            return False
        form = found[1]
    if form in WALL_FORMS:
        return True
    if form != "iso" or not isinstance(raw, str):
        return False
    m = _ISO.fullmatch(raw.strip())
    return m is not None and m.group(4) is None


def _parse_form(raw: Any) -> tuple[datetime, str] | None:
    if isinstance(raw, bool):
        return None
    if isinstance(raw, int | float):
        dt = from_epoch_ms(raw)
        return (dt, "epoch_ms") if dt is not None else None
    if not isinstance(raw, str):
        return None
    text = raw.strip()
    if not text:
        return None
    if _DIGITS.fullmatch(text):
        dt = from_epoch_ms(int(text))
        return (dt, "epoch_ms_text") if dt is not None else None
    m = _HUMANIZED_MS.fullmatch(text)
    if m:
        y, mo, d, h, mi, s, ms = m.groups()
        dt = _wall(y, int(mo), d, int(h), mi, s, ms.rjust(3, "0"))
        return (dt, "st_humanized_ms") if dt else None
    m = _HUMANIZED.fullmatch(text)
    if m:
        y, mo, d, h, mi, s = m.groups()
        dt = _wall(y, int(mo), d, int(h), mi, s)
        return (dt, "st_humanized") if dt else None
    m = _MERIDIEM.fullmatch(text)
    if m:
        month, d, y, h, mi, half = m.groups()
        number = _MONTH_NUMBER.get(month.lower())
        hour = int(h) % 12 + (12 if half.lower() == "pm" else 0)
        dt = _wall(y, number, d, hour, mi) if number else None
        return (dt, "st_meridiem") if dt else None
    m = _OOBA.fullmatch(text)
    if m:
        month, d, y, h, mi = m.groups()
        number = _MONTH_NUMBER.get(month.lower())
        dt = _wall(y, number, d, int(h), mi) if number else None
        return (dt, "ooba") if dt else None
    if _ISO.fullmatch(text):
        try:
            dt = datetime.fromisoformat(text)
        except ValueError:
            return None
        form = "iso_js" if text == format_time(_aware(dt), "iso_js") else "iso"
        return _aware(dt).astimezone(UTC), form
    return None


def parse_time(raw: Any, zone: str | None = None) -> datetime | None:
    """The canonical (aware, UTC) time of a stored value, or None when it is no time; a
    wall-clock text is read in ``zone`` (see :func:`parse_form`)."""
    found = parse_form(raw, zone)
    return found[0] if found else None


def zone_note(zone: str | None, example: Any) -> str:
    """What a reader says once per chat when it read wall-clock times (``example``, the first
    it met) in ``zone``: which zone, and how to ask for the other."""
    if zone == "local":
        here = datetime.now().astimezone()
        offset = here.strftime("%z")
        where = f"this machine's local time ({here.tzname()}, UTC{offset[:3]}:{offset[3:]} now)"
        other = "the reader option zone=utc reads them as UTC"
    else:
        where, other = "UTC", "the reader option zone=local reads them as this machine's time"
    return f"times are written without a zone ({example!r}): read as {where}; {other}"


def iso_seconds(raw: Any) -> int | None:
    """Unix seconds of an ISO 8601 date-time, or None when it is none.

    For the whole-second dates of character files (Backyard's ``…T…:…:….mmmZ``, Voxta's
    ``…+00:00`` with .NET's seven fraction digits): whatever :meth:`datetime.fromisoformat`
    reads (fractions are cut to microseconds) with ``Z``/``z`` or an offset; no zone reads as
    UTC, as in :func:`parse_form`.  Only text is a date here: not a JSON number, not the chat
    forms.
    """
    if not isinstance(raw, str) or not raw:
        return None
    text = raw.strip()
    if text.endswith(("z", "Z")):
        text = text[:-1] + "+00:00"
    try:
        moment = datetime.fromisoformat(text)
    except ValueError:
        return None
    try:
        return int(_aware(moment).timestamp())
    except (OverflowError, OSError, ValueError):
        return None


def format_time(value: datetime, form: str, zone: str | None = None) -> Any:
    """``value`` written in ``form`` (one of :data:`FORMS`); numbers for the epoch form.  A
    wall-clock form shows the clock time in ``zone`` (None: UTC)."""
    value = _aware(value).astimezone(UTC)
    if zone == "local" and form in WALL_FORMS:
        with suppress(OverflowError, OSError, ValueError):  # beyond the platform's clock
            value = value.astimezone()
    if form == "epoch_ms":
        return to_epoch_ms(value)
    if form == "epoch_ms_text":
        return str(to_epoch_ms(value))
    if form == "iso_js":
        return value.strftime("%Y-%m-%dT%H:%M:%S.") + f"{value.microsecond // 1000:03d}Z"
    if form == "iso":
        return value.isoformat().replace("+00:00", "Z")
    if form == "st_meridiem":
        hour = value.hour % 12 or 12
        half = "pm" if value.hour >= 12 else "am"
        return (f"{MONTHS[value.month - 1]} {value.day}, {value.year} "
                f"{hour}:{value.minute:02d}{half}")
    if form == "st_humanized":
        return value.strftime("%Y-%m-%d@%Hh%Mm%Ss")
    if form == "st_humanized_ms":
        return (f"{value.year}-{value.month}-{value.day} @{value.hour}h {value.minute:02d}m "
                f"{value.second:02d}s {value.microsecond // 1000}ms")
    if form == "ooba":
        return f"{MONTHS[value.month - 1][:3]} {value.day:02d}, {value.year} " \
               f"{value.hour:02d}:{value.minute:02d}"
    raise ValueError(f"unknown time form {form!r}")


def exact_in(value: datetime, form: str, zone: str | None = None) -> bool:
    """True when ``form`` can hold ``value`` without rounding it."""
    back = parse_time(format_time(value, form, zone), zone)
    return back == _aware(value)


def restore(value: datetime | None, raw: Any, form: str, zone: str | None = None) -> Any:
    """What a writer stores for ``value``: the source's own ``raw`` when it still reads as
    ``value`` in ``zone`` (a byte-exact rewrite), otherwise ``value`` in ``form``.  ``None``
    for no time."""
    if value is None:
        return None
    if raw is not None and parse_time(raw, zone) == _aware(value):
        return raw
    return format_time(value, form, zone)


def stored(value: datetime | None, raw: Any, form: str,
           zone: str | None = None) -> tuple[Any, bool]:
    """:func:`restore`, and whether what is stored reads back as ``value`` exactly (False when
    ``form`` rounds it: a writer reports that time as approximated)."""
    out = restore(value, raw, form, zone)
    if out is None or out is raw:
        return out, True
    assert value is not None
    return out, parse_time(out, zone) == _aware(value)


def take_time(obj: Mapping[str, Any], key: str, record: dict[str, Any], fields: dict[str, Any],
              field: str = "time", zone: str | None = None) -> None:
    """Read a time the way chat readers do: ``obj[key]``, when there is one, parsed into
    ``fields[field]`` (``None`` when it is no time; a wall-clock text read in ``zone``) and kept
    as written in ``record[key]``, from which :func:`put_time` writes it back unchanged."""
    if key in obj:
        record[key] = obj[key]
        fields[field] = parse_time(obj[key], zone)


def put_time(out: dict[str, Any], key: str, value: datetime | None,
             record: Mapping[str, Any], form: str, loss: LossReport | None, path: str,
             why: str, zone: str | None = None) -> bool:
    """Write a time under ``key`` the way chat writers do: :func:`stored` against the
    source's own text (``record[key]``), a time ``form`` rounds reported as approximated at
    ``path`` with ``why``; with no time, the source's own value stays as it was.  False when
    a time was written anew (in ``form``), True when it is the source's own value or there is
    none: a wall-clock text written back stays one."""
    when, exact = stored(value, record.get(key), form, zone)
    if when is not None:
        out[key] = when
        if not exact and loss is not None:
            loss.approximated(path, why)
        return when is record.get(key)
    if key in record:
        out[key] = record[key]
    return True


__all__ = ["EPOCH", "FORMS", "MONTHS", "WALL_FORMS", "ZONES", "exact_in", "format_time",
           "from_epoch_ms", "is_wall", "iso_seconds", "parse_form", "parse_time", "put_time",
           "restore", "stored", "take_time", "to_epoch_ms", "zone_note"]

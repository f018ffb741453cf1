"""The one clock. Everything time-dependent asks a Clock, so decay is testable without sleeping."""

from __future__ import annotations

import threading
from datetime import datetime, timedelta, timezone, tzinfo
from typing import Protocol


class Clock(Protocol):
    def now(self) -> datetime: ...


class SystemClock:
    """Wall-clock time, UTC."""

    manual = False

    def now(self) -> datetime:
        return datetime.now(timezone.utc)


class ManualClock:
    """A clock that moves only when told to (tests, replays, `clock.advance`)."""

    manual = True

    def __init__(self, start: datetime):
        self._now = to_utc(start)
        self._lock = threading.Lock()

    def now(self) -> datetime:
        with self._lock:
            return self._now

    def advance(self, hours: float) -> datetime:
        if hours < 0:
            raise ValueError("a clock only moves forward")
        with self._lock:
            self._now = self._now + timedelta(hours=hours)
            return self._now


def zone_named(name: str) -> tzinfo:
    """An IANA time zone, or '' for this machine's local zone; ValueError names an unknown one."""
    if not name:
        from tzlocal import get_localzone

        return get_localzone()
    from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(f"unknown time zone {name!r} (use an IANA name such as 'Europe/Madrid' or 'UTC')") from None


def to_utc(value: datetime) -> datetime:
    """Naive datetimes are taken as UTC."""
    if value.tzinfo is None:
        return value.replace(tzinfo=timezone.utc)
    return value.astimezone(timezone.utc)


def parse_time(text: str) -> datetime:
    """Parse ISO-8601 (a trailing Z allowed) into an aware UTC datetime."""
    value = datetime.fromisoformat(text)  # takes a trailing Z since Python 3.11
    # The stored form (format_time) is UTC already: a pack parses a few hundred of these.
    return value if value.tzinfo is timezone.utc else to_utc(value)


def format_time(value: datetime) -> str:
    """Canonical stored form: UTC, microseconds, 'Z' suffix — sortable as text."""
    return to_utc(value).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def on_writers_clock(stored: str, utc_offset: int | None, zone: tzinfo) -> datetime:
    """A stored (UTC) time on the clock of whoever wrote the message: its ``utc_offset`` minutes
    east of UTC where its export said (a chat message's), else ``zone`` (the user's). A relative
    date in it ("tomorrow" at 00:30 in Berlin) is of that day, not of the UTC day."""
    utc = parse_time(stored)
    return utc.astimezone(timezone(timedelta(minutes=utc_offset)) if utc_offset is not None else zone)


def shown_time(stored: str | None, *, seconds: bool = False, zone: tzinfo | None = None) -> str:
    """A stored time as a person reads it: in ``zone``, by default this machine's (``TZ`` sets it),
    the zone named.

    >>> madrid = zone_named("Europe/Madrid")
    >>> shown_time("2026-03-02T18:10:00.000000Z", zone=madrid), shown_time("2026-07-02T18:10:00Z", seconds=True, zone=madrid)
    ('2026-03-02 19:10 CET', '2026-07-02 20:10:00 CEST')
    """
    if not stored:
        return ""
    local = parse_time(stored).astimezone(zone)
    return local.strftime("%Y-%m-%d %H:%M:%S %Z" if seconds else "%Y-%m-%d %H:%M %Z")


def make_clock(start: str) -> SystemClock | ManualClock:
    return ManualClock(parse_time(start)) if start else SystemClock()

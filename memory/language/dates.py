"""Date and relative-date resolution: "last Tuesday", "two weeks ago", "next month" -> a date.

Every phrase is resolved against the moment the turn was said (its own timestamp),
never against "now", so an observation's referenced date never changes later.

The result is an ISO string at the phrase's own precision:

* a day ``2023-05-07`` (yesterday, last Friday, three days ago, 7 May 2023),
* a week ``2023-W18`` (last week, next week, two weeks ago),
* a month ``2023-04`` (last month, next month, in May),
* a season ``2022-summer``, a year ``2022`` (last year, in 2022, three years ago).

Vague amounts ("a few days ago", "the other day") resolve too and are marked
``approximate``. Written by hand: ``dateparser`` resolves single phrases, but its
``search_dates`` over free chat text finds dates in words like "may", "now" and
"second", which would put garbage dates on observations.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import date, datetime, timedelta

WEEKDAYS = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
MONTHS = (
    "january",
    "february",
    "march",
    "april",
    "may",
    "june",
    "july",
    "august",
    "september",
    "october",
    "november",
    "december",
)
_MONTH_ABBR = {m[:3]: i + 1 for i, m in enumerate(MONTHS)} | {"sept": 9}
SEASONS = ("spring", "summer", "fall", "autumn", "winter")
_NUMBERS = {
    "a": 1,
    "an": 1,
    "one": 1,
    "two": 2,
    "three": 3,
    "four": 4,
    "five": 5,
    "six": 6,
    "seven": 7,
    "eight": 8,
    "nine": 9,
    "ten": 10,
    "eleven": 11,
    "twelve": 12,
    "couple of": 2,
    "a couple of": 2,
    "few": 3,
    "a few": 3,
    "several": 4,
}
_VAGUE = {"few", "a few", "couple of", "a couple of", "several"}


@dataclass(frozen=True)
class DateRef:
    phrase: str  # as written, e.g. "last Friday"
    start: int  # character offset in the text
    referenced: str  # ISO at the phrase's precision (see module docstring)
    granularity: str  # day | week | month | season | year
    approximate: bool = False


def iso_week(day: date) -> str:
    year, week, _ = day.isocalendar()
    return f"{year}-W{week:02d}"


def _month_shift(day: date, months: int) -> str:
    index = day.year * 12 + (day.month - 1) + months
    return f"{index // 12}-{index % 12 + 1:02d}"


def _season_of(month: int) -> str:
    return (
        "winter",
        "winter",
        "spring",
        "spring",
        "spring",
        "summer",
        "summer",
        "summer",
        "fall",
        "fall",
        "fall",
        "winter",
    )[month - 1]


def _previous_season(day: date, name: str) -> str:
    """'last summer' said on 2023-05-08 -> 2022-summer; said on 2023-10-01 -> 2023-summer."""
    name = "fall" if name == "autumn" else name
    order = ("winter", "spring", "summer", "fall")
    current = _season_of(day.month)
    year = day.year if current != "winter" or day.month != 12 else day.year + 1  # Dec belongs to next year's winter
    index = year * 4 + order.index(current)
    target = index - 1
    while order[target % 4] != name:
        target -= 1
    return f"{target // 4}-{name}"


def _weekday_before(day: date, weekday: int, *, inclusive: bool = False) -> date:
    delta = (day.weekday() - weekday) % 7
    if delta == 0 and not inclusive:
        delta = 7
    return day - timedelta(days=delta)


def _weekday_after(day: date, weekday: int) -> date:
    delta = (weekday - day.weekday()) % 7 or 7
    return day + timedelta(days=delta)


_N = r"(?P<n>\d+|a couple of|couple of|a few|few|several|an?|one|two|three|four|five|six|seven|eight|nine|ten|eleven|twelve)"
_UNIT = r"(?P<unit>day|week|month|year)s?"
_WD = r"(?P<wd>" + "|".join(WEEKDAYS) + r")s?"
_MON = r"(?P<mon>" + "|".join(MONTHS) + r"|jan|feb|mar|apr|jun|jul|aug|sept?|oct|nov|dec)\.?"
_PATTERNS: list[tuple[str, re.Pattern[str]]] = [
    (kind, re.compile(rx, re.IGNORECASE))
    for kind, rx in [
        ("dmy", r"\b(?P<d>\d{1,2})(?:st|nd|rd|th)?\s+(?:of\s+)?" + _MON + r",?\s+(?P<y>(?:19|20)\d{2})\b"),
        ("mdy", r"\b" + _MON + r"\s+(?P<d>\d{1,2})(?:st|nd|rd|th)?,?\s+(?P<y>(?:19|20)\d{2})\b"),
        ("iso", r"\b(?P<y>(?:19|20)\d{2})-(?P<m>\d{2})-(?P<d>\d{2})\b"),
        ("before_yesterday", r"\bthe day before yesterday\b"),
        ("after_tomorrow", r"\bthe day after tomorrow\b"),
        ("yesterday", r"\byesterday\b|\blast night\b"),
        ("today", r"\btoday\b|\btonight\b|\bthis (?:morning|afternoon|evening)\b"),
        ("tomorrow", r"\btomorrow\b"),
        ("ago", r"\b" + _N + r"\s+" + _UNIT + r"\s+ago\b"),
        ("in_n", r"\bin\s+" + _N + r"\s+" + _UNIT + r"\b"),
        ("other_day", r"\bthe other day\b"),
        ("rel_wd", r"\b(?P<rel>last|this|next|this past|this coming|past)\s+" + _WD + r"\b"),
        ("rel_weekend", r"\b(?P<rel>last|this|next|this past|past)\s+weekend\b"),
        ("rel_unit", r"\b(?P<rel>last|this|next|past)\s+(?P<unit>week|month|year)\b"),
        ("rel_season", r"\b(?P<rel>last|this|next|past)\s+(?P<season>spring|summer|fall|autumn|winter)\b"),
        (
            "rel_month",
            r"\b(?P<rel>last|this|next|in|since|early|late|mid-?)\s+(?P<mon>"
            + "|".join(m.capitalize() for m in MONTHS)
            + r")\b",
        ),
        ("in_year", r"\b(?:in|since|back in)\s+(?P<y>(?:19|20)\d{2})\b"),
    ]
]
# "in May" must be the month, not the verb: rel_month is matched case-sensitively on the name.
_CASE_SENSITIVE = {"rel_month"}


def _amount(text: str) -> tuple[int, bool]:
    key = text.lower()
    if key.isdigit():
        return int(key), False
    return _NUMBERS[key], key in _VAGUE


Resolved = tuple[str, str, bool] | None  # (value, granularity, vague)
_DAY_OFFSETS = {"before_yesterday": -2, "yesterday": -1, "today": 0, "tomorrow": 1, "after_tomorrow": 2}


def _absolute(kind: str, g: dict, day: date, past: bool, future: bool) -> Resolved:
    month = int(g["m"]) if kind == "iso" else _month_number(g["mon"])
    try:
        return date(int(g["y"]), month, int(g["d"])).isoformat(), "day", False
    except ValueError:
        return None


def _day_word(kind: str, g: dict, day: date, past: bool, future: bool) -> Resolved:
    return (day + timedelta(days=_DAY_OFFSETS[kind])).isoformat(), "day", False


def _other_day(kind: str, g: dict, day: date, past: bool, future: bool) -> Resolved:
    return (day - timedelta(days=3)).isoformat(), "day", True


def _counted(kind: str, g: dict, day: date, past: bool, future: bool) -> Resolved:
    n, vague = _amount(g["n"])
    n = -n if kind == "ago" else n
    unit = g["unit"].lower()
    if unit == "day":
        return (day + timedelta(days=n)).isoformat(), "day", vague
    if unit == "week":
        return iso_week(day + timedelta(weeks=n)), "week", vague
    if unit == "month":
        return _month_shift(day, n), "month", vague
    return str(day.year + n), "year", vague


def _weekday(kind: str, g: dict, day: date, past: bool, future: bool) -> Resolved:
    weekday = WEEKDAYS.index(g["wd"].lower().rstrip("s") if g["wd"].lower() not in WEEKDAYS else g["wd"].lower())
    if past:
        return _weekday_before(day, weekday).isoformat(), "day", False
    if future:
        return _weekday_after(day, weekday).isoformat(), "day", False
    monday = day - timedelta(days=day.weekday())  # "this Friday": the one in this week
    return (monday + timedelta(days=weekday)).isoformat(), "day", False


def _weekend(kind: str, g: dict, day: date, past: bool, future: bool) -> Resolved:
    saturday = day - timedelta(days=day.weekday()) + timedelta(days=5)  # this week's
    if past:  # the most recent weekend already over (said on a Sunday: the one before)
        return (saturday - timedelta(days=7)).isoformat(), "day", False
    if future:
        return (saturday + timedelta(days=7 if day.weekday() >= 5 else 0)).isoformat(), "day", False
    return saturday.isoformat(), "day", False


def _unit(kind: str, g: dict, day: date, past: bool, future: bool) -> Resolved:
    step = -1 if past else 1 if future else 0
    unit = g["unit"].lower()
    if unit == "week":
        return iso_week(day + timedelta(weeks=step)), "week", False
    if unit == "month":
        return _month_shift(day, step), "month", False
    return str(day.year + step), "year", False


def _season(kind: str, g: dict, day: date, past: bool, future: bool) -> Resolved:
    name = g["season"].lower()
    if past:
        return _previous_season(day, name), "season", False
    season = "fall" if name == "autumn" else name
    year = day.year + (1 if future and _season_of(day.month) == season else 0)
    return f"{year}-{season}", "season", False


def _month(kind: str, g: dict, day: date, past: bool, future: bool) -> Resolved:
    month = _month_number(g["mon"])
    rel = (g.get("rel") or "").lower()
    if rel == "last":
        year = day.year if month < day.month else day.year - 1
    elif rel == "next":
        year = day.year if month > day.month else day.year + 1
    elif rel == "this":
        year = day.year
    else:  # "in May": the nearest May, the past one on a tie (recollection is the common case)
        ahead = (month - day.month) % 12
        year = (
            day.year + (1 if month < day.month else 0) if 0 < ahead < 6 else day.year - (1 if month > day.month else 0)
        )
    return f"{year}-{month:02d}", "month", False


def _year(kind: str, g: dict, day: date, past: bool, future: bool) -> Resolved:
    return g["y"], "year", False


_RESOLVERS = {
    "dmy": _absolute,
    "mdy": _absolute,
    "iso": _absolute,
    **dict.fromkeys(_DAY_OFFSETS, _day_word),
    "other_day": _other_day,
    "ago": _counted,
    "in_n": _counted,
    "rel_wd": _weekday,
    "rel_weekend": _weekend,
    "rel_unit": _unit,
    "rel_season": _season,
    "rel_month": _month,
    "in_year": _year,
}


def _resolve(kind: str, m: re.Match[str], day: date) -> Resolved:
    """(value, granularity, vague) of one match, resolved against the day it was said; None if impossible."""
    resolver = _RESOLVERS.get(kind)
    if resolver is None:
        return None
    g = m.groupdict()
    rel = (g.get("rel") or "").lower()
    return resolver(kind, g, day, rel in ("last", "past", "this past", "since"), rel in ("next", "this coming"))


def _month_number(name: str) -> int:
    key = name.lower().rstrip(".")
    if key in MONTHS:
        return MONTHS.index(key) + 1
    return _MONTH_ABBR[key[:4] if key.startswith("sept") else key[:3]]


def find_dates(text: str, said_at: datetime | date) -> list[DateRef]:
    """Every date phrase in ``text``, resolved against the moment it was said; in text order."""
    day = said_at.date() if isinstance(said_at, datetime) else said_at
    taken: list[tuple[int, int]] = []
    found: list[DateRef] = []
    for kind, pattern in _PATTERNS:  # ordered most specific first; overlaps go to the first
        if kind in _CASE_SENSITIVE:
            pattern = re.compile(pattern.pattern)
        for m in pattern.finditer(text):
            if any(m.start() < end and start < m.end() for start, end in taken):
                continue
            resolved = _resolve(kind, m, day)
            if resolved is None:
                continue
            taken.append((m.start(), m.end()))
            found.append(DateRef(m.group(0), m.start(), *resolved))
    return sorted(found, key=lambda r: r.start)


def human_date(iso: str) -> str:
    """'2023-05-07' -> '7 May 2023'; coarser forms are readable as they are ('2023-W18', '2023-05' -> 'May 2023')."""
    if re.fullmatch(r"\d{4}-\d{2}-\d{2}", iso):
        d = date.fromisoformat(iso)
        return f"{d.day} {MONTHS[d.month - 1].capitalize()} {d.year}"
    if re.fullmatch(r"\d{4}-\d{2}", iso):
        year, month = iso.split("-")
        return f"{MONTHS[int(month) - 1].capitalize()} {year}"
    if re.fullmatch(r"\d{4}-W\d{2}", iso):
        year, week = iso.split("-W")
        monday = date.fromisocalendar(int(year), int(week), 1)
        return f"week of {monday.day} {MONTHS[monday.month - 1].capitalize()} {monday.year}"
    if re.fullmatch(r"\d{4}-[a-z]+", iso):
        year, season = iso.split("-")
        return f"{season} {year}"
    return iso

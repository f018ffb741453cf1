"""Date and relative-date resolution: "last Tuesday", "two weeks ago", "next month" -> a date.

English, and the common phrases of German, Spanish and French ("gestern", "hace tres días", "la
semaine dernière"), read into the English phrases' resolvers.

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
# Placed before "in May" (rel_month): a month with its year, a part of a month, the nth weekday of one.
_MONTH_NAMES = "|".join(m.capitalize() for m in MONTHS)
_PATTERNS[5:5] = [
    (kind, re.compile(rx))  # month names capitalised: "may" stays a verb
    for kind, rx in [
        ("month_year", r"\b(?:in\s+)?(?P<mon>" + _MONTH_NAMES + r"),?\s+(?P<y>(?:19|20)\d{2})\b"),
        (
            "nth_wd",
            r"\b(?P<nth>first|second|third|fourth|last)\s+(?i:"
            + _WD
            + r")\s+(?:of|in)\s+(?P<mon>"
            + _MONTH_NAMES
            + r")\b",
        ),
        ("part_month", r"\b(?P<part>beginning|start|middle|end)\s+of\s+(?P<mon>" + _MONTH_NAMES + r")\b"),
    ]
]
# "in May" must be the month, not the verb: rel_month is matched case-sensitively on the name.
_CASE_SENSITIVE = {"rel_month"}

# The same phrases in German, Spanish and French, read into the English resolvers' words (_ENGLISH).
# Not "morgen" in "Guten Morgen" or "heute Morgen", nor "mañana" in "por la mañana": those are mornings.
_DE_N = r"(?P<n>\d+|einem|einer|zwei|drei|vier|fünf|sechs|sieben|acht|neun|zehn|ein paar|einigen)"
_ES_N = r"(?P<n>\d+|una?|dos|tres|cuatro|cinco|seis|siete|ocho|nueve|diez|un par de|unos|unas|algunos|algunas)"
_FR_N = r"(?P<n>\d+|une?|deux|trois|quatre|cinq|six|sept|huit|neuf|dix|quelques)"
_DE_UNIT = r"(?P<unit>tag(?:en)?|wochen?|monat(?:en)?|jahr(?:en)?)"
_ES_UNIT = r"(?P<unit>días?|dias?|semanas?|mes(?:es)?|años?)"
_FR_UNIT = r"(?P<unit>jours?|semaines?|mois|ans|an|années?)"
_DE_MON = r"(?P<mon>januar|jänner|februar|märz|april|mai|juni|juli|august|september|oktober|november|dezember)"
_ES_MON = r"(?P<mon>enero|febrero|marzo|abril|mayo|junio|julio|agosto|septiembre|setiembre|octubre|noviembre|diciembre)"
_FR_MON = r"(?P<mon>janvier|février|fevrier|mars|avril|mai|juin|juillet|août|aout|septembre|octobre|novembre|décembre|decembre)"
_DE_WD = r"(?P<wd>montag|dienstag|mittwoch|donnerstag|freitag|samstag|sonnabend|sonntag)"
_ES_WD = r"(?P<wd>lunes|martes|miércoles|miercoles|jueves|viernes|sábado|sabado|domingo)"
_FR_WD = r"(?P<wd>lundi|mardi|mercredi|jeudi|vendredi|samedi|dimanche)"
_ELSEWHERE = [
    # German
    ("before_yesterday", r"\bvorgestern\b"),
    ("after_tomorrow", r"\bübermorgen\b"),
    ("yesterday", r"\bgestern\b"),
    ("today", r"\bheute\b"),
    ("tomorrow", r"(?<!guten )(?<!heute )(?<!jeden )(?<!am )(?<!ganzen )(?<!schönen )\bmorgen\b"),
    ("ago", r"\bvor\s+" + _DE_N + r"\s+" + _DE_UNIT + r"\b"),
    ("in_n", r"\bin\s+" + _DE_N + r"\s+" + _DE_UNIT + r"\b"),
    (
        "rel_wd",
        r"\b(?P<rel>letzte[nrs]?|vergangene[nrs]?|nächste[nrs]?|kommende[nrs]?|diese[nrs]?)\s+" + _DE_WD + r"\b",
    ),
    (
        "rel_unit",
        r"\b(?P<rel>letzte[nrs]?|vergangene[nrs]?|nächste[nrs]?|kommende[nrs]?|diese[nrs]?)\s+(?P<unit>woche|monat|jahr)\b",
    ),
    ("named_month", r"\b(?P<rel>im|seit|letzten|nächsten)\s+" + _DE_MON + r"\b"),
    # Spanish
    ("before_yesterday", r"\banteayer\b|\bantes de ayer\b"),
    ("after_tomorrow", r"\bpasado mañana\b"),
    ("yesterday", r"\bayer\b"),
    ("today", r"\bhoy\b"),
    ("tomorrow", r"(?<!la )(?<!esta )(?<!cada )(?<!una )\bmañana\b"),
    ("ago", r"\bhace\s+" + _ES_N + r"\s+" + _ES_UNIT + r"\b"),
    ("in_n", r"\b(?:dentro de|en)\s+" + _ES_N + r"\s+" + _ES_UNIT + r"\b"),
    ("rel_wd", r"\b(?:el\s+)?" + _ES_WD + r"\s+(?P<rel>pasado|que viene|próximo)\b"),
    ("rel_wd", r"\b(?:el\s+)?(?P<rel>próximo)\s+" + _ES_WD + r"\b"),
    ("rel_unit", r"\b(?:la|el)\s+(?P<unit>semana|mes|año)\s+(?P<rel>pasad[oa]|que viene|próxim[oa])\b"),
    ("rel_unit", r"\b(?:la|el)\s+(?P<rel>próxim[oa])\s+(?P<unit>semana|mes|año)\b"),
    ("rel_unit", r"\b(?P<rel>este|esta)\s+(?P<unit>semana|mes|año)\b"),
    ("named_month", r"\b(?P<rel>en|desde)\s+" + _ES_MON + r"\b"),
    # French
    ("before_yesterday", r"\bavant-hier\b"),
    ("after_tomorrow", r"\baprès-demain\b"),
    ("yesterday", r"\bhier\b"),
    ("today", r"\baujourd'hui\b|\baujourd’hui\b"),
    ("tomorrow", r"\bdemain\b"),
    ("ago", r"\bil y a\s+" + _FR_N + r"\s+" + _FR_UNIT + r"\b"),
    ("in_n", r"\bdans\s+" + _FR_N + r"\s+" + _FR_UNIT + r"\b"),
    ("rel_wd", r"\b" + _FR_WD + r"\s+(?P<rel>dernier|prochain)\b"),
    ("rel_unit", r"\b(?:la|le|l['’])\s*(?P<unit>semaine|mois|année)\s+(?P<rel>derni[eè]re?|prochaine?|passée?)\b"),
    ("rel_unit", r"\b(?P<rel>cette|ce)\s+(?P<unit>semaine|mois|année)\b"),
    ("named_month", r"\b(?P<rel>en|depuis)\s+" + _FR_MON + r"\b"),
]
_PATTERNS += [(kind, re.compile(rx, re.IGNORECASE)) for kind, rx in _ELSEWHERE]


# ---- which patterns a text may match ------------------------------------------------------------
# Each pattern is a regex scan of the whole text, ~55 of them: ~170 µs a chat message, a third of
# storing one. Most messages name no date, so each pattern is tried only when the text holds the
# strings every match of it must hold ("weekend", a month's name, a digit), read from the pattern
# itself (re's own parser): a pattern added later is covered without a list to keep up.
_DIGIT = "\0digit"  # a decimal digit (\d), not a string


def _telling(keys: set[str]) -> tuple[int, float]:
    """How much a set of strings tells: longer ones are rarer in text (a digit counts as one)."""
    lengths = [1 if k == _DIGIT else len(k) for k in keys]
    return min(lengths), sum(lengths) / len(lengths)


def _must_hold(parsed) -> list[set[str]]:
    """Sets of casefolded strings such that every match of the parsed pattern holds one string of
    each set (none known: an empty list, and the pattern is always tried)."""
    from re import _constants as sre  # type: ignore[attr-defined]

    sets: list[set[str]] = []
    literal: list[str] = []
    for op, arg in [*parsed, (None, None)]:
        if op is sre.LITERAL:
            literal.append(chr(arg))
            continue
        if literal:
            sets.append({"".join(literal).casefold()})
            literal = []
        if op is sre.SUBPATTERN:
            sets += _must_hold(arg[3])
        elif op in (sre.MAX_REPEAT, sre.MIN_REPEAT) and arg[0] >= 1:
            sets += _must_hold(arg[2])
        elif op is sre.BRANCH:  # one of the branches: each must say what it holds
            branches = [_must_hold(branch) for branch in arg[1]]
            if all(branches):
                sets.append(set().union(*(max(b, key=_telling) for b in branches)))
        elif op is sre.IN and arg == [(sre.CATEGORY, sre.CATEGORY_DIGIT)]:
            sets.append({_DIGIT})
        elif op is sre.IN and all(kind is sre.LITERAL for kind, _ in arg):
            sets.append({chr(c).casefold() for _, c in arg})
    return sets


def _tried_when(pattern: re.Pattern[str]) -> list[frozenset[str]]:
    """The pattern's two most telling sets of strings (more cost more to look for than they save)."""
    try:
        from re import _parser  # type: ignore[attr-defined]

        sets = _must_hold(_parser.parse(pattern.pattern, pattern.flags))
    except (ImportError, AttributeError):  # another Python's re: every pattern is tried
        return []
    return [frozenset(s) for s in sorted(sets, key=_telling, reverse=True)[:2]]


_SCANS = [
    (kind, re.compile(pattern.pattern) if kind in _CASE_SENSITIVE else pattern, _tried_when(pattern))
    for kind, pattern in _PATTERNS
]
_LOOKED_FOR = sorted({key for _, _, sets in _SCANS for s in sets for key in s} - {_DIGIT})
_ANY_DIGIT = re.compile(r"\d")


def _scans_for(text: str) -> list[tuple[str, re.Pattern[str]]]:
    """The patterns ``text`` may match, in their order."""
    folded = text.casefold()
    held = {key for key in _LOOKED_FOR if key in folded}
    if _ANY_DIGIT.search(text):
        held.add(_DIGIT)
    return [(kind, pattern) for kind, pattern, sets in _SCANS if all(s & held for s in sets)]


# Each word the patterns above capture, as the English resolvers read it.
_ENGLISH: dict[str, str] = {
    **dict.fromkeys(
        "letzte letzten letzter letztes vergangene vergangenen vergangener vergangenes pasado pasada "
        "dernier dernière derniere passé passée".split(),
        "last",
    ),  # fmt: skip
    **dict.fromkeys(
        "nächste nächsten nächster nächstes kommende kommenden kommender kommendes próximo próxima "
        "prochain prochaine".split(),
        "next",
    ),  # fmt: skip
    "que viene": "next",
    **dict.fromkeys("diese diesen dieser dieses este esta cette ce".split(), "this"),
    **dict.fromkeys("im en".split(), "in"),
    **dict.fromkeys("seit desde depuis".split(), "since"),
    **dict.fromkeys("tag tagen día días dia dias jour jours".split(), "day"),
    **dict.fromkeys("woche wochen semana semanas semaine semaines".split(), "week"),
    **dict.fromkeys("monat monaten mes meses mois".split(), "month"),
    **dict.fromkeys("jahr jahren año años an ans année années".split(), "year"),
    **{
        m: e
        for names, e in zip(
            (
                "januar jänner enero janvier",
                "februar febrero février fevrier",
                "märz marzo mars",
                "april abril avril",
                "mai mayo",
                "juni junio juin",
                "juli julio juillet",
                "august agosto août aout",
                "september septiembre setiembre septembre",
                "oktober octubre octobre",
                "november noviembre novembre",
                "dezember diciembre décembre decembre",
            ),
            MONTHS,
        )
        for m in names.split()
    },  # fmt: skip
    **{
        w: e
        for names, e in zip(
            (
                "montag lunes lundi",
                "dienstag martes mardi",
                "mittwoch miércoles miercoles mercredi",
                "donnerstag jueves jeudi",
                "freitag viernes vendredi",
                "samstag sonnabend sábado sabado samedi",
                "sonntag domingo dimanche",
            ),
            WEEKDAYS,
        )
        for w in names.split()
    },  # fmt: skip
    **dict.fromkeys("einem einer un una une".split(), "one"),
    **dict.fromkeys("zwei dos deux".split(), "two"),
    **dict.fromkeys("drei tres trois".split(), "three"),
    **dict.fromkeys("vier cuatro quatre".split(), "four"),
    **dict.fromkeys("fünf cinco cinq".split(), "five"),
    **dict.fromkeys("sechs seis six".split(), "six"),
    **dict.fromkeys("sieben siete sept".split(), "seven"),
    **dict.fromkeys("acht ocho huit".split(), "eight"),
    **dict.fromkeys("neun nueve neuf".split(), "nine"),
    **dict.fromkeys("zehn diez dix".split(), "ten"),
    **dict.fromkeys(["un par de"], "couple of"),
    **dict.fromkeys(["ein paar", "einigen", "unos", "unas", "algunos", "algunas", "quelques"], "a few"),
}


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
    if not 1 <= day.year + (n // 12 if unit == "month" else n) <= 9999:  # "6000 years ago": outside the calendar
        return None
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


def _month_year(kind: str, g: dict, day: date, past: bool, future: bool) -> Resolved:
    return f"{g['y']}-{_month_number(g['mon']):02d}", "month", False


def _nth_weekday(kind: str, g: dict, day: date, past: bool, future: bool) -> Resolved:
    """'the first Sunday of March': that day in the nearest March (as 'in March')."""
    year, month = (int(x) for x in _month(kind, g, day, past, future)[0].split("-"))
    weekday = WEEKDAYS.index(g["wd"].lower().rstrip("s") if g["wd"].lower() not in WEEKDAYS else g["wd"].lower())
    nth = ("first", "second", "third", "fourth").index(g["nth"].lower()) if g["nth"].lower() != "last" else None
    if nth is None:
        last = date(year + month // 12, month % 12 + 1, 1) - timedelta(days=1)
        return _weekday_before(last, weekday, inclusive=True).isoformat(), "day", False
    first = date(year, month, 1)
    return (first + timedelta(days=(weekday - first.weekday()) % 7 + 7 * nth)).isoformat(), "day", False


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
    "named_month": _month,  # another language's, its name matched in any case ("im März", "en marzo")
    "in_year": _year,
    "month_year": _month_year,
    "nth_wd": _nth_weekday,
    "part_month": _month,
}


def _resolve(kind: str, m: re.Match[str], day: date) -> Resolved:
    """(value, granularity, vague) of one match, resolved against the day it was said; None if impossible."""
    resolver = _RESOLVERS.get(kind)
    if resolver is None:
        return None
    g = {key: _ENGLISH.get(value.lower(), value) if value else value for key, value in m.groupdict().items()}
    rel = (g.get("rel") or "").lower()
    try:
        return resolver(kind, g, day, rel in ("last", "past", "this past", "since"), rel in ("next", "this coming"))
    except (ValueError, OverflowError):  # "in 10000000 days", "6000 years ago": no date there is
        return None


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
    for kind, pattern in _scans_for(text):  # ordered most specific first; overlaps go to the first
        for m in pattern.finditer(text):
            if any(m.start() < end and start < m.end() for start, end in taken):
                continue
            resolved = _resolve(kind, m, day)
            if resolved is None:
                continue
            taken.append((m.start(), m.end()))
            found.append(DateRef(m.group(0), m.start(), *resolved))
    return sorted(found, key=lambda r: r.start)


_SEASON_MONTHS = {"spring": (3, 6), "summer": (6, 9), "fall": (9, 12), "winter": (12, 3)}


def day_range(ref: DateRef) -> tuple[date, date] | None:
    """The days a resolved phrase covers, [first, after last): a day with a day either side (a
    turn said after midnight, "last weekend" resolved to its Saturday), a week, a month, a season,
    a year; None outside the calendar ("6000 years ago").

    >>> [d.isoformat() for d in day_range(find_dates("last Thursday", date(2024, 10, 21))[0])]
    ['2024-10-16', '2024-10-19']
    >>> [d.isoformat() for d in day_range(find_dates("in March 2023", date(2024, 1, 1))[0])]
    ['2023-03-01', '2023-04-01']
    """
    try:
        return _day_range(ref.referenced, ref.granularity)
    except (ValueError, OverflowError):
        return None


def _day_range(value: str, granularity: str) -> tuple[date, date]:
    if granularity == "day":
        day = date.fromisoformat(value)
        return day - timedelta(days=1), day + timedelta(days=2)
    if granularity == "week":
        year, week = value.split("-W")
        monday = date.fromisocalendar(int(year), int(week), 1)
        return monday, monday + timedelta(days=7)
    if granularity == "month":
        year, month = (int(x) for x in value.split("-"))
        return date(year, month, 1), date(year + month // 12, month % 12 + 1, 1)
    if granularity == "season":
        year, name = value.split("-")
        first, after = _SEASON_MONTHS[name]
        if name == "winter":  # "2023-winter" is December 2022 to February 2023
            return date(int(year) - 1, 12, 1), date(int(year), 3, 1)
        return date(int(year), first, 1), date(int(year), after, 1)
    return date(int(value), 1, 1), date(int(value) + 1, 1, 1)


def without_date_phrases(text: str, dates: list[DateRef] | None = None) -> str:
    """``text`` with its date phrases blanked: a question's "last Thursday" is a time to look in,
    not words to match ("Thursday" would find every Thursday mentioned). ``dates``: its phrases
    when they were found already (find_dates).

    >>> without_date_phrases("Which investor did I meet last Thursday?")
    'Which investor did I meet  ?'
    """
    for ref in sorted(find_dates(text, date(2000, 1, 1)) if dates is None else dates, key=lambda r: -r.start):
        text = f"{text[: ref.start]} {text[ref.start + len(ref.phrase) :]}"
    return text


def days_asked_about(question: str, asked_at: datetime, dates: list[DateRef] | None = None) -> list[tuple[str, str]]:
    """The day ranges (ISO, [first, after last)) a question asks about that began by the time it
    was asked: "last Thursday", "in March 2023", "this year". A range still to come ("next month")
    is a plan, not a time to look in. ``dates``: its phrases found already at ``asked_at``.

    >>> days_asked_about("Which investor did I meet last Thursday?", datetime(2024, 10, 21))
    [('2024-10-16', '2024-10-19')]
    >>> days_asked_about("Where should we eat next month?", datetime(2024, 10, 21))
    []
    """
    asked = asked_at.date()
    out: list[tuple[str, str]] = []
    for ref in find_dates(question, asked_at) if dates is None else dates:
        days = day_range(ref)
        if days and days[0] <= asked:
            out.append((days[0].isoformat(), days[1].isoformat()))
    return out


def said_on(stamp: str) -> tuple[str, str]:
    """The day range a memory was said on (its ``created``, a stored UTC time), with a day either
    side like a resolved day."""
    first, after = _day_range(stamp[:10], "day")
    return first.isoformat(), after.isoformat()


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

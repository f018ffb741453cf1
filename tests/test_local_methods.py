"""The local provider's methods on real conversation text (LoCoMo): dates, sentences, cues."""

from __future__ import annotations

import re
from datetime import date, datetime, timedelta

import pytest

from agentmemd.memory.dates import WEEKDAYS, find_dates, iso_week
from conftest import evidence_ids, locomo_date

_DATE = r"(\d{1,2}) ?([A-Z][a-z]+),? (\d{4})"


def _day(m: re.Match) -> date | None:
    try:
        return datetime.strptime(f"{m.group(1)} {m.group(2)} {m.group(3)}", "%d %B %Y").date()
    except ValueError:  # the gold set has typos ("21 Janury 2022")
        return None


def gold_reference(answer: str) -> str | None:
    """A LoCoMo temporal answer in find_dates' notation, or None when it is not a date."""
    a = answer.strip().rstrip(".")
    if m := re.fullmatch(r"(?:on )?" + _DATE, a, re.I):
        return _day(m) and _day(m).isoformat()
    if m := re.fullmatch(r"(?:the |on a |on the )?week before " + _DATE, a, re.I):
        return _day(m) and iso_week(_day(m) - timedelta(days=7))
    if m := re.fullmatch(r"(?:the |on the )?weekend before " + _DATE, a, re.I):
        anchor = _day(m)
        return anchor and (anchor - timedelta(days=anchor.weekday()) - timedelta(days=2)).isoformat()
    if m := re.fullmatch(r"(?:the |on the )?(" + "|".join(WEEKDAYS) + r") before " + _DATE, a, re.I):
        weekday = WEEKDAYS.index(m.group(1).lower())
        anchor = _day(re.search(_DATE, a))
        return anchor and (anchor - timedelta(days=(anchor.weekday() - weekday) % 7 or 7)).isoformat()
    if m := re.fullmatch(r"(?:in )?((?:19|20)\d{2})", a, re.I):
        return m.group(1)
    if m := re.fullmatch(r"(?:in )?([A-Z][a-z]+),? ((?:19|20)\d{2})", a):
        try:
            return datetime.strptime(f"{m.group(1)} {m.group(2)}", "%B %Y").strftime("%Y-%m")
        except ValueError:
            return None
    if m := re.fullmatch(r"in (summer|winter|spring|fall) ((?:19|20)\d{2})", a, re.I):
        return f"{m.group(2)}-{m.group(1).lower()}"
    return None


def locomo_turn_index(sample: dict) -> dict[str, tuple[str, datetime]]:
    conv = sample["conversation"]
    out: dict[str, tuple[str, datetime]] = {}
    n = 1
    while f"session_{n}" in conv:
        when = locomo_date(conv[f"session_{n}_date_time"])
        for turn in conv[f"session_{n}"]:
            out[turn["dia_id"]] = (turn["text"], when)
        n += 1
    return out


def test_relative_dates_resolve_against_the_turns_own_time():
    monday = date(2023, 5, 8)
    got = {r.phrase: r.referenced for r in find_dates(
        "Yesterday was great; last Friday we ran, two weeks ago I moved, next month I start, "
        "last summer we camped, in 2022 I quit, on 7 May 2023 I went, last weekend we hiked.", monday)}
    assert got == {"Yesterday": "2023-05-07", "last Friday": "2023-05-05", "two weeks ago": "2023-W17",
                   "next month": "2023-06", "last summer": "2022-summer", "in 2022": "2022",
                   "7 May 2023": "2023-05-07", "last weekend": "2023-05-06"}
    # "may" the verb is not a month; nothing is resolved against today's date.
    assert find_dates("I may go there, and I might.", monday) == []
    assert find_dates("the other day", monday)[0].approximate


def test_locomo_temporal_answers_are_the_resolved_dates_of_their_evidence(locomo):
    """Every LoCoMo temporal question whose answer is a date and whose evidence turn names a
    date: the date resolved from that turn (against the session's own time) is the answer."""
    total = hits = 0
    misses = []
    for sample in locomo:
        turns = locomo_turn_index(sample)
        for qa in sample["qa"]:
            gold = gold_reference(str(qa.get("answer", ""))) if qa.get("category") == 2 else None
            evidence = [turns[e] for e in sorted(evidence_ids(qa)) if e in turns]
            if gold is None or not evidence:
                continue
            refs = [r.referenced for text, when in evidence for r in find_dates(text, when)]
            if not refs:
                continue  # the date is the session's own (no phrase in the turn)
            total += 1
            if gold in refs:
                hits += 1
            else:
                misses.append((qa["answer"], refs, evidence[0][0][:80]))
    print(f"resolved {hits}/{total}", *misses[:20], sep="\n")
    assert total >= 60
    assert hits / total >= 0.85, misses

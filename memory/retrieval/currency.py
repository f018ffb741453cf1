"""Current over stale (issue 16): of two memories on the same subject, the later one ranks first.

People restate what changed without saying what it replaces ("I'm now at 600 followers", a month
after "I just reached 500"), so an update often arrives as a later turn, not as a new version of
the old memory (memory.update, which takes the old one out of search altogether). The two are
usually phrased apart (their mutual cosine is low: measured on LongMemEval's knowledge-update
questions, "similar and newer" hardly ever fired), but they match the *question* the same way:
the words of the query that the earlier one holds, the later one holds too. That is the subject
here, judged per query, with no model and without reading what either says beyond its words.

A question about the past ("before", "used to", "at first", "previously") keeps the order of
relevance: there the earlier statement may be the answer.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

# The later memory must hold this share of the (IDF-weighted) query words the earlier one holds,
# and the words they share this share of the whole query's (a name alone is not a subject).
SAME_SUBJECT_SHARE = 0.6
QUERY_SHARE = 0.4

_ASKS_ABOUT_THE_PAST = re.compile(
    r"\b(before|previous(ly)?|used to|at first|originally|initially|earlier|formerly|first time|"
    r"in the past|back then|prior to)\b",
    re.IGNORECASE,
)


def asks_about_the_past(query: str) -> bool:
    """True when ``query`` asks what was so before, where an earlier statement may be the answer.

    >>> asks_about_the_past("What kitchen gadget did I buy before the Air Fryer?")
    True
    >>> asks_about_the_past("How many bikes do I currently own?")
    False
    """
    return bool(_ASKS_ABOUT_THE_PAST.search(query))


@dataclass(frozen=True)
class Ranked:
    """What the rule needs of a hit: its id, relevance, date and the query words it holds."""

    id: str
    similarity: float
    created: datetime
    terms: frozenset[str]


def same_subject(earlier: Ranked, later: Ranked, idf: Mapping[str, float]) -> bool:
    """Does ``later`` hold (most of) the query words ``earlier`` holds, by their IDF weight?"""
    held = sum(idf.get(t, 0.0) for t in earlier.terms)
    if held <= 0:
        return False
    shared = sum(idf.get(t, 0.0) for t in earlier.terms & later.terms)
    return shared >= SAME_SUBJECT_SHARE * held and shared >= QUERY_SHARE * sum(idf.values())


def current_first(ranked: Sequence[Ranked], idf: Mapping[str, float], margin: float) -> list[str]:
    """Ids of ``ranked`` (best first) with each later memory moved just above the first earlier one
    on the same subject that it trails by at most ``margin`` of similarity (0: the order as given).

    >>> from datetime import datetime as d
    >>> old = Ranked("old", 0.62, d(2023, 5, 27), frozenset({"instagram", "followers"}))
    >>> new = Ranked("new", 0.58, d(2023, 5, 28), frozenset({"instagram", "followers", "now"}))
    >>> other = Ranked("x", 0.60, d(2023, 6, 1), frozenset({"now"}))
    >>> current_first([old, other, new], {"instagram": 3.0, "followers": 2.0, "now": 0.5}, 0.1)
    ['new', 'old', 'x']
    """
    order = list(ranked)
    if margin <= 0:
        return [r.id for r in order]
    for later in list(order):
        here = order.index(later)
        for place, earlier in enumerate(order[:here]):
            if (
                later.created > earlier.created
                and earlier.similarity - later.similarity <= margin
                and same_subject(earlier, later, idf)
            ):
                order.insert(place, order.pop(here))
                break
    return [r.id for r in order]

"""Current over stale: of two memories on the same subject, the later one ranks first.

People restate what changed without saying what it replaces ("I'm now at 600 followers", a month
after "I just reached 500"), so an update often arrives as a later turn, not as a new version of
the old memory (memory.update, which takes the old one out of search altogether). The two are
usually phrased apart (their mutual cosine is low: measured on LongMemEval's knowledge-update
questions, "similar and newer" hardly ever fired), but they match the *question* the same way:
the words of the query that the earlier one holds, the later one holds too. That is the subject
here, judged per query, with no model and without reading what either says beyond its words.

A question about the past ("before", "used to", "at first", "previously") keeps the order of
relevance: there the earlier statement may be the answer.

Facts with one value at a time (where someone lives or works, their partner, name, phone, e-mail,
diet: memory/language/slots.py) need no shared word at all. "We finally got the keys to the new
place in Leeds" shares none with "The user lives in Berlin" or with "where do I live?", yet both
fill the residence slot of the same person; for a question about that slot in the present
(no past tense, year or "before"), the newest memory filling it holds the current value
(``newest_fillers``): its similarity is lifted to ``[retrieval] slot_share`` of the best
candidate's, so context.pack's relevance floor keeps it and search ranks it above the older ones.
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


_ASKS_ABOUT_NOW = re.compile(
    r"\b(?:now|currently|at the moment|these days|(?:do|does) \w+ (?:\w+ )?(?:have|own|keep|weigh|earn|pay))\b",
    re.IGNORECASE,
)


def asks_about_now(query: str) -> bool:
    """True when ``query`` asks what is so now, where a later statement replaces an earlier one
    even in a question that counts or lists ("How many Instagram followers do I have?").

    >>> asks_about_now("How many Instagram followers do I have?")
    True
    >>> asks_about_now("How many hikes has Joanna been on?")
    False
    """
    return bool(_ASKS_ABOUT_NOW.search(query))


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


@dataclass(frozen=True)
class Filler:
    """A memory that fills a fact slot a question asks about (memory/language/slots.py)."""

    id: str
    key: tuple[str, str]  # (slot, subject)
    created: datetime
    seq: int  # the order it was stored in, for memories of the same date


def newest_fillers(found: Sequence[Filler]) -> dict[str, tuple[str, str]]:
    """Id -> (slot, subject) of the newest memory filling each slot: for a question about the
    present, the one that holds the slot's current value, whatever words it shares with the older
    ones or with the question ("We finally got the keys to the new place in Leeds" against "The
    user lives in Berlin").

    >>> from datetime import datetime as d
    >>> berlin = Filler("berlin", ("residence", "self"), d(2022, 3, 1), 1)
    >>> leeds = Filler("leeds", ("residence", "self"), d(2023, 6, 1), 2)
    >>> rome = Filler("rome", ("residence", "my sister"), d(2023, 9, 1), 3)
    >>> newest_fillers([leeds, berlin, rome])
    {'leeds': ('residence', 'self'), 'rome': ('residence', 'my sister')}
    """
    newest: dict[tuple[str, str], Filler] = {}
    for f in found:
        held = newest.get(f.key)
        if held is None or (f.created, f.seq) > (held.created, held.seq):
            newest[f.key] = f
    return {f.id: key for key, f in newest.items()}

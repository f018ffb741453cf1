"""The one word tokenizer and the one stopword list.

A word is a run of letters or digits in any script, with inner apostrophes and hyphens kept
("don't", "Oscar's", "well-known", "estàs"). Every module that splits text into words asks
``words``; what FTS5 indexes is derived from it in ``fts_terms`` (memory/store), split the way
FTS5's unicode61 tokenizer splits.
"""

from __future__ import annotations

import re

WORD = re.compile(r"[^\W_]+(?:['’-][^\W_]+)*")

# English function words and contractions: not what a text is about. "may" is left out (the month).
STOPWORDS = frozenset(
    """a about above after again against all also am an and any are as at be because been before being
    below between both but by can could did do does doing done down during each ever few for from further
    had has have having he her here hers herself him himself his how i if in into is it its itself just
    me might more most must my myself no nor not now of off on once only or other our ours ourselves out
    over own same shall she should so some such than that the their theirs them themselves then there
    these they this those through to too under until up us very was we were what when where which while
    who whom why will with would yes you your yours yourself yourselves don't i'm it's that's you're
    i've i'll we're let's really s t""".split()
)


def words(text: str) -> list[str]:
    """The words of ``text``, lower-cased, in order (typographic apostrophes made plain)."""
    return [w.replace("’", "'") for w in WORD.findall(text.lower())]


def count_words(text: str) -> int:
    """How many words ``text`` has (a length measure: "don't" is one word)."""
    return len(WORD.findall(text))


def content_words(text: str) -> list[str]:
    """The words that say something: not stopwords, and longer than two letters (numbers count)."""
    return [w for w in words(text) if w not in STOPWORDS and (len(w) > 2 or w.isdigit())]

"""The lexical signal's policy: which of a query's terms are looked up, each term's weight, and
what a full match scores. The store only answers the queries (memory/store/database.py: the
namespace's term statistics and FTS5's BM25 of the memories holding the chosen terms).

    hits = bm25_hits(store, "default", fts_terms("where does Ana live"), max_postings=20_000)
    hits.scores       # seq -> BM25, higher is better
    hits.full_match   # what a memory of average length holding every term once would score
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import NamedTuple

from agentmemd.memory.core.text import QUERY_STOPWORDS
from agentmemd.memory.language.dates import DateRef, without_date_phrases
from agentmemd.memory.language.word_forms import other_forms
from agentmemd.memory.store.database import Store, distinct_terms, fts_terms_in_order
from agentmemd.memory.store.fts5_words import fts5_words

# Words that place a question in the present, not what it is about: "where do I work these days?"
# is about work; "days" and "year" looked up as words match every turn that counts days or years.
PRESENT_TIME = re.compile(
    r"\b(?:these days|this (?:year|month|week)|at the moment|right now|nowadays|lately|currently|"
    r"at present|any ?more|so far)\b",
    re.IGNORECASE,
)


class LookedUp(NamedTuple):
    terms: list[str]  # distinct, in order
    phrases: list[str]  # two terms said one after the other


def looked_up(query: str, dates: list[DateRef] | None = None) -> LookedUp:
    """What of a query is looked up: its words but stopwords, the phrases that only say "now"
    (PRESENT_TIME) and its date phrases (a time to look in: candidates.py); and each two of those
    terms said one after the other ("high school", "tea tree") as a phrase as well: a memory
    holding the phrase, not just both words apart ("on a high ... at school"), scores the
    phrase's BM25 beside the words'.

    >>> looked_up("Should I go to my high school reunion?")
    LookedUp(terms=['go', 'high', 'school', 'reunion'], phrases=['high school', 'school reunion'])

    ``dates``: the query's date phrases when they were found already (find_dates).
    """
    said = fts_terms_in_order(PRESENT_TIME.sub(" ", without_date_phrases(query, dates)))
    terms = distinct_terms(said)
    kept = set(terms)
    pairs = [f"{a} {b}" for a, b in zip(said, said[1:]) if a in kept and b in kept and a != b]
    return LookedUp(terms, list(dict.fromkeys(pairs)))


def other_forms_of(terms: list[str]) -> list[str]:
    """The irregular forms of the terms that are looked up beside them ("caught" -> "catch";
    word_forms.py), each once, and none the index already holds as a term's stem: FTS5's porter
    stemmer makes "going" "go", so looking it up beside "go" would weigh "go" twice, enough to
    push a question's rare word ("bar") down and its evidence out of the candidates.

    >>> other_forms_of(["go", "bar"])
    ['goes', 'gone', 'went']
    """
    have = set(terms)
    stems = {_stem(term) for term in terms}
    out: list[str] = []
    for term in terms:
        for form in other_forms(term):
            stem = _stem(form)
            if form not in have and form not in QUERY_STOPWORDS and stem not in stems:
                have.add(form)
                stems.add(stem)
                out.append(form)
    return out


def _stem(word: str) -> str:
    """``word`` as the full-text index holds it (FTS5's porter unicode61, read from FTS5 itself)."""
    held = fts5_words(word)[0]
    return held[0] if held else word


def fts5_idf(documents: int, containing: int) -> float:
    """FTS5's IDF (fts5_aux.c): log((N - n + 0.5) / (n + 0.5)), at least 1e-6."""
    value = math.log((documents - containing + 0.5) / (containing + 0.5))
    return value if value > 0 else 1e-6


@dataclass(frozen=True)
class Bm25Hits:
    """BM25 scores (higher is better) by memory seq, and ``full_match``: the score of a memory of
    average length holding each query term once (the sum of the terms' IDF), the scale on which
    a match is strong or weak whatever else the namespace holds."""

    scores: dict[int, float]
    full_match: float
    # Each query term's weight against the others: Lucene's IDF, log(1 + (N - n + 0.5) / (n + 0.5)),
    # positive however small the namespace (FTS5's is 1e-6 for a word in most of a few memories);
    # a term no memory holds is left out.
    idf: dict[str, float] = field(default_factory=dict)
    # BM25 of the query's own words alone, when other forms were looked up beside them: its best
    # hits stay candidates whatever the forms add (None: no form was looked up).
    plain: dict[int, float] | None = None


def bm25_hits(
    store: Store,
    namespace: str,
    terms: list[str],
    max_postings: int,
    context_weight: float = 1.0,
    phrases: list[str] | None = None,
) -> Bm25Hits:
    """FTS5's BM25 of every memory of the namespace matching a term, with the namespace's own
    statistics, and the score a full match would get.

    Work grows with the postings read, so a term found in more than ``max_postings`` of the
    namespace's memories is treated as a stop word (its BM25 weight is small anyway), and the
    others are taken rarest first while their document frequencies add up to at most
    ``max_postings``. A namespace smaller than that never drops a term.
    """
    forms = other_forms_of(terms)
    statistics = store.term_statistics(namespace, terms + forms) if terms else None
    if statistics is None:
        return Bm25Hits({}, 0.0)
    count, document_frequencies = statistics
    # A phrase reads the postings of both its words (with their positions): that is its share of
    # the budget (counting its own memories cost 1-3 ms a pack at 100,000; FTS5's BM25 counts them).
    df_of = dict(zip(terms + forms, document_frequencies))
    phrase_frequencies = [
        sum(df_of.get(word, 0) for word in words) if all(df_of.get(word) for word in words) else 0
        for words in (phrase.split(" ") for phrase in phrases or [])
    ]
    looked_up = [
        (df, i, t)
        for i, (t, df) in enumerate(zip(terms + forms + list(phrases or []), document_frequencies + phrase_frequencies))
    ]
    # A word's other form is a match of that word, and a phrase a closer match of its words, not
    # other terms: what a full match scores, and the terms' weights, are the query's own words'.
    frequencies = looked_up[: len(terms)]
    chosen: list[str] = []
    total = 0
    for df, _, term in sorted(looked_up):
        if df == 0:
            continue
        if total + df > max_postings:
            break
        chosen.append(term)
        total += df
    idf = {t: math.log(1 + (count - df + 0.5) / (df + 0.5)) for df, _, t in frequencies if df}
    full_match = sum(fts5_idf(count, df) for df, _, _ in frequencies)
    if not chosen:
        return Bm25Hits({}, full_match, idf)
    scores = store.fts_scores(namespace, chosen, context_weight)
    own = [t for t in chosen if t in terms]
    with_forms = any(t in forms for t in chosen)
    plain = store.fts_scores(namespace, own, context_weight) if own and with_forms else None
    return Bm25Hits(scores, full_match, idf, plain)

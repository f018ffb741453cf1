"""memory.search: the candidates ranked for a person reading them (seed 002, 5.1), with the
current value of a fact slot first, the first hits from distinct episodes, and the memories
made from the same turns folded into one.

    query = Query.parse("where does Ana live?", clock.now())
    Search(finder, store, config, clock).search(SearchParams(query=query.text), query)
"""

from __future__ import annotations

from datetime import datetime, timedelta

from agentmemd.memory.core.clock import Clock, parse_time
from agentmemd.memory.core.config import Config
from agentmemd.memory.core.models import (
    SearchHit,
    SearchParams,
    SearchResult,
    SignalsOut,
)
from agentmemd.memory.core.vocabulary import EPISODE, TIER_RANK
from agentmemd.memory.language.speakers import speakers_of
from agentmemd.memory.retrieval.candidates import CandidateFinder, Scored
from agentmemd.memory.retrieval.currency import Ranked, current_first
from agentmemd.memory.retrieval.query import Query
from agentmemd.memory.safety.secrets import mask
from agentmemd.memory.store.database import Store, fts_terms

DIVERSE_DEPTH = 5  # how many of a search's first hits are kept from distinct episodes where they can be


DIVERSE_WINDOW = 60  # ... chosen among this many of the best


def _current_slot_first(hits: list[Scored]) -> list[Scored]:
    """Each slot's current value (Scored.current) just above the first hit ranked before it that
    fills the same slot or matches as well (to 0.01): of equals, the current one first."""
    out = list(hits)
    for s in [h for h in hits if h.current]:
        here = next(i for i, h in enumerate(out) if h is s)
        above = next(
            (
                i
                for i, h in enumerate(out[:here])
                if h.slot == s.slot or h.signals.similarity - s.signals.similarity < 0.01
            ),
            here,
        )
        out.insert(above, out.pop(here))
    return out


def conversation_of(source: str | None) -> str | None:
    """The conversation a memory was made in (``conversation:NAME#…``), None for one made elsewhere.

    >>> conversation_of("conversation:chatA#turn:12"), conversation_of("USER.md")
    ('chatA', None)
    """
    if not source or not source.startswith("conversation:"):
        return None
    return source[len("conversation:") :].split("#", 1)[0]


class Search:
    def __init__(self, finder: CandidateFinder, store: Store, config: Config, clock: Clock):
        self.finder = finder
        self.store = store
        self.config = config
        self.clock = clock

    def search(self, p: SearchParams, query: Query) -> SearchResult:
        """``query``: ``p.query`` parsed (Query.parse)."""
        scored, qvec, _, idf, _ = self.finder.find(p.namespace, query, for_pack=False, listener=p.audience)
        if p.include_archived:
            archived = [
                r for r in self.store.archive_rows(p.namespace) if self.finder.may_hear(p.audience, r["audience"])
            ]
            scored += self.finder.score_rows(archived, qvec, {}, self.clock.now(), archived=True)
        floor = "archived" if p.include_archived else "warm"
        hits = [
            s
            for s in scored
            if TIER_RANK[s.tier] <= TIER_RANK[floor]
            and (p.types is None or s.row["type"] in p.types)
            and s.signals.match > 0  # a neighbour with nothing in common is not a hit
        ]
        # A search ranks by relevance (issue 16): what matches best comes first, and only matches
        # within 0.01 of each other are ordered by the injection score (priority, decay, use).
        # context.pack is what the weighted score decides; both stay visible in every hit.
        hits.sort(key=lambda s: (-round(s.signals.similarity, 2), -s.score, s.row["id"]))
        spread = query.spread  # its parts are in several conversations, the old as well as the new
        if not query.about_the_past and (not spread or query.about_now):
            hits = self._current_first(p.namespace, query, hits, idf, window=max(2 * p.k, 20))
        hits = _current_slot_first(hits)
        hits = self._episodes_apart(
            hits, by_own_match=not spread, depth=max(p.k, DIVERSE_DEPTH) if spread else DIVERSE_DEPTH
        )
        kept, folded = self._fold_same_turns(hits)
        stated = self.finder.stated([s.row for s in kept[: p.k]])
        felt = self.finder.affect.of([s.row["seq"] for s in kept[: p.k]])
        # A hit holding a secret the question does not ask for is found, its secret masked (unless the
        # query is the secret itself): a search (an MCP host's model reads it) never carries one a
        # pack would not.
        withheld = self.finder.secrets_kept_out(p.namespace, query, p.audience)
        known = self.finder.known_secrets.of(p.namespace) if withheld else {}
        return SearchResult(
            results=[
                SearchHit(
                    id=s.row["id"],
                    content=mask(s.row["content"], p.query, known) if s.row["seq"] in withheld else s.row["content"],
                    type=s.row["type"],
                    score=round(s.score, 6),
                    signals=SignalsOut(**s.signals.rounded()),
                    tier=s.tier,
                    source=s.row["source"],
                    created=s.row["created"],
                    folded=folded.get(s.row["id"], []),
                    stated=stated.get(s.row["id"], []),
                    emotion=felt[s.row["seq"]][2] if s.row["seq"] in felt else "neutral",
                )
                for s in kept[: p.k]
            ]
        )

    def _current_first(
        self, namespace: str, query: Query, hits: list[Scored], idf: dict[str, float], window: int
    ) -> list[Scored]:
        """The best ``window`` hits with a later memory on the subject of an earlier one just above
        it, when it matches nearly as well ([retrieval] newer_margin; currency.py)."""
        margin = self.config.retrieval.newer_margin
        top = hits[:window]
        if margin <= 0 or len(top) < 2 or not idf:
            return hits
        idf = _without_speakers_named(query, idf, top)
        if not idf:
            return hits
        held = self.store.terms_held(namespace, sorted(idf), [s.row["seq"] for s in top])
        by_id = {s.row["id"]: s for s in top}
        order = current_first(
            [
                Ranked(s.row["id"], s.signals.similarity, parse_time(s.row["created"]), frozenset(held[s.row["seq"]]))
                for s in top
            ],
            idf,
            margin,
        )
        return [by_id[i] for i in order] + hits[window:]

    def _episodes_apart(self, hits: list[Scored], by_own_match: bool, depth: int = DIVERSE_DEPTH) -> list[Scored]:
        """The first ``depth`` hits (a spread answer's: all k) from as many episodes as they can be: a hit of an episode
        already among them yields its place to the best hit of another episode, if that one is at
        most [retrieval] episode_diversity less similar (0: off). Evidence spread over several
        conversations is otherwise crowded out by one conversation's many near-equal turns.

        ``by_own_match`` (a question that does not ask for a list): the other episode's hit is
        judged by its own match, not by the similarity its episode's neighbours lent it; judged
        by that for every question, a neighbour that borrowed its score evicted the evidence
        (measured: LoCoMo evidence R@5 0.587 without episodes apart, 0.538 by similarity, 0.562
        by own match; LongMemEval_S session R@5 0.942, 0.967 and 0.963)."""
        margin = self.config.retrieval.episode_diversity
        if margin <= 0 or len(hits) < 2:
            return hits
        gap = timedelta(minutes=self.config.retrieval.episode_gap_minutes)
        when = {
            id(s): (conversation_of(s.row.get("source")), parse_time(s.row["created"])) for s in hits[:DIVERSE_WINDOW]
        }
        shown: list[tuple[str | None, datetime]] = []  # the conversation and date of the hits placed so far

        def new_episode(s: Scored) -> bool:
            """Of no episode shown yet: another conversation's, or apart in time from its own."""
            thread, at = when[id(s)]
            return all(thread != other or abs(at - t) > gap for other, t in shown)

        def judged(s: Scored) -> float:
            return s.signals.match if by_own_match else s.signals.similarity

        out: list[Scored] = []
        rest = hits[:DIVERSE_WINDOW]
        while rest and len(out) < depth:
            pick = rest[0]
            if not new_episode(pick):
                pick = next(
                    (s for s in rest if new_episode(s) and pick.signals.similarity - judged(s) <= margin),
                    pick,
                )
            rest = [s for s in rest if s is not pick]  # by identity: Scored equality would compare vectors
            out.append(pick)
            shown.append(when[id(pick)])
        return out + rest + hits[DIVERSE_WINDOW:]

    def _fold_same_turns(self, ranked: list[Scored]) -> tuple[list[Scored], dict[str, list[str]]]:
        """Hits, best first, without those made from a turn a better hit was made from (an episode
        and the observations of it say the same thing); kept id -> the ids folded into it."""
        if not any(s.row["type"] == EPISODE for s in ranked):
            return ranked, {}
        turns = self.store.turns_of([s.row["id"] for s in ranked])
        owner: dict[int, str] = {}  # turn -> the best hit made from it
        kept: list[Scored] = []
        folded: dict[str, list[str]] = {}
        for s in ranked:
            mine = turns.get(s.row["id"], set())
            into = next((owner[t] for t in sorted(mine) if t in owner), None)
            if into is not None:
                folded.setdefault(into, []).append(s.row["id"])
                continue
            kept.append(s)
            owner.update(dict.fromkeys(mine, s.row["id"]))
        return kept, folded


def _without_speakers_named(query: Query, idf: dict[str, float], hits: list[Scored]) -> dict[str, float]:
    """The query's words less the names of the hits' speakers it asks about: whose lines they are
    is not what they are about. Asked in English of a Spanish chat ("How much rent does Lucía
    pay?"), a question shares only the name with her lines, so each later line of hers counted
    as the same subject and went above the answer (the probe set's English questions through an
    import with multilingual-e5-small: R@5 0.33)."""
    people = {name for s in hits for name in speakers_of(s.row["content"], s.row.get("said_by"))}
    named = {word for name in query.names(people) for word in fts_terms(name)}
    return {term: weight for term, weight in idf.items() if term not in named} if named else idf

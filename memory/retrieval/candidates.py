"""Candidates for a search or a pack (seed 002, 5.1): the memories a query may reach, found
and scored. Top-N dense neighbours (the in-RAM index) ∪ top-N BM25 hits (∪ pinned persona and
relational memories ∪ recently used ones ∪ standing constraints ∪ a fact slot's fillers, for a
pack), the consolidation tree's levels the query's kind calls for, each scored by
``scoring.injection_score`` with its episode's match; only what the listener may hear.

    finder = CandidateFinder(store, embedder, clock, config)
    found = finder.find("default", Query.parse("where does Ana live?", clock.now()), for_pack=True, listener="user")
"""

from __future__ import annotations

import heapq
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timedelta, timezone
from typing import Any, NamedTuple

import numpy as np

from agentmemd.memory.core.clock import Clock, parse_time
from agentmemd.memory.core.config import Config
from agentmemd.memory.core.disclosure import USER, may_hear
from agentmemd.memory.core.stopwatch import Stopwatch
from agentmemd.memory.core.text import fold
from agentmemd.memory.core.vocabulary import EPISODE, IDENTITY_TYPES
from agentmemd.memory.language.dates import said_on
from agentmemd.memory.language.slots import AGENT, SELF
from agentmemd.memory.language.speakers import ROLE_SPEAKERS, agent_name, asks_about_own, said_by_assistant, speakers_of
from agentmemd.memory.language.word_forms import other_forms, regular_stem
from agentmemd.memory.retrieval.constraints import CONSTRAINT_PHRASES, states_constraint
from agentmemd.memory.retrieval.currency import Filler, newest_fillers
from agentmemd.memory.retrieval.decay import Tier, frequency_boosts, retention_many, tiers_many
from agentmemd.memory.retrieval.embeddings import Embedder
from agentmemd.memory.retrieval.lexical import bm25_hits
from agentmemd.memory.retrieval.query import Query
from agentmemd.memory.retrieval.query_kind import LEVELS, QueryKind
from agentmemd.memory.retrieval.scoring import (
    Signals,
    answer_lift,
    episode_similarity,
    injection_score,
    injection_scores,
    lexical_signal,
    park_recency,
    similarity_signal,
)
from agentmemd.memory.retrieval.tree import stated_leaves, tree_level
from agentmemd.memory.safety.known_secrets import KnownSecrets
from agentmemd.memory.store.affect_tables import AffectTables
from agentmemd.memory.store.channel_tables import ChannelTables
from agentmemd.memory.store.consolidation_tables import ConsolidationTables
from agentmemd.memory.store.database import Store, fts_terms_in_order, vector_or_zeros
from agentmemd.memory.store.persona_tables import PersonaTables
from agentmemd.memory.store.secret_tables import SecretTables
from agentmemd.memory.store.slot_tables import SlotTables
from agentmemd.memory.store.time_tables import TimeTables


@dataclass
class Scored:
    row: dict[str, Any]
    vector: np.ndarray
    signals: Signals
    score: float
    retention: float
    tier: Tier
    slot: tuple[str, str] | None = None  # the (slot, subject) a present question asks about that it fills
    current: bool = False  # ... and it is the newest memory filling it (currency.newest_fillers)


class Link(NamedTuple):
    seq: int  # a memory stored just before or after, of the same episode
    question: bool  # ... stored just before, and asking a question: the candidate may be its answer
    lifts: bool  # ... whose match lifts the candidate's (its neighbourhood)


class Candidates(NamedTuple):
    scored: list[Scored]
    qvec: np.ndarray
    kept_out: list[Scored]  # the best of those the listener may not hear
    idf: dict[str, float]  # the query's terms, each with its IDF in the namespace
    withheld: frozenset[int] = frozenset()  # a pack's: memories holding a secret it may not carry


KEPT_OUT_LOGGED = 20  # of the best memories a pack's listener may not hear, how many the log names


def _lexical_signals(bm25: dict[int, float], full_match: float) -> dict[int, float]:
    """seq -> lexical_signal, for every match at once."""
    return dict(zip(bm25, lexical_signal(np.fromiter(bm25.values(), np.float64, len(bm25)), full_match).tolist()))


def _hours_since(now: datetime, stamps: list[str]) -> np.ndarray:
    """Hours from each stored time (format_time's canonical UTC form, parsed by numpy at once;
    another form one by one) to ``now``."""
    if all(len(t) == 27 and t[-1] == "Z" for t in stamps):
        times = np.array([t[:-1] for t in stamps], dtype="datetime64[us]")
        reference = np.datetime64(now.astimezone(timezone.utc).replace(tzinfo=None), "us")
        return (reference - times) / np.timedelta64(3600, "s")
    return np.array([(now - parse_time(t)).total_seconds() / 3600.0 for t in stamps])


def _best_bm25(scores: dict[int, float], n: int) -> list[int]:
    return heapq.nsmallest(n, scores, key=lambda seq: (-scores[seq], seq))


class CandidateFinder:
    def __init__(self, store: Store, embedder: Embedder, clock: Clock, config: Config):
        self.store = store
        self.embedder = embedder
        self.clock = clock
        self.config = config
        # Query embeddings run here beside the request's SQLite lookups, as many at once as the model allows.
        self._embed_pool = ThreadPoolExecutor(
            max_workers=config.embedding.workers, thread_name_prefix="agentmemd-query"
        )
        self.tree_tables = ConsolidationTables(store)  # the consolidation tree's nodes and their leaves
        self.slots = SlotTables(store)  # which fact slot of whom each memory fills (m027)
        self.times = TimeTables(store)  # the days each memory speaks of (m028)
        self.channels = ChannelTables(store)  # the names the user goes by
        self.persona = PersonaTables(store)  # the name the agent's persona gives it
        self.affect = AffectTables(store)  # how each memory feels (m031)
        self.secrets = SecretTables(store)  # which memories hold a secret, of what kinds (m035)
        self.known_secrets = KnownSecrets(self.secrets)  # their values, to know them repeated

    def may_hear(self, listener: str | None, origin: str) -> bool:
        return may_hear(listener, origin, self.config.channels)

    def unheard(self, namespace: str, listener: str | None) -> set[int]:
        """The namespace's live memories a conversation of audience ``listener`` may not hear."""
        if listener is None:
            return set()
        kept = [a for a in self.store.audiences(namespace) if not self.may_hear(listener, a)]
        return self.store.seqs_heard_by_none_of(namespace, kept)

    def secrets_kept_out(self, namespace: str, query: Query, listener: str | None) -> set[int]:
        """The memories holding a secret a pack for ``query`` may not carry: every one, unless the
        question asks for that kind of secret and its owner asks (no audience named, or the user's
        own conversation); then those holding only the kinds asked for may come."""
        held = self.secrets.in_namespace(namespace)
        if not held:
            return set()
        asked = query.secret_kinds if listener in (None, USER) else frozenset()
        kept = {seq for seq, kinds in held.items() if not set(kinds) <= asked}
        may_come = [seq for seq in held if seq not in kept]
        if may_come and asks_about_own(query.text):
            kept |= self._anothers_secrets(namespace, may_come, query)
        return kept

    def _anothers_secrets(self, namespace: str, seqs: list[int], query: Query) -> set[int]:
        """Of these memories holding a secret asked for, those someone other than the user said
        (Marco's IBAN, sent in his chat) that the question does not name them for: "what's my
        IBAN?" asks for the user's own, "what's Marco's IBAN?" for his ("what's the studio's door
        code?", which Ana gave the team, is no one's own: it comes)."""
        rows = self.store.rows_by_seq(seqs)
        spoken = {r["seq"]: speakers_of(r["content"], r.get("said_by")) for r in rows}
        if not any(spoken.values()):
            return set()
        own = {USER} | ROLE_SPEAKERS | self.channels.user_names(namespace)
        return {seq for seq, names in spoken.items() if names and not names & own and not query.names(set(names))}

    def find(
        self,
        namespace: str,
        query: Query,
        *,
        for_pack: bool,
        listener: str | None = None,
        watch: Stopwatch | None = None,
    ) -> Candidates:
        """Scored candidates the listener may hear, the query vector, the best of those it may not
        (for the pack log: context.explain says why they were kept out) and the query's terms.
        ``watch``: each stage's time is lapped on it."""
        rc = self.config.retrieval
        watch = watch or Stopwatch()
        # The query embedding (torch, one thread) runs beside the SQLite work that does not need
        # it: the lexical, pinned, recent (and constraint) candidates and their rows.
        embedding = self._embed_pool.submit(self.embedder.embed_query, query.text)
        unheard = self.unheard(namespace, listener)
        withheld = frozenset(self.secrets_kept_out(namespace, query, listener)) if for_pack else frozenset()
        unheard |= withheld  # a secret is never packed unless asked for
        watch.lap("audience")
        hits = bm25_hits(
            self.store, namespace, list(query.terms), rc.fts_max_postings, rc.context_weight, list(query.phrases)
        )
        bm25 = hits.scores
        if unheard:
            bm25 = {seq: score for seq, score in bm25.items() if seq not in unheard}
        watch.lap("lexical")
        # Every match of the namespace is scored, so a vector candidate gets its BM25 too.
        seqs: dict[int, None] = dict.fromkeys(_best_bm25(bm25, rc.fts_candidates))
        if hits.plain:  # what the query's own words find stays a candidate, whatever its word forms add
            plain = {seq: score for seq, score in hits.plain.items() if seq not in unheard}
            seqs.update(dict.fromkeys(_best_bm25(plain, rc.fts_candidates)))
        if for_pack:
            seqs.update(dict.fromkeys(self.store.pinned(namespace, rc.pinned_candidates)))
            seqs.update(dict.fromkeys(self.store.recent(namespace, rc.recent_candidates)))
        advice = query.kind == "planning" and rc.constraint_share > 0
        constraints = (
            set(self.store.phrase_matches(namespace, CONSTRAINT_PHRASES, rc.constraint_candidates)) if advice else set()
        )
        seqs.update(dict.fromkeys(sorted(constraints)))
        # fact slots asked about in the present, of whom the memories say
        asked = self._as_recorded(namespace, query.slots) if rc.slot_share > 0 else []
        fillers: set[int] = set()  # for a fact slot asked about now, the newest memories filling it
        for slot, subject in asked:
            fillers.update(self.slots.newest(namespace, slot, subject, rc.slot_candidates))
        seqs.update(dict.fromkeys(sorted(fillers)))
        days = list(query.days)
        for first, after in days:  # what speaks of the days asked about, whatever its words
            seqs.update(dict.fromkeys(self.times.meeting(namespace, first, after, rc.time_candidates)))
        watch.lap("candidates")
        rows = self.store.rows_by_seq([s for s in seqs if s not in unheard])
        watch.lap("rows")
        # Also beside the embedding: these rows' episode links and every match's lexical signal.
        links = self._episode_links(namespace, rows, listener)
        lexical = _lexical_signals(bm25, hits.full_match)
        watch.lap("links")
        qvec = embedding.result()
        watch.lap("query embedding")  # what is left of it once the work beside it is done
        near = [seq for seq, _ in self.store.knn(namespace, qvec, rc.vector_candidates, unheard) if seq not in seqs]
        watch.lap("vector")
        # The in-RAM index takes a commit just after the store does: this read's snapshot may already
        # have a version superseded that the index still holds.
        rows = sorted(
            rows + [r for r in self.store.rows_by_seq(near) if r["superseded_by"] is None], key=lambda r: r["seq"]
        )
        watch.lap("rows")
        lexical = self._capped_by_coverage(lexical, hits.idf, rows)
        kept_out = self._kept_out(namespace, qvec, hits.scores, unheard) if unheard and for_pack else []
        rows = self._tree_levels(namespace, query.kind, rows)
        # Checked again on the rows themselves: nothing reaches a caller that its audience may not hear.
        rows = [r for r in rows if self.may_hear(listener, r["audience"])]
        watch.lap("coverage and levels")
        now = self.clock.now()
        # A spread answer's parts each stand alone: the neighbourhood lift would fill the hits with one
        # session's turns around the best part, where the question needs every session's.
        lift = not query.spread
        scored = self.score_rows(
            rows, qvec, lexical, now, namespace=namespace, listener=listener, links=links, lift=lift
        )
        watch.lap("scoring")
        self._weigh_speakers(scored, query)
        if days:
            self._weigh_days(scored, days)
        if constraints:
            self._lift_constraints(scored, constraints)
        if asked:
            self._lift_current(scored, set(asked), query)
        watch.lap("speakers, days and slots")
        return Candidates(scored, qvec, kept_out, hits.idf, withheld)

    def _capped_by_coverage(
        self, lexical: dict[int, float], idf: dict[str, float], rows: list[dict[str, Any]]
    ) -> dict[int, float]:
        """A partial match weighs by what it covers: a memory's lexical signal is at most the share
        of the query's terms (IDF-weighted; a word or one of its forms, by their regular stems) it
        holds, a word of its context counting [retrieval] context_weight, relative to the candidate
        that holds the most (a long question that no memory covers well keeps its best matches).
        Measured: LoCoMo plain R@5 / R@10 0.577 / 0.708 -> 0.590 / 0.711; LongMemEval_S session
        R@10 0.983 -> 0.988, turn R@10 0.934 -> 0.930."""
        matched = [r for r in rows if lexical.get(r["seq"], 0.0) > 0]
        if not matched or not idf:
            return lexical
        stems = {t: {regular_stem(f) for f in (t, *other_forms(t))} for t in idf}
        weight = self.config.retrieval.context_weight
        covered = {}
        for r in matched:
            said = set(map(regular_stem, fts_terms_in_order(r["content"])))
            around = set(map(regular_stem, fts_terms_in_order(r["context"] or ""))) - said
            covered[r["seq"]] = sum(
                w if stems[t] & said else weight * w if stems[t] & around else 0.0 for t, w in idf.items()
            )
        best = max(covered.values())
        if best <= 0:
            return lexical
        out = dict(lexical)
        for seq, held in covered.items():
            out[seq] = min(out[seq], held / best)
        return out

    def _matches(
        self,
        rows: list[dict[str, Any]],
        vectors: np.ndarray,
        qvec: np.ndarray,
        lexical: np.ndarray,
        namespace: str | None,
    ) -> np.ndarray:
        """Each row's own hybrid match: dense (a long text by its best window) with BM25.
        ``vectors``: the rows' embeddings (their first windows); ``lexical``: their lexical signals."""
        if not rows:
            return np.zeros(0)
        cosines = vectors @ qvec
        # A long text matches by its best window (embeddings.py); ``embedding`` is its first. The
        # in-RAM index holds a live memory's windows; an archived one's (and on PostgreSQL, which
        # keeps no index in RAM, every one's) are read from the store.
        seqs = [r["seq"] for r in rows]
        if namespace is not None and self.store.vectors_in_ram:
            best = self.store.best_cosines(namespace, seqs, qvec)
            cosines = np.maximum(cosines, np.fromiter((best.get(seq, -1.0) for seq in seqs), np.float64, len(seqs)))
        else:
            windows = self.store.window_vectors(seqs)
            for i, seq in enumerate(seqs):
                if seq in windows:
                    cosines[i] = max(cosines[i], float((windows[seq] @ qvec).max()))
        return similarity_signal(cosines, lexical, self.config.retrieval)

    def _episode_links(self, namespace: str, rows: list[dict[str, Any]], listener: str | None) -> dict[int, list[Link]]:
        """seq -> the memories stored just before and after it that are of its episode (dated
        within [retrieval] episode_gap_minutes of it) and that the listener may hear (else a private
        neighbour would lift what it says into other conversations), each marked when it is a
        question asked just before it (its answer is this one). A memory stored with its context
        links only to such a question. Needs no query: a pack works it out while the query embeds."""
        rc = self.config.retrieval
        lifting, answering = rc.neighbour_weight > 0, rc.answer_share > 0
        if not (lifting or answering) or not rows:
            return {}
        gap = timedelta(minutes=rc.episode_gap_minutes)
        # A memory stored with its context carries its episode already (measured on LoCoMo with two
        # previous turns as context: lifting those too took Recall@10 from 0.710 to 0.694), but it
        # may still answer the question before it (R@5 0.645 -> 0.661 there).
        bare = {r["seq"] for r in rows if not r["context"]}
        linked = [r["seq"] for r in rows if answering or r["seq"] in bare]
        # A conversation's episodes neighbour its own turns' episodes; what was stored between them
        # in another conversation (an import's interleaved chats, a proxy's parallel ones) is not
        # their episode, nor is an episode the neighbour of a memory stored outside conversations.
        episodes = {r["seq"] for r in rows if r["type"] == EPISODE and (r["source"] or "").startswith("conversation:")}
        in_conversation = self.store.conversation_adjacent([seq for seq in linked if seq in episodes])
        adjacent = {**self.store.adjacent(namespace, linked), **in_conversation}
        wanted = sorted({n for pair in adjacent.values() for n in pair if n is not None})
        hearable = {r["seq"]: r for r in self.store.neighbour_rows(wanted) if self.may_hear(listener, r["audience"])}
        created = {seq: parse_time(r["created"]) for seq, r in hearable.items()}
        created.update({r["seq"]: parse_time(r["created"]) for r in rows})
        links: dict[int, list[Link]] = {}
        for seq, (before, after) in adjacent.items():
            own = seq in in_conversation
            near = [
                Link(n, answering and n == before and bool(hearable[n]["asks"]), lifting and seq in bare)
                for n in (before, after)
                if n in hearable
                and (own or not hearable[n]["in_conversation"])
                and abs(created[n] - created[seq]) <= gap
            ]
            near = [link for link in near if link.question or link.lifts]
            if near:
                links[seq] = near
        return links

    def _neighbourhood(
        self,
        namespace: str,
        seqs: list[int],
        matches: np.ndarray,
        qvec: np.ndarray,
        lexical: dict[int, float],
        links: dict[int, list[Link]],
    ) -> tuple[np.ndarray, np.ndarray]:
        """Each candidate's best match among its episode links (0 for none), and the match of the
        question asked just before it (0 for none): a candidate's own match, another's from the
        in-RAM index and its BM25."""
        rc = self.config.retrieval
        known = dict(zip(seqs, matches.tolist()))
        others = sorted({link.seq for near in links.values() for link in near if link.seq not in known})
        if others:
            cosines = self.store.best_cosines(namespace, others, qvec)
            signals = similarity_signal(
                np.array([cosines.get(n, 0.0) for n in others]), np.array([lexical.get(n, 0.0) for n in others]), rc
            )
            known.update(zip(others, signals.tolist()))
        near = np.array(
            [max((known[link.seq] for link in links.get(seq, ()) if link.lifts), default=0.0) for seq in seqs]
        )
        asked = np.array(
            [max((known[link.seq] for link in links.get(seq, ()) if link.question), default=0.0) for seq in seqs]
        )
        return near, asked

    def score_rows(
        self,
        rows: list[dict[str, Any]],
        qvec: np.ndarray,
        lexical: dict[int, float],
        now: datetime,
        archived: bool = False,
        *,
        namespace: str | None = None,
        listener: str | None = None,
        links: dict[int, list[Link]] | None = None,
        lift: bool = True,
    ) -> list[Scored]:
        """Score rows, all at once as arrays; given the ``namespace`` (live rows: the in-RAM index
        holds their windows), each is lifted by its episode's match too (``links``: the episode
        links of those rows already worked out; the others' are worked out here), unless not
        ``lift`` (a question whose answer is spread: a part's neighbours are not its evidence)."""
        if not rows:
            return []
        n = len(rows)
        seqs = [r["seq"] for r in rows]
        blobs = [r["embedding"] for r in rows]
        if all(blobs):
            vectors = np.frombuffer(b"".join(blobs), dtype=np.float32).reshape(n, -1)
        else:  # some wait for their vector of a newly configured model: found by their words only
            vectors = np.stack([vector_or_zeros(blob, len(qvec)) for blob in blobs])
        lexical_of = np.fromiter((lexical.get(seq, 0.0) for seq in seqs), np.float64, n)
        matches = self._matches(rows, vectors, qvec, lexical_of, namespace)
        near = asked = np.zeros(n)
        if namespace:
            links = dict(links or {})
            missing = [r for r in rows if r["seq"] not in links]
            links.update(self._episode_links(namespace, missing, listener))
            near, asked = self._neighbourhood(namespace, seqs, matches, qvec, lexical, links)
            if not lift:
                near = np.zeros(n)
        cfg = self.config
        access_counts = np.fromiter((r["access_count"] for r in rows), np.float64, n)
        identity = np.fromiter((r["type"] in IDENTITY_TYPES for r in rows), bool, n)
        hours = _hours_since(now, [r["last_accessed"] for r in rows])
        values = retention_many(np.column_stack([identity, access_counts, hours]), cfg.decay)
        tokens = np.fromiter((r["token_len"] for r in rows), np.float64, n)
        lifted = episode_similarity(matches, near, tokens, cfg.retrieval)
        answered = answer_lift(lifted, asked, cfg.retrieval)
        similarities = lifted + answered
        priorities = np.fromiter((r["priority"] for r in rows), np.float64, n)
        frequencies = frequency_boosts(access_counts)
        recency = park_recency(hours, cfg.scoring)
        feelings = self.affect.of(seqs)
        arousal = np.fromiter((feelings[seq][1] if seq in feelings else 0.0 for seq in seqs), np.float64, n)
        scores = injection_scores(similarities, priorities, values, frequencies, cfg.scoring, recency, arousal)
        tiers = ["archived"] * n if archived else tiers_many(values, cfg.decay).tolist()
        return [
            Scored(
                row,
                vectors[i],
                Signals(
                    similarity=sim,
                    priority=prio,
                    decay=value,
                    frequency=freq,
                    match=match,
                    neighbourhood=hood,
                    answer=answer,
                    recency=recent,
                    affect=felt,
                ),
                score,
                value,
                tier,
            )
            for i, (row, sim, prio, value, freq, match, hood, answer, recent, felt, score, tier) in enumerate(
                zip(
                    rows,
                    similarities.tolist(),
                    priorities.tolist(),
                    values.tolist(),
                    frequencies.tolist(),
                    matches.tolist(),
                    near.tolist(),
                    answered.tolist(),
                    recency.tolist(),
                    arousal.tolist(),
                    scores.tolist(),
                    tiers,
                )
            )
        ]

    def _weigh_speakers(self, scored: list[Scored], query: Query) -> None:
        """Whose words the question asks for come first (speakers.py): a question that names some
        of the candidates' speakers takes another speaker's words as [retrieval] other_speaker_penalty
        less similar; the assistant's words count [retrieval] assistant_penalty less than people's,
        and the people's that much less when the question asks what the assistant said. The
        assistant's reply to a question is not lifted as its answer ([retrieval] answer_share)
        unless what the assistant said is asked: it answers the person, it is not their words."""
        rc = self.config.retrieval
        penalties = rc.other_speaker_penalty > 0 or rc.assistant_penalty > 0
        if not scored or not (penalties or any(s.signals.answer > 0 for s in scored)):
            return
        names = [speakers_of(s.row["content"], s.row.get("said_by")) for s in scored]
        if any(USER in n for n in names):  # "User" in what the agent reads; a question may call them "Javier"
            aliases = self.channels.user_names(scored[0].row["namespace"])
            names = [n | aliases if USER in n else n for n in names]
        # An episode of an assistant's turn is tagged with its role (memory/conversation/episodes.py).
        assistant = [
            said_by_assistant(n) or (s.row["type"] == EPISODE and '"assistant"' in (s.row["tags"] or ""))
            for n, s in zip(names, scored)
        ]
        wants_assistant = query.wants_assistant
        for s, by_assistant in zip(scored, assistant):
            if by_assistant and not wants_assistant and s.signals.answer > 0:
                s.signals.similarity -= s.signals.answer
                s.signals.answer = 0.0
                s.score = injection_score(s.signals, self.config.scoring)
        if not penalties:
            return
        people = {name for n, a in zip(names, assistant) if not a for name in n}
        named = query.names(people)
        if named == people - ROLE_SPEAKERS:  # every person named: none preferred
            named = set()
        for s, n, by_assistant in zip(scored, names, assistant):
            penalty = 0.0
            if by_assistant != wants_assistant and (by_assistant or wants_assistant and n):
                penalty = rc.assistant_penalty
            elif named and n and not by_assistant and not n & named:
                penalty = rc.other_speaker_penalty
            if penalty > 0:
                self._lower(s, "speaker", penalty)

    def _weigh_days(self, scored: list[Scored], days: list[tuple[str, str]]) -> None:
        """For a question about a time gone by, a memory that speaks of none of its days (the days
        recorded when it was stored, else the day it was said) counts [retrieval] time_penalty less
        similar; left alone when no candidate speaks of one (a question dated wrongly changes no order)."""
        penalty = self.config.retrieval.time_penalty
        if penalty <= 0 or not scored:
            return
        recorded = self.times.ranges_of([s.row["seq"] for s in scored])

        def meets(s: Scored) -> bool:
            spoken = recorded.get(s.row["seq"]) or [said_on(s.row["created"])]
            return any(first < q_after and q_first < after for first, after in spoken for q_first, q_after in days)

        met = [meets(s) for s in scored]
        if not any(met):
            return
        for s, ok in zip(scored, met):
            if not ok:
                self._lower(s, "time", penalty)

    def _lower(self, s: Scored, signal: str, share: float) -> None:
        """``s`` counted ``share`` less similar, what it lost kept as its ``signal``, its score redone."""
        setattr(s.signals, signal, s.signals.similarity * share)
        s.signals.similarity -= getattr(s.signals, signal)
        s.score = injection_score(s.signals, self.config.scoring)

    def _lift_constraints(self, scored: list[Scored], found: set[int]) -> None:
        """For a request for advice, a standing constraint (constraints.py) is relevant whatever it
        says: its similarity is lifted to [retrieval] constraint_share of the best candidate's (the
        constraints keep their order among themselves by their own match)."""
        best = max((s.signals.similarity for s in scored), default=0.0)
        share = self.config.retrieval.constraint_share
        for s in scored:
            if s.row["seq"] in found and states_constraint(s.row["content"]):
                lifted = share * best + (1 - share) * s.signals.similarity
                if lifted > s.signals.similarity:
                    s.signals.constraint = lifted - s.signals.similarity
                    s.signals.similarity = lifted
                    s.score = injection_score(s.signals, self.config.scoring)

    def _as_recorded(self, namespace: str, asked: tuple[tuple[str, str], ...]) -> list[tuple[str, str]]:
        """The (slot, subject) pairs asked about, with the subjects the memories record them under
        (slots.py): a name the user goes by in the namespace's chats is the user ("Where does Javier
        live?" in Javier's own memory); "you", the agent asked, is the user too where the namespace is
        the agent's own memory, its user going by the name its persona gives the agent (an agent in a
        society of agents, each the owner of the chats it took part in)."""
        if not asked:
            return []
        names = self.channels.user_names(namespace)
        agent = None
        if names and any(subject == AGENT for _, subject in asked):
            agent = agent_name(r["content"] for r in self.persona.persona_items(namespace))
        agents_own = agent is not None and agent.lower() in names  # the namespace is the agent's own memory
        out: list[tuple[str, str]] = []
        for slot, subject in asked:
            out.append((slot, subject))
            if subject in names or (subject == AGENT and agents_own):
                out.append((slot, SELF))
            if subject == SELF:  # the user's own words under a name they go by ("Lena said: …")
                out += [(slot, said) for said in self.slots.subjects(namespace, slot) if said in names]
            if subject not in (SELF, AGENT):  # "Lucia" asked, "Lucía Pérez" said it: her words, accents aside
                words = set(fold(subject).split())
                out += [
                    (slot, said) for said in self.slots.subjects(namespace, slot) if words <= set(fold(said).split())
                ]
        return list(dict.fromkeys(out))

    def _lift_current(self, scored: list[Scored], asked: set[tuple[str, str]], query: Query) -> None:
        """For a question about a fact slot in the present, the newest memory filling it is the
        current value, however few words it shares with the question or with the older ones it
        changes: its similarity is lifted to [retrieval] slot_share of the best candidate's (search
        then puts it above the older ones, _current_slot_first). Every filler is marked. Which slot
        of whom a memory fills was recorded when it was stored (slot_fills, m027); one that names
        another thing of the slot's kind than the question (a Netflix subscription for a question
        about the gym's) fills nothing the question asks."""
        fills = self.slots.fills_of([s.row["seq"] for s in scored])
        found: list[Filler] = []
        for s in scored:
            for key in sorted(fills.get(s.row["seq"], set()) & asked):
                if query.names_another(key[0], s.row["content"]):
                    continue
                s.slot = s.slot or key
                found.append(Filler(s.row["id"], key, parse_time(s.row["created"]), s.row["seq"]))
        current = newest_fillers(found)
        best = max((s.signals.similarity for s in scored), default=0.0)
        lifted = self.config.retrieval.slot_share * best
        for s in scored:
            if s.row["id"] in current:
                s.slot, s.current = current[s.row["id"]], True
                if lifted > s.signals.similarity:
                    s.signals.slot = lifted - s.signals.similarity
                    s.signals.similarity = lifted
                    s.score = injection_score(s.signals, self.config.scoring)

    def _tree_levels(self, namespace: str, kind: QueryKind, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
        """The candidates of the consolidation tree's levels the query's kind calls for (seed 002,
        5.5): a specific fact the memories only, a thematic question patterns and principles too,
        a planning or "what is X like" question the insights, with the memories under them."""
        levels = LEVELS[kind]
        kept = [r for r in rows if tree_level(r) in levels]
        if 3 in levels:
            insights = [r["id"] for r in kept if tree_level(r) == 3]
            have = {r["id"] for r in kept}
            under = {leaf for leaves in self.tree_tables.leaves_of(insights).values() for leaf in leaves} - have
            kept += [r for r in self.store.rows_by_id(sorted(under)) if r["namespace"] == namespace]
        return kept

    def stated(self, rows: list[dict[str, Any]]) -> dict[str, list[str]]:
        """node id -> the leaves whose words it states, for the consolidated nodes among ``rows``."""
        nodes = {r["id"]: r["content"] for r in rows if tree_level(r)}
        if not nodes:
            return {}
        leaves_of = self.tree_tables.leaves_of(sorted(nodes))
        content = {
            r["id"]: r["content"] for r in self.store.rows_by_id(sorted({x for v in leaves_of.values() for x in v}))
        }
        return {
            node: stated_leaves(text, [(leaf, content.get(leaf, "")) for leaf in leaves_of.get(node, [])])
            for node, text in nodes.items()
        }

    def _kept_out(self, namespace: str, qvec: np.ndarray, bm25: dict[int, float], unheard: set[int]) -> list[Scored]:
        """The memories a listener may not hear that would have been among its best candidates."""
        near = [seq for seq, _ in self.store.knn(namespace, qvec, KEPT_OUT_LOGGED) if seq in unheard]
        near += [seq for seq in _best_bm25(bm25, KEPT_OUT_LOGGED) if seq in unheard]
        rows = [r for r in self.store.rows_by_seq(list(dict.fromkeys(near))) if r["superseded_by"] is None]
        return self.score_rows(rows, qvec, {}, self.clock.now())

"""Memories: the library behind every socket method (and usable without the daemon).

Retrieval (seed 002, 5.1): candidates = top-N sqlite-vec neighbours ∪ top-N FTS5 hits
(∪ pinned persona/relational ∪ recently accessed, for packs); each is scored by
``scoring.injection_score``; packs add MMR and budgeted packing. Decay (5.7) is
computed from last access and access count at query time; the sweep moves items
below the Cold tier into the archive table.

Reads never change state. Reinforcement is explicit (``reinforce``), so the same
store, query and time always give the same pack.
"""

from __future__ import annotations

import heapq
import json
import unicodedata
import uuid
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import Any, NamedTuple

import numpy as np

from agentmemd.memory.core.clock import Clock, format_time, parse_time
from agentmemd.memory.core.config import Config
from agentmemd.memory.core.disclosure import may_hear, why_not
from agentmemd.memory.core.errors import Conflict, InvalidParams, NotFound
from agentmemd.memory.core.models import (
    AddParams,
    AddResult,
    ArchiveResult,
    MemoryRecord,
    PackItem,
    PackParams,
    PackResult,
    ReinforceParams,
    ReinforceResult,
    SearchHit,
    SearchParams,
    SearchResult,
    ShareParams,
    SignalsOut,
    SimilarMemory,
    UpdateParams,
    UpdateResult,
)
from agentmemd.memory.core.text import content_words
from agentmemd.memory.core.threads import RunOnStore, run_here
from agentmemd.memory.core.tokens import count_tokens_many
from agentmemd.memory.core.vocabulary import EPISODE, TIER_RANK
from agentmemd.memory.language.slots import SLOT_PHRASES, asked_slots, filled_slots, mentions_the_past
from agentmemd.memory.retrieval.constraints import CONSTRAINT_PHRASES, states_constraint
from agentmemd.memory.retrieval.currency import Filler, Ranked, asks_about_the_past, current_first, newest_fillers
from agentmemd.memory.retrieval.decay import (
    IDENTITY_TYPES,
    Tier,
    frequency_boost,
    reinforcement_amount,
    retention,
    retention_many,
    tier_of,
    tiers_many,
)
from agentmemd.memory.retrieval.embeddings import Embedder, normalise_rows
from agentmemd.memory.retrieval.pack_log import PackLog
from agentmemd.memory.retrieval.packing import PackCandidate, build_pack
from agentmemd.memory.retrieval.query_kind import LEVELS, QueryKind, query_kind
from agentmemd.memory.retrieval.scoring import (
    SIGNAL_NAMES,
    Signals,
    effective_priority,
    episode_similarity,
    injection_score,
    lexical_signal,
    similarity_signal,
)
from agentmemd.memory.retrieval.tree import stated_leaves, tree_level
from agentmemd.memory.store.consolidation_tables import ConsolidationTables
from agentmemd.memory.store.database import Store, from_blob, fts_terms, indexed_text
from agentmemd.memory.store.history_tables import HistoryTables


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


class Candidates(NamedTuple):
    scored: list[Scored]
    qvec: np.ndarray
    kept_out: list[Scored]  # the best of those the listener may not hear
    idf: dict[str, float]  # the query's terms, each with its IDF in the namespace


DIVERSE_DEPTH = 5  # how many of a search's first hits are kept from distinct episodes where they can be
DIVERSE_WINDOW = 60  # ... chosen among this many of the best
SLOT_READ = 30  # for a fact slot asked about now, the most similar candidates read for it (beside its phrases')
KEPT_OUT_LOGGED = 20  # of the best memories a pack's listener may not hear, how many the log names


def _why_not(s: Scored, eligible: bool, chosen: bool, excluded: set[str]) -> str | None:
    """Why a candidate is not in the pack, for context.explain (None: it is), when the pack itself
    gave no reason (build_pack's ``reasons`` name the budget, a quota, a near duplicate, the floor)."""
    if chosen:
        return None
    if s.row["id"] in excluded:
        return "excluded by the caller (already in the context)"
    if not eligible:
        return f"tier {s.tier}: only active memories (and persona/relational ones) are packed"
    # Not reached by the filling pass (at most by the quotas' pass): the pack was full first.
    return "budget: the pack was full before MMR reached it"


def _log_columns(
    scored: list[Scored],
    eligible: set[str],
    mmr_rank: dict[str, int],
    chosen: set[str],
    excluded: set[str],
    why: dict[str, str],
) -> dict[str, Any]:
    """Candidates as the pack log keeps them for context.explain: one list per field (a few hundred
    dicts per pack cost more than the pack's own work; pack_log.expand makes the dicts again)."""
    ids = [s.row["id"] for s in scored]
    ranks = [mmr_rank.get(i) for i in ids]
    flags = [i in eligible for i in ids]
    return {
        "id": ids,
        "type": [s.row["type"] for s in scored],
        "tier": [s.tier for s in scored],
        "score": np.round([s.score for s in scored], 6).tolist(),
        "signals": dict(
            zip(
                SIGNAL_NAMES,
                np.round([[getattr(s.signals, n) for n in SIGNAL_NAMES] for s in scored], 6)
                .reshape(-1, len(SIGNAL_NAMES))
                .T.tolist(),
            )
        ),
        "eligible": flags,
        "mmr_rank": ranks,
        "chosen": [i in chosen for i in ids],
        "why_not": [why.get(i) or _why_not(s, ok, i in chosen, excluded) for s, i, ok in zip(scored, ids, flags)],
    }


def _tier_counts(tiers: np.ndarray) -> dict[str, int]:
    """Live memories by tier now; one below the Cold tier waits for the sweep to archive it."""
    found = dict(zip(*np.unique(tiers, return_counts=True))) if len(tiers) else {}
    return {
        "active": int(found.get("active", 0)),
        "warm": int(found.get("warm", 0)),
        "cold": int(found.get("cold", 0)),
        "archived_pending_sweep": int(found.get("archived", 0)),
    }


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


def _best_first(s: Scored) -> tuple[float, str]:
    return (-s.score, s.row["id"])


def _best_bm25(scores: dict[int, float], n: int) -> list[int]:
    return heapq.nsmallest(n, scores, key=lambda seq: (-scores[seq], seq))


def new_id() -> str:
    return "m" + uuid.uuid4().hex[:15]


# What memory.add looks at for a duplicate (the nearest live memories by embedding), and the closest it
# names. MiniLM's cosines: the same sentence 1.0; "lives in Berlin" / "lives in Lisbon now" 0.58, "works
# at Google" / "started a new job at Siemens" 0.44; unrelated facts about the user 0.15-0.25.
DUPLICATE_LOOKUP = 20
RECENT_RECHECKED = 8  # the newest memories, looked at again on the store thread (stored since the look)
SIMILAR_SHOWN = 3
SIMILAR_FLOOR = 0.4
SIMILAR_CHARS = 300


def said_the_same(a: str, b: str) -> bool:
    """The same text but for case, Unicode compatibility forms and spacing."""

    def normal(text: str) -> str:
        return " ".join(unicodedata.normalize("NFKC", text).casefold().split())

    return normal(a) == normal(b)


class Memories:
    def __init__(
        self, store: Store, embedder: Embedder, clock: Clock, config: Config, run_on_store: RunOnStore = run_here
    ):
        self.store = store
        self.embedder = embedder
        self.clock = clock
        self.config = config
        self.pack_log = PackLog(store, clock, config.pack, run_on_store)  # with a store thread: beside the requests
        # Query embeddings run here beside the request's SQLite lookups, as many at once as the model allows.
        self._embed_pool = ThreadPoolExecutor(
            max_workers=config.embedding.workers, thread_name_prefix="agentmemd-query"
        )
        self.tree_tables = ConsolidationTables(store)  # the consolidation tree's nodes and their leaves
        self.history = HistoryTables(store)  # what happened to each memory after it was stored (m019)

    # ---- writes -------------------------------------------------------------

    def add_many(
        self, items: list[AddParams], *, field_prefix: str = "items", vectors: list[np.ndarray | None] | None = None
    ) -> list[str]:
        """Store memories in one transaction. ``vectors``: embeddings the caller already made (off the
        store thread), one per item or None; the others are embedded here."""
        vectors = self._vectors_for(items, field_prefix, vectors)
        token_lens = count_tokens_many([p.content for p in items])
        now = format_time(self.clock.now())
        ids: list[str] = []
        with self.store.transaction():
            for p, vec, ntok in zip(items, vectors, token_lens):
                memory_id = new_id()
                self.store.insert(
                    {
                        "id": memory_id,
                        "namespace": p.namespace,
                        "content": p.content,
                        "context": p.context,
                        "type": p.type,
                        "priority": effective_priority(p.priority, p.type, self.config.scoring),
                        "source": p.source,
                        "tags": p.tags,
                        "created": format_time(p.created) if p.created else now,
                        "ingested": now,
                        # Ingestion is an access: importing old history must not archive it on arrival.
                        "last_accessed": now,
                        "access_count": 1.0,
                        "version": 1,
                        "supersedes": None,
                        "superseded_by": None,
                        "token_len": ntok,
                        "audience": p.audience,
                        "origin_chat": p.origin_chat,
                        "said_by": p.said_by,
                    },
                    vec,
                )
                ids.append(memory_id)
        return ids

    def add(self, item: AddParams) -> str:
        return self.add_many([item], field_prefix="")[0]

    def nearest_for_add(self, p: AddParams, vectors: np.ndarray) -> list[tuple[dict[str, Any], float]]:
        """(row, cosine) of the live memories nearest ``p`` but episodes (the turns as said), nearest
        first: memory.add's look for one that says the same, read beside the store thread (its
        product over the namespace's vectors takes milliseconds at 20,000 memories)."""
        hits = self.store.knn(p.namespace, vectors[0], DUPLICATE_LOOKUP)
        rows = {row["seq"]: row for row in self.store.rows_by_seq([seq for seq, _ in hits])}
        return [
            (rows[seq], sim)
            for seq, sim in hits
            if seq in rows and rows[seq]["superseded_by"] is None and rows[seq]["type"] != EPISODE
        ]

    def add_unless_stored(
        self, p: AddParams, vectors: np.ndarray, near: list[tuple[dict[str, Any], float]]
    ) -> AddResult:
        """memory.add on the store thread: ``p`` stored, unless a live memory of its namespace, type and
        audience already says the same (``said_the_same``): then that one's id, ``duplicate``, and
        nothing stored. ``near``: ``nearest_for_add``'s; what was stored since it was read (the newest
        few) is looked at here, so two equal adds at once store one memory. Either way the closest
        memories its audience may hear, for a caller that meant to correct one (memory.update)."""

        def same(row: dict[str, Any]) -> bool:
            return row["type"] == p.type and row["audience"] == p.audience and said_the_same(row["content"], p.content)

        seqs = [row["seq"] for row, _ in near if same(row)] + self.store.recent(p.namespace, RECENT_RECHECKED)
        live = [row for row in self.store.rows_by_seq(seqs) if row["superseded_by"] is None and same(row)]
        found = min(live, key=lambda row: row["seq"], default=None)
        memory_id = found["id"] if found else self.add_many([p], field_prefix="", vectors=[vectors])[0]
        similar = [
            SimilarMemory(
                id=row["id"], content=row["content"][:SIMILAR_CHARS], type=row["type"], similarity=round(sim, 2)
            )
            for row, sim in near
            if row["id"] != memory_id and sim >= SIMILAR_FLOOR and self.may_hear(p.audience, row["audience"])
        ]
        return AddResult(id=memory_id, duplicate=found is not None, similar=similar[:SIMILAR_SHOWN])

    def prepare_vectors(self, items: list[AddParams], *, field_prefix: str = "items") -> list[np.ndarray]:
        """Each item's vectors, checked (a caller's) or embedded: what ``add_many(vectors=...)`` takes,
        made beside the store thread (services/memory_writes.py)."""
        return self._vectors_for(items, field_prefix, None)

    def _vectors_for(
        self, items: list[AddParams], field_prefix: str, given: list[np.ndarray | None] | None
    ) -> list[np.ndarray]:
        """Each item's vectors, (windows, dim): the caller's (one, or one per window), or embedded
        here, a long text in windows (embeddings.py)."""
        out: list[np.ndarray | None] = [
            None if given is None or given[i] is None else normalise_rows(given[i]) for i in range(len(items))
        ]
        for i, p in enumerate(items):
            if p.embedding is not None:
                field = f"{field_prefix}.{i}.embedding" if field_prefix else "embedding"
                if len(p.embedding) != self.store.dim:
                    raise InvalidParams(
                        field, f"has {len(p.embedding)} dimensions; this store's embeddings have {self.store.dim}"
                    )
                out[i] = normalise_rows(np.asarray(p.embedding, dtype=np.float32))
        missing = [i for i, v in enumerate(out) if v is None]
        if missing:
            texts = [indexed_text(items[i].content, items[i].context) for i in missing]
            for i, vectors in zip(missing, self.embedder.embed_passages(texts)):
                out[i] = vectors
        return out  # type: ignore[return-value]

    def _lookup(self, memory_id: str, namespace: str | None) -> tuple[dict[str, Any], bool]:
        """(row, archived) or NotFound. A namespace is a boundary: a memory of another one is not
        found, with the same words as one that does not exist. ``None``: the daemon's own callers."""
        found = self.store.get(memory_id)
        if found is None or (namespace is not None and found[0]["namespace"] != namespace):
            raise NotFound(
                f"no memory with id {memory_id!r}" + (f" in namespace {namespace!r}" if namespace else ""),
                {"id": memory_id},
            )
        return found

    def _current_version(self, memory_id: str, namespace: str | None, action: str) -> tuple[dict[str, Any], bool]:
        """Like _lookup, but a superseded version is a Conflict naming its successor."""
        row, archived = self._lookup(memory_id, namespace)
        if row["superseded_by"]:
            raise Conflict(
                f"memory {memory_id} is superseded by {row['superseded_by']}; {action} the current version",
                {"superseded_by": row["superseded_by"]},
            )
        return row, archived

    def reinforce(self, p: ReinforceParams) -> ReinforceResult:
        row, archived = self._current_version(p.id, p.namespace, "reinforce")
        now = self.clock.now()
        count = row["access_count"] + reinforcement_amount(p.event, self.config.reinforcement)
        with self.store.transaction():
            if archived:  # a reference to an archived memory brings it back to Active
                self.store.restore_from_archive(row["seq"])
            self.store.set_access(row["seq"], format_time(now), count)
            self.history.record([(row["id"], format_time(now), "reinforced", count, p.event)])
        value = retention(now, count, row["type"], now, self.config.decay)
        return ReinforceResult(access_count=count, retention=value, tier=tier_of(value, self.config.decay))

    def update(self, p: UpdateParams, *, vector: np.ndarray | None = None) -> UpdateResult:
        """A new version; ``vector``: the new content's embedding when the caller made it already
        (off the store thread), else it is embedded here."""
        old, archived = self._current_version(p.id, p.namespace, "update")
        vec = (
            normalise_rows(vector)
            if vector is not None
            else self.embedder.embed_passages([indexed_text(p.content, old["context"])])[0]
        )
        token_len = count_tokens_many([p.content])[0]
        now = format_time(self.clock.now())
        new = new_id()
        with self.store.transaction():
            if archived:
                self.store.restore_from_archive(old["seq"])
            self.store.mark_superseded(old["seq"], new)
            self.history.record([(new, now, "new_version", old["access_count"], f"supersedes {old['id']}")])
            mtype = p.type or old["type"]
            priority = (
                old["priority"]
                if p.priority is None and p.type is None
                else (effective_priority(p.priority, mtype, self.config.scoring))
            )
            self.store.insert(
                {
                    **{k: old[k] for k in ("namespace", "context")},
                    "type": mtype,
                    "priority": priority,
                    "source": p.source if p.source is not None else old["source"],
                    "tags": json.loads(old["tags"]),
                    "id": new,
                    "content": p.content,
                    # The date of what it says; when this version was written is `ingested` (and the history's event).
                    "created": format_time(p.created) if p.created else old["created"] if p.correction else now,
                    "ingested": now,
                    "last_accessed": now,
                    "access_count": old["access_count"],
                    "version": old["version"] + 1,
                    "supersedes": old["id"],
                    "superseded_by": None,
                    "token_len": token_len,
                    **{
                        k: old[k] for k in ("audience", "origin_chat", "said_by")
                    },  # a new version keeps who may hear it
                },
                vec,
            )
        return UpdateResult(id=new, supersedes=old["id"])

    def share(self, p: ShareParams) -> MemoryRecord:
        """Set who may hear a memory (its current version): shared, the user's own, or a chat's."""
        row, archived = self._current_version(p.id, p.namespace, "share")
        with self.store.transaction():
            self.store.set_audience(row["seq"], p.audience, archived=archived)
            self.history.record([(row["id"], format_time(self.clock.now()), "shared", None, p.audience)])
        return self.get(row["id"], p.namespace)

    def archive(self, memory_id: str, namespace: str | None = None, why: str = "by hand") -> ArchiveResult:
        """Move a memory to the archive; ``why`` goes into its history."""
        row, archived = self._lookup(memory_id, namespace)
        if not archived:
            at = format_time(self.clock.now())
            with self.store.transaction():
                self.store.move_to_archive(row["seq"], at)
                self.history.record([(row["id"], at, "archived", None, why)])
        return ArchiveResult(tier="archived")

    def restore(self, memory_id: str, namespace: str | None = None) -> MemoryRecord:
        """Bring an archived memory back to the live table (and the search indexes). Its retention
        is what its last access gives: a memory archived for having decayed is Cold or below until
        something reinforces it. A live one: unchanged."""
        row, archived = self._lookup(memory_id, namespace)
        if archived:
            with self.store.transaction():
                self.store.restore_from_archive(row["seq"])
                self.history.record([(row["id"], format_time(self.clock.now()), "restored", None, None)])
        return self.get(memory_id, namespace)

    def sweep(self) -> dict[str, int]:
        """Move every live memory whose retention fell below the Cold tier into the archive."""
        now = self.clock.now()
        cfg = self.config.decay
        doomed = [
            seq
            for seq, mtype, last, count in self.store.live_access_rows()
            if retention(parse_time(last), count, mtype, now, cfg) < cfg.cold_above
        ]
        if doomed:
            at = format_time(now)
            with self.store.transaction():
                ids = self.store.ids_of(doomed)
                for seq in doomed:
                    self.store.move_to_archive(seq, at)
                self.history.record([(i, at, "archived", None, "decayed below the Cold tier") for i in ids])
        return {"archived": len(doomed)}

    # ---- reads ---------------------------------------------------------------

    def get(self, memory_id: str, namespace: str | None = None) -> MemoryRecord:
        row, archived = self._lookup(memory_id, namespace)
        linked = self.store.made_from_same_turns(row["id"])
        value = retention(
            parse_time(row["last_accessed"]), row["access_count"], row["type"], self.clock.now(), self.config.decay
        )
        return MemoryRecord(
            **{
                k: row[k]
                for k in (
                    "id",
                    "content",
                    "type",
                    "namespace",
                    "priority",
                    "created",
                    "last_accessed",
                    "access_count",
                    "version",
                    "supersedes",
                    "superseded_by",
                    "source",
                    "audience",
                    "origin_chat",
                    "said_by",
                )
            },
            tags=json.loads(row["tags"]),
            retention=value,
            tier="archived" if archived else tier_of(value, self.config.decay),
            episodes=sorted(mid for mid, mtype in linked if mtype == EPISODE),
            observations=sorted(mid for mid, mtype in linked if mtype != EPISODE),
        )

    def _matches(
        self, rows: list[dict[str, Any]], vectors: list[np.ndarray], qvec: np.ndarray, lexical: dict[int, float]
    ) -> np.ndarray:
        """Each row's own hybrid match: dense (a long text by its best window) with BM25.
        ``vectors``: the rows' embeddings, decoded once by the caller."""
        if not rows:
            return np.zeros(0)
        cosines = np.vstack(vectors) @ qvec
        # A long text matches by its best window (embeddings.py); ``embedding`` is its first.
        windows = self.store.window_vectors([r["seq"] for r in rows])
        if windows:
            for i, r in enumerate(rows):
                if r["seq"] in windows:
                    cosines[i] = max(cosines[i], float((windows[r["seq"]] @ qvec).max()))
        rc = self.config.retrieval
        return np.array(
            [similarity_signal(float(cos), lexical.get(r["seq"], 0.0), rc) for r, cos in zip(rows, cosines)]
        )

    def _episode_links(self, namespace: str, rows: list[dict[str, Any]], listener: str | None) -> dict[int, list[int]]:
        """seq -> the memories stored just before and after it (for a memory stored without context)
        that are of its episode (dated within [retrieval] episode_gap_minutes of it) and that the
        listener may hear (else a private neighbour would lift what it says into other
        conversations). Needs no query: a pack works it out while the query embeds."""
        rc = self.config.retrieval
        if rc.neighbour_weight <= 0 or not rows:
            return {}
        gap = timedelta(minutes=rc.episode_gap_minutes)
        # A memory stored with its context carries its episode already (measured on LoCoMo with two
        # previous turns as context: lifting those too took Recall@10 from 0.710 to 0.694).
        adjacent = self.store.adjacent(namespace, [r["seq"] for r in rows if not r["context"]])
        wanted = sorted({n for pair in adjacent.values() for n in pair if n is not None})
        hearable = {r["seq"]: r for r in self.store.neighbour_rows(wanted) if self.may_hear(listener, r["audience"])}
        created = {seq: parse_time(r["created"]) for seq, r in hearable.items()}
        created.update({r["seq"]: parse_time(r["created"]) for r in rows})
        links: dict[int, list[int]] = {}
        for seq, pair in adjacent.items():
            near = [n for n in pair if n in hearable and abs(created[n] - created[seq]) <= gap]
            if near:
                links[seq] = near
        return links

    def _neighbourhood(
        self,
        namespace: str,
        rows: list[dict[str, Any]],
        matches: np.ndarray,
        qvec: np.ndarray,
        lexical: dict[int, float],
        links: dict[int, list[int]],
    ) -> dict[int, float]:
        """seq -> the best match among its episode links: a candidate's own match, another's from
        the in-RAM index (float16 is precise enough for a lift) and its BM25."""
        rc = self.config.retrieval
        known = {r["seq"]: float(m) for r, m in zip(rows, matches)}
        others = sorted({n for near in links.values() for n in near if n not in known})
        cosines = self.store.best_cosines(namespace, others, qvec)
        known.update({n: similarity_signal(cosines.get(n, 0.0), lexical.get(n, 0.0), rc) for n in others})
        return {seq: max(known[n] for n in links[seq]) for seq in (r["seq"] for r in rows) if seq in links}

    def _score_rows(
        self,
        rows: list[dict[str, Any]],
        qvec: np.ndarray,
        lexical: dict[int, float],
        now: datetime,
        archived: bool = False,
        *,
        namespace: str | None = None,
        listener: str | None = None,
        links: dict[int, list[int]] | None = None,
    ) -> list[Scored]:
        """Score rows; given the ``namespace``, each is lifted by its episode's match too (``links``:
        the episode links of those rows already worked out; the others' are worked out here)."""
        if not rows:
            return []
        vectors = [from_blob(r["embedding"]) for r in rows]
        matches = self._matches(rows, vectors, qvec, lexical)
        near: dict[int, float] = {}
        if namespace:
            links = dict(links or {})
            missing = [r for r in rows if r["seq"] not in links]
            links.update(self._episode_links(namespace, missing, listener))
            near = self._neighbourhood(namespace, rows, matches, qvec, lexical, links)
        cfg = self.config
        out: list[Scored] = []
        for row, vector, match in zip(rows, vectors, matches):
            value = retention(parse_time(row["last_accessed"]), row["access_count"], row["type"], now, cfg.decay)
            neighbourhood = near.get(row["seq"], 0.0)
            signals = Signals(
                similarity=episode_similarity(float(match), neighbourhood, row["token_len"], cfg.retrieval),
                priority=row["priority"],
                decay=value,
                frequency=frequency_boost(row["access_count"]),
                match=float(match),
                neighbourhood=neighbourhood,
            )
            out.append(
                Scored(
                    row,
                    vector,
                    signals,
                    injection_score(signals, cfg.scoring),
                    value,
                    "archived" if archived else tier_of(value, cfg.decay),
                )
            )
        return out

    def may_hear(self, listener: str | None, origin: str) -> bool:
        return may_hear(listener, origin, self.config.channels)

    def unheard(self, namespace: str, listener: str | None) -> set[int]:
        """The namespace's live memories a conversation of audience ``listener`` may not hear."""
        if listener is None:
            return set()
        kept = [a for a in self.store.audiences(namespace) if not self.may_hear(listener, a)]
        return self.store.seqs_heard_by_none_of(namespace, kept)

    def _candidates(self, namespace: str, query: str, *, for_pack: bool, listener: str | None = None) -> Candidates:
        """Scored candidates the listener may hear, the query vector, the best of those it may not
        (for the pack log: context.explain says why they were kept out) and the query's terms."""
        rc = self.config.retrieval
        # The query embedding (torch, one thread) runs beside the SQLite work that does not need
        # it: the lexical, pinned, recent (and constraint) candidates and their rows.
        embedding = self._embed_pool.submit(self.embedder.embed_query, query)
        unheard = self.unheard(namespace, listener)
        hits = self.store.bm25(namespace, fts_terms(query), rc.fts_max_postings, rc.context_weight)
        bm25 = hits.scores
        if unheard:
            bm25 = {seq: score for seq, score in bm25.items() if seq not in unheard}
        # Every match of the namespace is scored, so a vector candidate gets its BM25 too.
        seqs: dict[int, None] = dict.fromkeys(_best_bm25(bm25, rc.fts_candidates))
        if for_pack:
            seqs.update(dict.fromkeys(self.store.pinned(namespace, rc.pinned_candidates)))
            seqs.update(dict.fromkeys(self.store.recent(namespace, rc.recent_candidates)))
        kind = query_kind(query)  # once a query: the constraints and the tree's levels both ask
        advice = kind == "planning" and rc.constraint_share > 0
        constraints = (
            set(self.store.phrase_matches(namespace, CONSTRAINT_PHRASES, rc.constraint_candidates)) if advice else set()
        )
        seqs.update(dict.fromkeys(sorted(constraints)))
        asked = self._slots_asked_now(query)
        phrased: set[int] = set()  # for a fact slot asked about now, the newest memories with one of its phrases
        if asked:
            phrases = tuple(sorted({phrase for slot, _ in asked for phrase in SLOT_PHRASES[slot]}))
            phrased = set(self.store.phrase_matches(namespace, phrases, rc.slot_candidates))
            seqs.update(dict.fromkeys(sorted(phrased)))
        rows = self.store.rows_by_seq([s for s in seqs if s not in unheard])
        # Also beside the embedding: these rows' episode links and every match's lexical signal.
        links = self._episode_links(namespace, rows, listener)
        lexical = {seq: lexical_signal(score, hits.full_match) for seq, score in bm25.items()}
        qvec = embedding.result()
        near = [seq for seq, _ in self.store.knn(namespace, qvec, rc.vector_candidates, unheard) if seq not in seqs]
        rows = sorted(rows + self.store.rows_by_seq(near), key=lambda r: r["seq"])
        kept_out = self._kept_out(namespace, qvec, hits.scores, unheard) if unheard and for_pack else []
        rows = self._tree_levels(namespace, kind, rows)
        # Checked again on the rows themselves: nothing reaches a caller that its audience may not hear.
        rows = [r for r in rows if self.may_hear(listener, r["audience"])]
        now = self.clock.now()
        scored = self._score_rows(rows, qvec, lexical, now, namespace=namespace, listener=listener, links=links)
        if constraints:
            self._lift_constraints(scored, constraints)
        if asked:
            self._lift_current(scored, set(asked), phrased)
        return Candidates(scored, qvec, kept_out, hits.idf)

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

    def _slots_asked_now(self, query: str) -> list[tuple[str, str]]:
        """The fact slots (where someone lives, works, ...; memory/language/slots.py) ``query`` asks
        about in the present; none for a question about the past or with [retrieval] slot_share 0."""
        if self.config.retrieval.slot_share <= 0 or asks_about_the_past(query) or mentions_the_past(query):
            return []
        return asked_slots(query)

    def _lift_current(self, scored: list[Scored], asked: set[tuple[str, str]], phrased: set[int]) -> None:
        """For a question about a fact slot in the present, the newest memory filling it is the
        current value, however few words it shares with the question or with the older ones it
        changes: its similarity is lifted to [retrieval] slot_share of the best candidate's (search
        then puts it above the older ones, _current_slot_first). Every filler is marked. A persona
        memory's "I" is the agent ("My name is Nova"): it fills none of the person's slots. Read:
        the memories found by the slot's phrases (``phrased``) and the SLOT_READ most similar."""
        found: list[Filler] = []
        slots = sorted({slot for slot, _ in asked})
        read = {id(s) for s in heapq.nlargest(SLOT_READ, scored, key=lambda s: s.signals.similarity)}
        for s in scored:
            if s.row["type"] == "persona" or not (id(s) in read or s.row["seq"] in phrased):
                continue
            for key in sorted(filled_slots(s.row["content"], slots) & asked):
                s.slot = s.slot or key
                found.append(Filler(s.row["id"], key, parse_time(s.row["created"]), s.row["seq"]))
        current = newest_fillers(found)
        best = max((s.signals.similarity for s in scored), default=0.0)
        lifted = self.config.retrieval.slot_share * best
        for s in scored:
            if s.row["id"] in current:
                s.slot, s.current = current[s.row["id"]], True
                if lifted > s.signals.similarity:
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

    def _stated(self, rows: list[dict[str, Any]]) -> dict[str, list[str]]:
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
        rows = self.store.rows_by_seq(list(dict.fromkeys(near)))
        return self._score_rows(rows, qvec, {}, self.clock.now())

    def search(self, p: SearchParams) -> SearchResult:
        scored, qvec, _, idf = self._candidates(p.namespace, p.query, for_pack=False, listener=p.audience)
        if p.include_archived:
            archived = [r for r in self.store.archive_rows(p.namespace) if self.may_hear(p.audience, r["audience"])]
            scored += self._score_rows(archived, qvec, {}, self.clock.now(), archived=True)
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
        if not asks_about_the_past(p.query):
            hits = self._current_first(p.namespace, hits, idf, window=max(2 * p.k, 20))
        hits = _current_slot_first(hits)
        hits = self._episodes_apart(hits)
        kept, folded = self._fold_same_turns(hits)
        stated = self._stated([s.row for s in kept[: p.k]])
        return SearchResult(
            results=[
                SearchHit(
                    id=s.row["id"],
                    content=s.row["content"],
                    type=s.row["type"],
                    score=round(s.score, 6),
                    signals=SignalsOut(**s.signals.rounded()),
                    tier=s.tier,
                    source=s.row["source"],
                    created=s.row["created"],
                    folded=folded.get(s.row["id"], []),
                    stated=stated.get(s.row["id"], []),
                )
                for s in kept[: p.k]
            ]
        )

    def _current_first(self, namespace: str, hits: list[Scored], idf: dict[str, float], window: int) -> list[Scored]:
        """The best ``window`` hits with a later memory on the subject of an earlier one just above
        it, when it matches nearly as well ([retrieval] newer_margin; currency.py)."""
        margin = self.config.retrieval.newer_margin
        top = hits[:window]
        if margin <= 0 or len(top) < 2 or not idf:
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

    def _episodes_apart(self, hits: list[Scored]) -> list[Scored]:
        """The first DIVERSE_DEPTH hits from as many episodes as they can be: a hit of an episode
        already among them yields its place to the best hit of another episode, if that one is at
        most [retrieval] episode_diversity less similar (0: off). Evidence spread over several
        conversations is otherwise crowded out by one conversation's many near-equal turns."""
        margin = self.config.retrieval.episode_diversity
        if margin <= 0 or len(hits) < 2:
            return hits
        gap = timedelta(minutes=self.config.retrieval.episode_gap_minutes)
        when = {id(s): parse_time(s.row["created"]) for s in hits[:DIVERSE_WINDOW]}
        shown: list[datetime] = []  # the dates of the hits placed so far

        def new_episode(s: Scored) -> bool:
            return all(abs(when[id(s)] - t) > gap for t in shown)

        out: list[Scored] = []
        rest = hits[:DIVERSE_WINDOW]
        while rest and len(out) < DIVERSE_DEPTH:
            pick = rest[0]
            if not new_episode(pick):
                pick = next(
                    (s for s in rest if new_episode(s) and pick.signals.similarity - s.signals.similarity <= margin),
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

    def pack(self, p: PackParams) -> PackResult:
        scored, _, kept_out, _ = self._candidates(p.namespace, p.query, for_pack=True, listener=p.audience)
        # Active items are pack candidates; persona/relational are pinned whatever their tier.
        excluded = set(p.exclude)
        packable = [s for s in scored if s.tier == "active" or s.row["type"] in IDENTITY_TYPES]
        said_once = self._said_once(packable, excluded)  # id -> why it is left to another memory of its turn
        eligible = [s for s in packable if s.row["id"] not in excluded and s.row["id"] not in said_once]
        candidates = [
            PackCandidate(
                id=s.row["id"],
                type=s.row["type"],
                score=round(s.score, 6),
                content=s.row["content"],
                content_tokens=s.row["token_len"],
                source=s.row["source"],
                created=s.row["created"],
                vector=s.vector,
                similarity=s.signals.similarity,
            )
            for s in eligible
        ]
        skipped: dict[str, str] = {}  # why the pack passed over those it reached
        text, tokens, items, mmr = build_pack(candidates, p.budget_tokens, self.config.pack, skipped)
        pack_id = "p" + uuid.uuid4().hex[:15]
        chosen_ids = {it.candidate.id for it in items}
        stated = self._stated([s.row for s in eligible if s.row["id"] in chosen_ids])
        result_items = [
            PackItem(
                id=it.candidate.id,
                type=it.candidate.type,
                score=it.candidate.score,
                tokens=it.tokens,
                source=it.candidate.source,
                stated=stated.get(it.candidate.id, []),
            )
            for it in items
        ]
        # The log entry, for context.explain: MMR ranks as far as the pack read the order.
        ordered_ids = [c.id for c in sorted(candidates, key=lambda c: (-c.score, c.id))]
        why = {**skipped, **said_once}
        kept = sorted(kept_out, key=_best_first)
        why.update({s.row["id"]: why_not(p.audience or "", s.row["audience"]) for s in kept})
        entry = {
            "pack_id": pack_id,
            "namespace": p.namespace,
            "query": p.query,
            "audience": p.audience,
            "budget_tokens": p.budget_tokens,
            "at": format_time(self.clock.now()),
            "tokens": tokens,
            "text": text,
            "candidates": _log_columns(
                sorted(scored, key=_best_first) + kept,
                {c.id for c in candidates},
                {ordered_ids[idx]: rank for rank, idx in enumerate(mmr.picked)},
                chosen_ids,
                excluded,
                why,
            ),
            "chosen": [
                {**i.model_dump(), "mmr_rank": it.mmr_rank, "sanitized": it.sanitized}
                for i, it in zip(result_items, items)
            ],
        }
        self.pack_log.submit(entry)
        return PackResult(pack_id=pack_id, text=text, tokens=tokens, items=result_items)

    def _said_once(self, packable: list[Scored], excluded: set[str]) -> dict[str, str]:
        """What a pack leaves out so that one conversation turn is not packed twice (issue 16): an
        episode and the observations made from its turn say the same thing. id -> why.

        The pack prefers the observation: the episode goes when an observation of its turn is in
        the caller's context already, or is a candidate that says something the turn's words do
        not (a model's observation: dates resolved, names made explicit). An observation that is
        only a cut of the turn's words (the local Observer's sentences) goes instead, since the
        episode says all it says: packing the cut measured 0.10 less answer coverage on LoCoMo."""
        if not any(s.row["type"] == EPISODE for s in packable):
            return {}
        turns = self.store.turns_of([s.row["id"] for s in packable])
        observations: dict[int, list[Scored]] = {}  # turn -> the observations made from it
        for s in packable:
            if s.row["type"] != EPISODE:
                for turn in turns.get(s.row["id"], ()):
                    observations.setdefault(turn, []).append(s)
        out: dict[str, str] = {}
        for episode in (s for s in packable if s.row["type"] == EPISODE):
            episode_id = episode.row["id"]
            linked = [o for t in sorted(turns.get(episode_id, ())) for o in observations.get(t, [])]
            if not linked:
                continue  # no observation of it: the pack falls back to the episode
            said = set(content_words(episode.row["content"]))
            cuts = [o for o in linked if set(content_words(o.row["content"])) <= said and o.row["id"] not in excluded]
            cut_ids = {o.row["id"] for o in cuts}
            preferred = [o for o in linked if o.row["id"] in excluded] or [
                o for o in linked if o.row["id"] not in cut_ids
            ]
            if preferred:
                best = max(preferred, key=lambda o: o.score).row["id"]
                out[episode_id] = f"its turn is said by observation {best}, which the pack prefers"
            for o in cuts:
                out.setdefault(o.row["id"], f"a cut of the words of episode {episode_id}, which says all it says")
        return out

    def explain(self, pack_id: str, namespace: str | None = None) -> dict[str, Any]:
        entry = self.pack_log.entry(pack_id)
        if entry is None or (namespace is not None and entry["namespace"] != namespace):
            cfg = self.config.pack
            raise NotFound(
                f"no pack with id {pack_id!r}{f' in namespace {namespace!r}' if namespace else ''} in the pack log, which keeps the newest {cfg.log_keep_packs} packs "
                f"for {cfg.log_keep_days:g} days ([pack] log_keep_packs, log_keep_days): it may be past that",
                {"pack_id": pack_id},
            )
        # Each candidate's text as stored now (the log keeps ids): None for one forgotten since.
        texts = self.store.contents_of([c["id"] for c in entry["candidates"]])
        return {**entry, "candidates": [{**c, "content": texts.get(c["id"])} for c in entry["candidates"]]}

    def stats(self, namespace: str | None = None) -> dict[str, Any]:
        """Counts by type and tier, the retention spread; asked about every namespace, each
        namespace's too (one pass over an index, the tiers computed with numpy)."""
        counts = self.store.counts(namespace)
        counts["packs_logged"] += self.pack_log.pending_count(namespace)
        now = self.clock.now()
        at, cfg = format_time(now), self.config.decay
        by_namespace = self.store.counts_by_namespace() if namespace is None else {}
        # One index pass per namespace, its retention and tiers computed with numpy.
        values = {ns: retention_many(self.store.access_ages(at, ns), cfg) for ns in (by_namespace or [namespace])}
        tiers = {ns: tiers_many(v, cfg) for ns, v in values.items()}
        every = np.concatenate([np.zeros(0), *values.values()])
        out = {
            **counts,
            "tiers": _tier_counts(np.concatenate([np.zeros(0, dtype=str), *tiers.values()])),
            "retention_spread": np.bincount(np.minimum((every * 10).astype(int), 9), minlength=10).tolist(),
            "now": at,
            "embedding_model": self.embedder.name,
        }
        if namespace is None:
            for name, part in by_namespace.items():
                part["live"] = sum(part["by_type"].values())
                part["tiers"] = _tier_counts(tiers[name])
            out["by_namespace"] = by_namespace
        return out

    def health_count(self) -> int:
        return self.store.count_live()

"""Memories: the library behind every socket method (and usable without the daemon).

Writes (add, update, archive, restore, reinforce, share, sweep) live here; the reads are their
own modules: candidates.py finds and scores what a query may reach (seed 002, 5.1), search.py
ranks them for memory.search, packs.py packs them within a budget and logs why (context.pack,
context.explain). Decay (5.7) is computed from last access and access count at query time; the
sweep moves items below the Cold tier into the archive table.

Reads never change state. Reinforcement is explicit (``reinforce``), so the same
store, query and time always give the same pack.
"""

from __future__ import annotations

import difflib
import json
import unicodedata
import uuid
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import numpy as np

from agentmemd.memory.core.clock import Clock, format_time, parse_time
from agentmemd.memory.core.config import Config
from agentmemd.memory.core.disclosure import SHARED, USER
from agentmemd.memory.core.errors import Conflict, InvalidParams, NotFound
from agentmemd.memory.core.models import (
    AddParams,
    AddResult,
    ArchiveResult,
    MemoryAffect,
    MemoryRecord,
    PackParams,
    PackResult,
    ReinforceParams,
    ReinforceResult,
    SearchParams,
    SearchResult,
    ShareParams,
    SimilarMemory,
    UpdateParams,
    UpdateResult,
)
from agentmemd.memory.core.threads import RunOnStore, run_here, yield_to_requests
from agentmemd.memory.core.tokens import count_tokens_many
from agentmemd.memory.core.vocabulary import EPISODE
from agentmemd.memory.language.affect import Affect, read_affect
from agentmemd.memory.language.dates import day_range, find_dates
from agentmemd.memory.language.detection import LANGUAGE_NAMES, detect_language
from agentmemd.memory.language.slots import filled_slots
from agentmemd.memory.retrieval.candidates import CandidateFinder
from agentmemd.memory.retrieval.decay import (
    reinforcement_amount,
    retention,
    retention_many,
    tier_of,
    tiers_many,
)
from agentmemd.memory.retrieval.embedding_models import MODELS
from agentmemd.memory.retrieval.embeddings import Embedder, normalise_rows
from agentmemd.memory.retrieval.pack_log import PackLog
from agentmemd.memory.retrieval.packs import Packs
from agentmemd.memory.retrieval.query import Query
from agentmemd.memory.retrieval.scoring import (
    effective_priority,
)
from agentmemd.memory.retrieval.search import Search
from agentmemd.memory.safety.secrets import SECRET_KINDS, kinds_in, mask, repeated
from agentmemd.memory.store.database import Store, indexed_text
from agentmemd.memory.store.history_tables import HistoryTables
from agentmemd.memory.store.listing_tables import ListingTables


def _tier_counts(tiers: np.ndarray) -> dict[str, int]:
    """Live memories by tier now; one below the Cold tier waits for the sweep to archive it."""
    found = dict(zip(*np.unique(tiers, return_counts=True))) if len(tiers) else {}
    return {
        "active": int(found.get("active", 0)),
        "warm": int(found.get("warm", 0)),
        "cold": int(found.get("cold", 0)),
        "archived_pending_sweep": int(found.get("archived", 0)),
    }


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


LANGUAGES_SAMPLED = 500  # the newest live memories stats reads the language of
NAMED_LANGUAGES = frozenset(LANGUAGE_NAMES.values())


@dataclass(frozen=True)
class WordsRead:
    """What is read of a memory's words before it is stored, beside its embedding and off the
    store thread (a write transaction holds the one writer): the kinds of secret it holds, the
    fact slots it fills (none for a persona memory) and how it feels (None: the caller said)."""

    secrets: tuple[str, ...]
    slots: frozenset[tuple[str, str]]
    affect: Affect | None


def read_words(content: str, memory_type: str, affect_given: bool = False) -> WordsRead:
    return WordsRead(
        secrets=kinds_in(content),
        slots=frozenset(filled_slots(content)) if memory_type != "persona" else frozenset(),
        affect=None if affect_given else read_affect(content),
    )


class Memories:
    def __init__(
        self, store: Store, embedder: Embedder, clock: Clock, config: Config, run_on_store: RunOnStore = run_here
    ):
        self.store = store
        self.embedder = embedder
        self.clock = clock
        self.config = config
        self.pack_log = PackLog(store, clock, config.pack, run_on_store)  # with a store thread: beside the requests
        self.finder = CandidateFinder(store, embedder, clock, config)
        self.tree_tables = self.finder.tree_tables  # the consolidation tree's nodes and their leaves
        self.searching = Search(self.finder, store, config, clock)
        self.packing = Packs(self.finder, store, config, clock, self.pack_log)
        self.history = HistoryTables(store)  # what happened to each memory after it was stored (m019)
        self.slots = self.finder.slots  # which fact slot of whom each memory fills (m027)
        self.times = self.finder.times  # the days each memory speaks of (m028)
        self.affect = self.finder.affect  # how each memory feels (m031)
        self.secrets = self.finder.secrets  # which memories hold a secret, of what kinds (m035)
        self.known_secrets = self.finder.known_secrets  # their values, to know them repeated

    # ---- reads: candidates.py, search.py, packs.py ------------------------------------------

    def parse(self, query: str, asked_at: datetime | None = None) -> Query:
        """The query read once for a search or a pack (query.py), as of ``asked_at`` (now if None)."""
        return Query.parse(query, asked_at or self.clock.now())

    def search(self, p: SearchParams) -> SearchResult:
        return self.searching.search(p, self.parse(p.query, p.asked_at))

    def pack(self, p: PackParams) -> PackResult:
        return self.packing.pack(p, self.parse(p.query, p.asked_at))

    def explain(self, pack_id: str, namespace: str | None = None) -> dict[str, Any]:
        return self.packing.explain(pack_id, namespace)

    def may_hear(self, listener: str | None, origin: str) -> bool:
        return self.finder.may_hear(listener, origin)

    def unheard(self, namespace: str, listener: str | None) -> set[int]:
        return self.finder.unheard(namespace, listener)

    # ---- writes -------------------------------------------------------------

    def add_many(
        self,
        items: list[AddParams],
        *,
        field_prefix: str = "items",
        vectors: Sequence[np.ndarray | None] | None = None,
        read: list[WordsRead] | None = None,
    ) -> list[str]:
        """Store memories in one transaction. ``vectors``: embeddings the caller already made (off the
        store thread), one per item or None; the others are embedded here. ``read``: their words
        read beside them (``read_words_of``); else read here, before the transaction."""
        vectors = self._vectors_for(items, field_prefix, vectors)
        read = read if read is not None else self.read_words_of(items)
        token_lens = count_tokens_many([p.content for p in items])
        now = format_time(self.clock.now())
        ids = [new_id() for _ in items]
        created = [format_time(p.created) if p.created else now for p in items]
        with self.store.transaction():
            seqs = self.store.insert_many(
                [
                    {
                        "id": memory_id,
                        "namespace": p.namespace,
                        "content": p.content,
                        "context": p.context,
                        "type": p.type,
                        "priority": effective_priority(p.priority, p.type, self.config.scoring),
                        "source": p.source,
                        "tags": p.tags,
                        "created": when,
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
                    }
                    for p, memory_id, when, ntok in zip(items, ids, created, token_lens)
                ],
                vectors,
            )
            felt: list[tuple[int, str, float, float, str]] = []  # written together: a statement, not one each
            known_in: dict[str, dict[str, str]] = {}  # each namespace's secrets, read once a batch
            for p, seq, when, words_read in zip(items, seqs, created, read):
                self._record_when_stored(seq, p.namespace, when, p.content, words_read, p.affect, felt, known_in)
            self.affect.record_new(felt)
        return ids

    @staticmethod
    def read_words_of(items: list[AddParams]) -> list[WordsRead]:
        """What ``add_many`` keeps of each item's words, read where the caller is (its embedding's
        thread, not the store's)."""
        read = []
        for p in items:
            yield_to_requests()  # a batch of an import's turns is seconds of Python on a background thread
            read.append(read_words(p.content, p.type, affect_given=p.affect is not None))
        return read

    def _record_when_stored(
        self,
        seq: int,
        namespace: str,
        created: str,
        content: str,
        words_read: WordsRead,
        affect: MemoryAffect | None = None,
        felt_later: list[tuple[int, str, float, float, str]] | None = None,
        known_in: dict[str, dict[str, str]] | None = None,
    ) -> None:
        """What is worked out of a memory's words when it is stored and kept beside it; ``affect``:
        how it feels where the caller says (an app, the anthropic provider's Observer).
        ``felt_later``: the affect goes there, for the caller's ``affect.record_new``. ``known_in``:
        the namespaces' known secrets as a batch has read them so far (one read a batch, not a memory)."""
        kinds = words_read.secrets
        if not kinds:  # no word marks it, but it may repeat a secret said before
            known = known_in.get(namespace) if known_in is not None else None
            if known is None:
                known = self.known_secrets.of(namespace)
                if known_in is not None:
                    known_in[namespace] = known
            if known:
                again = {s.kind for s in repeated(content, known)}
                kinds = tuple(k for k in SECRET_KINDS if k in again)
        elif known_in is not None:
            known_in.pop(namespace, None)  # this one states a secret: the next in the batch reads them again
        self.secrets.record(seq, namespace, kinds, new=True)
        if words_read.slots:
            self.slots.record(seq, namespace, created, words_read.slots)
        self._record_times({"seq": seq, "namespace": namespace, "created": created, "content": content})
        felt = affect or words_read.affect
        if felt is not None and felt_later is not None:
            felt_later.append((seq, namespace, felt.valence, felt.arousal, felt.emotion))
        elif felt is not None:
            self.affect.record(seq, namespace, felt.valence, felt.arousal, felt.emotion, new=True)

    def _record_secrets(self, row: dict[str, Any]) -> None:
        """Which kinds of secret it holds (secrets.py): kept, marked, never packed unless asked for."""
        self.secrets.record(
            row["seq"], row["namespace"], kinds_in(row["content"], self.known_secrets.of(row["namespace"]))
        )

    def _record_affect(self, row: dict[str, Any]) -> None:
        """How it feels, read from its words (affect.py: VADER's valence, an emotion, arousal)."""
        felt = read_affect(row["content"])
        self.affect.record(row["seq"], row["namespace"], felt.valence, felt.arousal, felt.emotion)

    def _record_slots(self, row: dict[str, Any]) -> None:
        """Which fact slot of whom it fills (slots.py): a change of fact is then found for a question
        about the present however few words it shares with the facts it changes or with the
        question. A persona memory's "I" is the agent: it fills none of the person's slots."""
        if row["type"] != "persona":
            fills = filled_slots(row["content"])
            self.slots.record(row["seq"], row["namespace"], row["created"], fills, again=True)

    def _record_times(self, row: dict[str, Any]) -> None:
        """The days it speaks of, resolved against when it was said (dates.py: "last weekend" said on
        a Monday is the Saturday and Sunday before): when it happened, beside when it was said."""
        ranges = [day_range(ref) for ref in find_dates(row["content"], parse_time(row["created"]))]
        days = [(r[0].isoformat(), r[1].isoformat()) for r in ranges if r]
        if days:
            self.times.record(row["seq"], row["namespace"], days)

    def read_older_memories(self, chunk: int = 2000) -> int:
        """The memories stored before slots, dates, affect and secrets were recorded when stored (m027,
        m028, m031, m035), read once, newest first, a chunk per transaction; how many were read."""
        read = 0
        for backlog, record in (
            (self.slots.backlog, self._record_slots),
            (self.times.backlog, self._record_times),
            (self.affect.backlog, self._record_affect),
            (self.secrets.backlog, self._record_secrets),
        ):
            while True:
                with self.store.transaction():
                    rows = backlog.next(chunk)
                    if rows is None:  # none was left, or none left when the upgrade ran
                        break
                    if not rows:
                        backlog.done()
                        break
                    for row in rows:
                        record(row)
                    backlog.read_down_to(min(row["seq"] for row in rows))
                read += len(rows)
        return read

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
        self,
        p: AddParams,
        vectors: np.ndarray,
        near: list[tuple[dict[str, Any], float]],
        read: list[WordsRead] | None = None,
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
        memory_id = found["id"] if found else self.add_many([p], field_prefix="", vectors=[vectors], read=read)[0]
        shown = [
            (row, sim)
            for row, sim in near
            if row["id"] != memory_id and sim >= SIMILAR_FLOOR and self.may_hear(p.audience, row["audience"])
        ][:SIMILAR_SHOWN]
        # A similar memory holding a secret is shown masked (as a search shows one it was not asked
        # for): an MCP host hands this answer to the model. What the new text says itself is not hidden.
        held = self.secrets.of([row["seq"] for row, _ in shown])
        known = self.known_secrets.of(p.namespace) if held else {}
        similar = [
            SimilarMemory(
                id=row["id"],
                content=(mask(row["content"], p.content, known) if row["seq"] in held else row["content"])[
                    :SIMILAR_CHARS
                ],
                type=row["type"],
                similarity=round(sim, 2),
            )
            for row, sim in shown
        ]
        return AddResult(id=memory_id, duplicate=found is not None, similar=similar)

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
        words_read = read_words(p.content, p.type or old["type"])  # before the transaction, as for an add
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
            created = format_time(p.created) if p.created else old["created"] if p.correction else now
            seq = self.store.insert(
                {
                    **{k: old[k] for k in ("namespace", "context")},
                    "type": mtype,
                    "priority": priority,
                    "source": p.source if p.source is not None else old["source"],
                    "tags": json.loads(old["tags"]),
                    "id": new,
                    "content": p.content,
                    # The date of what it says; when this version was written is `ingested` (and the history's event).
                    "created": created,
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
            self._record_when_stored(seq, old["namespace"], created, p.content, words_read)
        return UpdateResult(id=new, supersedes=old["id"])

    def require_audience(self, audience: str, namespaces: list[str] | None, field: str, more: str = "") -> None:
        """InvalidParams unless ``audience`` is shared, the user's own, or that of a chat or
        conversation one of ``namespaces`` has (None: any namespace): a chat id mistyped would hide
        a memory from every conversation, or give a token nothing to hear. The nearest are named."""
        if audience in (SHARED, USER):
            return
        every = namespaces if namespaces is not None else ListingTables(self.store).namespaces()
        known = set().union(*(self.store.audiences_in(ns) for ns in every))
        if audience in known:
            return
        near = difflib.get_close_matches(audience, sorted(known - {SHARED, USER}), n=3, cutoff=0.6)
        where = f"namespace {every[0]!r}" if len(every) == 1 else "its namespaces"
        raise InvalidParams(
            field,
            f"no chat or conversation of {where} is heard as {audience!r}"
            + (f"; did you mean {', '.join(map(repr, near))}?" if near else "")
            + more,
        )

    def share(self, p: ShareParams) -> MemoryRecord:
        """Set who may hear a memory (its current version): shared, the user's own, or a chat's
        (one the namespace has: a chat id mistyped would hide the memory from every conversation)."""
        row, archived = self._current_version(p.id, p.namespace, "share")
        self.require_audience(p.audience, [row["namespace"]], "audience")
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
        """Bring an archived memory back to the live table (and the search indexes), as a direct
        reference to it: a person bringing it back wants it found, and a memory the sweep archived
        for having decayed would otherwise be archived again at the next sweep. A live one: unchanged."""
        row, archived = self._lookup(memory_id, namespace)
        if archived:
            now = format_time(self.clock.now())
            count = row["access_count"] + reinforcement_amount("direct", self.config.reinforcement)
            with self.store.transaction():
                self.store.restore_from_archive(row["seq"])
                self.store.set_access(row["seq"], now, count)
                self.history.record([(row["id"], now, "restored", count, None)])
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
        felt = self.affect.of([row["seq"]]).get(row["seq"])
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
            affect=MemoryAffect(valence=felt[0], arousal=felt[1], emotion=felt[2]) if felt else None,
        )

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
            **self._languages(namespace),
        }
        if namespace is None:
            for name, part in by_namespace.items():
                part["live"] = sum(part["by_type"].values())
                part["tiers"] = _tier_counts(tiers[name])
            out["by_namespace"] = by_namespace
        return out

    def _languages(self, namespace: str | None) -> dict[str, dict[str, int]]:
        """What the newest live memories are written in, and which of those languages the model
        does not serve (detection.py; ~0.1 ms a memory)."""
        found = Counter(
            language
            for text in self.store.newest_contents(namespace, LANGUAGES_SAMPLED)
            # A language detection names by code only (Aragonese for a short Spanish line) is no sure one.
            if (language := detect_language(text)) in NAMED_LANGUAGES
        )
        model = MODELS.get(self.embedder.name)
        served = model.serves if model is not None else None
        unserved = {k: v for k, v in found.items() if served is not None and k not in served}
        return {"languages": dict(found.most_common()), "languages_unserved": unserved}

    def health_count(self) -> int:
        return self.store.count_live()

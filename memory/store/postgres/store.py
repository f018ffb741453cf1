"""The store on PostgreSQL with pgvector: the same methods as SQLite's ``Store``, for several daemons.

    store = PostgresStore("postgresql://agent@db/agentmemd", dim=384, model="all-MiniLM-L6-v2")

Every method of ``Store`` answers the same here; what differs is underneath (docs/postgres.md):

- Writes: each ``transaction()`` first takes one advisory lock of the database's, so the writes of
  every daemon sharing it run one after another, as SQLite's one writer does. Reads never wait:
  ``reading()`` is a read-only REPEATABLE READ transaction, one snapshot.
- Vectors: searched in RAM, each namespace's in a float32 matrix as on SQLite (vector_index.py),
  read from the store when first searched and kept in step with every daemon's writes by
  ``memory_vector_changes``, a log of the memories whose vectors changed, in commit order, which a
  search reads past what it has applied (one statement). ``memory_vectors`` holds them in the store.
- Words: ``memory_terms`` holds each memory's words as FTS5 reads them (words.py),
  ``memory_postings`` each word's memories with its counts there (what BM25 reads, as FTS5 reads
  its index) and ``memory_terms_stats`` each namespace's counts, so BM25 is FTS5's formula on
  FTS5's terms.
- The turns' full text is PostgreSQL's own (English stemming, ``ts_rank_cd``), kept by a trigger.
"""

from __future__ import annotations

import hashlib
import threading
from collections import Counter
from contextlib import contextmanager
from typing import Any, Iterator

import numpy as np

from agentmemd.memory.core.config import redact
from agentmemd.memory.core.errors import StoreError, StoreUnavailable
from agentmemd.memory.core.vocabulary import IDENTITY_TYPES
from agentmemd.memory.store.database import (
    COLUMNS,
    INSERTED_COLUMNS,
    Store,
    fts_terms_in_order,
    inserted_values,
    to_blob,
)
from agentmemd.memory.store.fts5_words import fts5_words, query_terms
from agentmemd.memory.store.postgres.connection import Connection, SqlTables, connect
from agentmemd.memory.store.postgres.schema import (
    OWN_FUNCTIONS,
    WRITE_LOCK,
    applied_migrations,
    catalog_of,
    upgrade_postgres,
)
from agentmemd.memory.store.schema import migrations_upto
from agentmemd.memory.store.vector_index import VectorIndex

# FTS5's BM25 constants (fts5_aux.c): the formula is reproduced, so both stores rank alike.
BM25_K1, BM25_B = 1.2, 0.75
# More changed memories than this since a search last looked: its namespaces are read again whole,
# in binary, rather than each changed one as text.
VECTOR_CHANGES_READ = 2_000
VECTOR_CHANGES_KEPT = 100_000  # the log keeps this many of the last changes (a daemon further behind reads again)


OWNER_LOCKS = 0x616D6403  # the class of the advisory locks each open store holds: (OWNER_LOCKS, its key)


def _owner_key(owner: str) -> int:
    """An owner as the 32-bit key of its advisory lock."""
    return int.from_bytes(hashlib.sha256(owner.encode()).digest()[:4], "big", signed=True)


def vector_literal(vec: np.ndarray) -> str:
    """pgvector's text form; repr gives each float32 back exactly."""
    return "[" + ",".join(map(repr, np.asarray(vec, dtype=np.float32).tolist())) + "]"


class PostgresTables:
    """What an archive reads of a PostgreSQL store (archive.py's SqliteTables, for this one): every
    table but the search indexes and the migrations' record, in their keys' order."""

    DERIVED = (
        "memory_terms",
        "memory_postings",
        "memory_terms_stats",
        "memory_term_counts",
        "memory_vectors",
        "memory_vector_changes",
        "memory_vector_log",
        "turn_search",
        "schema_migrations",
    )

    def __init__(self, conn: Connection):
        self.conn = conn

    def names(self) -> list[str]:
        return sorted(t for t in self.conn.catalog.keys if t not in self.DERIVED)

    def order(self, table: str) -> str:
        keys = self.conn.catalog.keys.get(table)
        if keys:
            return ", ".join(f'"{k}"' for k in keys)
        return "rowid" if table in self.conn.catalog.rowid_tables else "1"

    def schema(self) -> list[str]:
        return applied_migrations(self.conn.raw)


def open_existing(url: str) -> Connection:
    """A read-only connection to the agentmemd store at ``url``; StoreError if there is none."""
    conn = connect(url, None, read_only=True)
    if not applied_migrations(conn.raw):
        conn.close()
        raise StoreError(f"no agentmemd store at {redact(url)}")
    conn.catalog = catalog_of(conn.raw)
    return conn


def holds_store(url: str) -> bool:
    """Whether the database at ``url`` holds an agentmemd store with anything in it (one that holds
    only what opening it wrote, as an import stopped part way leaves, does not count)."""
    from agentmemd.memory.store.archive import holds_nothing

    conn = connect(url, None, read_only=True)
    try:
        if not applied_migrations(conn.raw):
            return False
        conn.catalog = catalog_of(conn.raw)
        return not holds_nothing(PostgresTables(conn))
    finally:
        conn.close()


class PostgresStore(Store):
    vectors_in_ram = True  # kept in step with every daemon's writes by memory_vector_changes

    def __init__(self, url: str, *, dim: int, model: str, upto: str | None = None):
        """``upto``: as for the SQLite store."""
        self.path = url
        self.url = url
        self.dim = dim
        writer = connect(url, None, on_connect=self._prepare_writer)  # the catalog is read once the schema is there
        try:
            self.schema = upgrade_postgres(writer.raw, dim, migrations_upto(upto))
            writer.catalog = catalog_of(writer.raw)
        except BaseException:
            writer.close()
            raise
        self._writer = writer
        self._writer_db = SqlTables(writer)
        self._local = threading.local()
        self._readers: list[Connection] = []
        self._readers_lock = threading.Lock()
        self._lock = threading.RLock()
        self._after_commit = []
        self._depth = 0
        self.vectors = VectorIndex(dim, self._load_namespace_vectors)
        self._vectors_lock = threading.RLock()  # one catch-up or load at a time, on _vectors_conn
        self._vectors_conn: Connection | None = None
        self._vectors_seen: int | None = None  # the last change applied (None: none read yet)
        self._fts_numbers = {}
        self._counting = True  # off while a whole store is indexed at once (index_live), counted after
        self._pending_counts: dict[str, list] = {}  # namespace -> [documents, tokens, Counter of terms]
        self._indexed = 0  # memories indexed since the last ANALYZE (_analyze_after_growth)
        self._analyzed_rows = 0
        self._check_embedding_meta(dim, model)
        self.switch_model(model)

    # ---- the vectors in RAM -----------------------------------------------------------------

    def _vectors_connection(self) -> Connection:
        if self._vectors_conn is None:
            self._vectors_conn = connect(self.url, self.catalog, read_only=True)
            with self._readers_lock:
                self._readers.append(self._vectors_conn)
        return self._vectors_conn

    def _vectors_caught_up(self) -> None:
        """Apply to the loaded namespaces what every daemon committed since the last look: one
        statement, one snapshot, reading the log past the last change applied and the changed
        memories' vectors now (none: it went). A load reads later than any catch-up before it,
        and applying a change again is harmless, so nothing committed is missed. Once a read
        transaction (a pack's knn, neighbours and best windows: one look, not three)."""
        local = self._local
        if getattr(local, "conn", None) is not None:
            if getattr(local, "vectors_looked", False):
                return
            local.vectors_looked = True
        with self._vectors_lock:
            conn = self._vectors_connection()
            seen = self._vectors_seen
            if seen is None or self.vectors.loaded() == 0:  # nothing in RAM: only where the log stands
                (top,) = conn.execute("SELECT max(change) FROM memory_vector_changes").fetchone()
                self._vectors_seen = int(top or 0)
                return
            rows = conn.execute(
                "SELECT l.through, (SELECT max(change) FROM memory_vector_changes), c.seq, v.namespace, v.embedding "
                "FROM memory_vector_log l LEFT JOIN (SELECT DISTINCT seq FROM memory_vector_changes WHERE change > ? "
                "LIMIT ?) c ON true LEFT JOIN memory_vectors v ON v.seq = c.seq ORDER BY c.seq, v.part",
                (seen, VECTOR_CHANGES_READ + 1),
            ).fetchall()
            through, top = rows[0][0], int(rows[0][1] or 0)
            changed: dict[int, tuple[str | None, list[np.ndarray]]] = {}
            for _, _, seq, namespace, text in rows:
                if seq is not None:
                    entry = changed.setdefault(int(seq), (namespace, []))
                    if text is not None:
                        entry[1].append(np.array(text[1:-1].split(","), dtype=np.float32))
            if through > seen or len(changed) > VECTOR_CHANGES_READ:
                self.vectors.clear()  # too far behind: each namespace is read again when next searched
            else:
                for seq, (namespace, vectors) in changed.items():
                    self.vectors.remove(seq)
                    if vectors:
                        self.vectors.add(namespace, seq, np.vstack(vectors))
            self._vectors_seen = max(seen, top)

    def _load_namespace_vectors(self, namespace: str) -> tuple[list[int], list[list[bytes]]]:
        """A namespace's vectors, read in one snapshot no older than the last catch-up's."""
        with self._vectors_lock:
            conn = self._vectors_connection()
            conn.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
            try:
                seqs, chunks = self._load_vectors(namespace, conn)
                return seqs, list(chunks)
            finally:
                conn.finish("ROLLBACK")

    def knn(self, namespace: str, vec: np.ndarray, n: int, skip: set[int] | None = None) -> list[tuple[int, float]]:
        self._vectors_caught_up()
        return self.vectors.search(namespace, vec, n, skip)

    def adjacent(self, namespace: str, seqs: list[int]) -> dict[int, tuple[int | None, int | None]]:
        self._vectors_caught_up()
        return self.vectors.adjacent(namespace, seqs)

    def best_cosines(self, namespace: str, seqs: list[int], qvec: np.ndarray) -> dict[int, float]:
        self._vectors_caught_up()
        return self.vectors.best_cosines(namespace, seqs, qvec)

    def rows_by_seq(self, seqs: list[int]) -> list[dict[str, Any]]:
        """The rows, each live memory's ``embedding`` taken from the matrix in RAM (the same float32
        bytes): over the wire a vector is 3 KB of hex text to decode, ~3 ms for a pack's 300 rows.
        The rest (not loaded, superseded) are read."""
        if not seqs:
            return []
        columns = COLUMNS.replace(", embedding", ", NULL AS embedding")
        rows = self._rows(f"SELECT {columns} FROM memories WHERE seq = ANY(?::bigint[])", (list(seqs),))
        by_namespace: dict[str, list[dict[str, Any]]] = {}
        for row in rows:
            by_namespace.setdefault(row["namespace"], []).append(row)
        missing: dict[int, dict[str, Any]] = {}
        for namespace, group in by_namespace.items():
            found = self.vectors.first_vectors(namespace, [r["seq"] for r in group if r["superseded_by"] is None])
            for row in group:
                row["embedding"] = found.get(row["seq"])
                if row["embedding"] is None:
                    missing[row["seq"]] = row
        if missing:
            for seq, blob in self.conn.execute(
                "SELECT seq, embedding FROM memories WHERE seq = ANY(?::bigint[])", (list(missing),)
            ):
                missing[seq]["embedding"] = bytes(blob)
        return rows

    def _prune_vector_changes(self) -> None:
        """Keep the log's last VECTOR_CHANGES_KEPT changes (its own transaction, after a commit)."""
        top = self._writer.execute("SELECT max(change) FROM memory_vector_changes").fetchone()[0]
        if top is None or top <= VECTOR_CHANGES_KEPT:
            return
        with self.transaction():
            self.conn.execute(
                "UPDATE memory_vector_log SET through = greatest(through, ?)", (top - VECTOR_CHANGES_KEPT,)
            )
            self.conn.execute("DELETE FROM memory_vector_changes WHERE change <= ?", (top - VECTOR_CHANGES_KEPT,))

    def _prepare_writer(self, raw) -> None:
        """The lock that says this store is open (``owners_alive``): a session lock, held until the
        connection ends, taken again on a new one."""
        raw.execute("SELECT pg_advisory_lock(%s, %s)", (OWNER_LOCKS, _owner_key(self.owner)))

    def owners_alive(self, owners: set[str]) -> set[str]:
        """Those of ``owners`` whose daemon still holds its lock (its connection is open): another
        daemon on this database, at work. A lock taken here to ask is let go at once."""
        alive = owners & {self.owner}
        for owner in sorted(owners - alive):
            key = (OWNER_LOCKS, _owner_key(owner))
            if self._writer.ask("SELECT pg_try_advisory_lock(%s, %s)", key)[0]:
                self._writer.ask("SELECT pg_advisory_unlock(%s, %s)", key)
            else:
                alive.add(owner)
        return alive

    @property
    def catalog(self):
        return self._writer.catalog

    @contextmanager
    def reading(self) -> Iterator[None]:
        local = self._local
        if getattr(local, "conn", None) is not None:
            yield
            return
        reader = getattr(local, "reader", None)
        if reader is None:
            reader = local.reader = connect(self.url, self.catalog, read_only=True)
            local.reader_db = SqlTables(reader)
            with self._readers_lock:
                self._readers.append(reader)
        local.conn, local.db = reader, local.reader_db
        local.vectors_looked = False
        reader.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")  # on a new connection if dropped
        try:
            yield
        finally:
            local.conn = local.db = None
            reader.finish("ROLLBACK")  # it only read: nothing to keep, and nothing lost if the server went away

    def cache_max_bytes(self) -> int:
        return 0  # PostgreSQL's shared buffers are the server's, not this process's

    def _begin(self) -> None:
        """Every daemon's write transactions take one lock: they run one at a time, as SQLite's."""
        self._writer.execute("BEGIN")  # on a new connection if the server dropped the last one
        try:
            self._writer.execute("SELECT pg_advisory_xact_lock(?)", (WRITE_LOCK,))
        except BaseException:
            self._roll_back()
            raise

    def _roll_back(self) -> None:
        self._pending_counts = {}
        self._writer.finish("ROLLBACK")  # a dropped connection took its transaction with it

    def _commit(self) -> None:
        try:
            self._flush_counts()
        except BaseException:
            self._roll_back()
            raise
        self._writer.finish("COMMIT")
        self._analyze_after_growth()

    def _analyze_after_growth(self) -> None:
        """ANALYZE the search tables once they have grown by a fifth (or 1,000 memories) since this
        daemon last did: the planner picks its indexes by their statistics, and autovacuum's
        threshold and nap leave a freshly filled store with stale ones for minutes (packs measured
        2x slower at 2,000 memories until then)."""
        if self._indexed < max(1000, self._analyzed_rows // 5):
            return
        try:  # after the commit: a server gone away now leaves the statistics for the next time
            self._writer.execute("ANALYZE memories, memory_terms, memory_vectors, memory_windows")
            self._analyzed_rows = self._writer.execute("SELECT count(*) FROM memories").fetchone()[0]
            self._prune_vector_changes()
        except StoreUnavailable:
            return
        self._indexed = 0

    def _before_close(self) -> None:
        pass  # the server keeps what was committed

    def scrub(self, namespace: str) -> None:
        """Nothing here: a deleted row's old version stays in the table's pages until the server's
        autovacuum reclaims them (docs/postgres.md)."""

    def applied_migrations(self) -> list[str]:
        return applied_migrations(self.conn.raw)

    def archive_tables(self) -> "PostgresTables":
        return PostgresTables(self.conn)

    def discard(self) -> None:
        """Remove every table and function this store made, then close it (an import that failed
        leaves nothing in the database)."""
        with self._lock:
            raw = self._writer.raw
            for table in self.catalog.keys:
                raw.execute(f"DROP TABLE IF EXISTS {table} CASCADE")
            for function in OWN_FUNCTIONS:
                raw.execute(f"DROP FUNCTION IF EXISTS {function} CASCADE")
        self.close()

    def insert_many(self, rows: list[dict[str, Any]], vectors: list[np.ndarray]) -> list[int]:
        """The rows in a few statements whatever their number: the memories in one (their seqs
        returned), their words, postings and vectors in one each. Each statement is a round trip
        to the server, and a memory stored alone costs seven or so of them."""
        if len(rows) < 2:
            return super().insert_many(rows, vectors)
        cols = INSERTED_COLUMNS
        stacked = [np.atleast_2d(np.asarray(v, dtype=np.float32)) for v in vectors]
        values = [value for row, vecs in zip(rows, stacked) for value in inserted_values(row, vecs)]
        marks = ", ".join(["(" + ", ".join("?" * len(cols)) + ")"] * len(rows))
        found = self.conn.execute(
            f"INSERT INTO memories ({', '.join(cols)}) VALUES {marks} RETURNING id, seq", values
        ).fetchall()
        seq_of = {memory_id: int(seq) for memory_id, seq in found}
        seqs = [seq_of[row["id"]] for row in rows]
        self.conn.executemany(
            "INSERT INTO memory_windows (seq, part, embedding) VALUES (?, ?, ?)",
            [(seq, part, to_blob(v)) for seq, vecs in zip(seqs, stacked) for part, v in enumerate(vecs[1:], 1)],
        )
        self._index_many(seqs, rows, stacked)
        for namespace in sorted({row["namespace"] for row in rows if row["type"] in IDENTITY_TYPES}):
            self.identity_changed(namespace)
        return seqs

    def _index_many(self, seqs: list[int], rows: list[dict[str, Any]], stacked: list[np.ndarray]) -> None:
        """``_index`` of new memories (none indexed before), in three statements."""
        self._indexed += len(seqs)
        terms_rows: list[Any] = []
        posted: tuple[list, ...] = ([], [], [], [], [], [])
        for seq, row in zip(seqs, rows):
            namespace = row["namespace"]
            text_terms, context_terms = fts5_words(row["content"], row.get("context") or "")
            size = len(text_terms) + len(context_terms)
            words = sorted(set(text_terms) | set(context_terms))
            terms_rows += [seq, namespace, text_terms, context_terms, words, size]
            said, around = Counter(text_terms), Counter(context_terms)
            for term in words:
                for column, value in zip(posted, (namespace, term, seq, said[term], around[term], size)):
                    column.append(value)
            self._count_later(namespace, size, words)
        marks = ", ".join(["(?, ?, ?, ?, ?, ?)"] * len(seqs))
        self.conn.execute(
            f"INSERT INTO memory_terms (seq, namespace, text_terms, context_terms, all_terms, size) VALUES {marks}",
            terms_rows,
        )
        self.conn.execute(
            "INSERT INTO memory_postings (namespace, term, seq, text_tf, context_tf, size) "
            "SELECT * FROM unnest(?::text[], ?::text[], ?::bigint[], ?::int[], ?::int[], ?::int[])",
            posted,
        )
        parts = [(seq, part, row["namespace"], vector_literal(v)) for seq, row, vecs in zip(seqs, rows, stacked)
                 for part, v in enumerate(vecs)]  # fmt: skip
        self.conn.execute(
            "INSERT INTO memory_vectors (seq, part, namespace, embedding) "
            "SELECT s, p, n, e::vector FROM unnest(?::bigint[], ?::int[], ?::text[], ?::text[]) AS u(s, p, n, e)",
            [list(column) for column in zip(*parts)],
        )

    def _new_seq(self) -> int | None:
        return None  # the identity column's sequence: never a number handed out before

    def defer_foreign_keys(self) -> None:
        self.conn.raw.execute("SET CONSTRAINTS ALL DEFERRED")

    def _load_fts_numbers(self) -> dict[str, int]:
        return {}

    # ---- the search indexes ------------------------------------------------------------------

    def _index(self, seq: int, namespace: str, content: str, context: str | None, vectors: np.ndarray | None) -> None:
        self._indexed += 1
        text_terms, context_terms = fts5_words(content, context or "")
        size = len(text_terms) + len(context_terms)
        added = self.conn.execute(
            "INSERT INTO memory_terms (seq, namespace, text_terms, context_terms, all_terms, size) "
            "VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (seq) DO NOTHING RETURNING seq",
            (seq, namespace, text_terms, context_terms, sorted(set(text_terms) | set(context_terms)), size),
        ).fetchone()
        if added is not None:
            said, around = Counter(text_terms), Counter(context_terms)
            terms = sorted(said.keys() | around.keys())
            self.conn.execute(
                "INSERT INTO memory_postings (namespace, term, seq, text_tf, context_tf, size) "
                "SELECT ?, t, ?, tt, ct, ? FROM unnest(?::text[], ?::int[], ?::int[]) AS u(t, tt, ct)",
                (namespace, seq, size, terms, [said[t] for t in terms], [around[t] for t in terms]),
            )
        if added is not None:  # a memory indexed again (restored) is counted once
            self._count_later(namespace, size, set(text_terms) | set(context_terms))
        if vectors is not None:
            self._index_vectors(seq, namespace, vectors)

    def _count_later(self, namespace: str, size: int, words) -> None:
        """A memory newly indexed, for _flush_counts (unless a whole store is counted at the end)."""
        if self._counting:
            pending = self._pending_counts.setdefault(namespace, [0, 0, Counter()])
            pending[0] += 1
            pending[1] += size
            pending[2].update(words)

    def _flush_counts(self) -> None:
        """The word counts of the memories indexed since the last flush, written once a namespace:
        a transaction that stores 500 memories updates each common word's row once, not 500 times.
        Before anything reads or lowers the counts, and before the transaction commits."""
        pending, self._pending_counts = self._pending_counts, {}
        for namespace, (documents, tokens, terms) in sorted(pending.items()):
            self.conn.execute(
                "INSERT INTO memory_terms_stats (namespace, documents, tokens) VALUES (?, ?, ?) ON CONFLICT (namespace) "
                "DO UPDATE SET documents = memory_terms_stats.documents + EXCLUDED.documents, "
                "tokens = memory_terms_stats.tokens + EXCLUDED.tokens",
                (namespace, documents, tokens),
            )
            words = sorted(terms)
            self.conn.execute(
                "INSERT INTO memory_term_counts (namespace, term, documents) "
                "SELECT ?, t, c FROM unnest(?::text[], ?::int[]) AS u(t, c) ON CONFLICT (namespace, term) "
                "DO UPDATE SET documents = memory_term_counts.documents + EXCLUDED.documents",
                (namespace, words, [terms[w] for w in words]),
            )

    def _index_vectors(self, seq: int, namespace: str, vectors: np.ndarray) -> None:
        self.conn.executemany(
            "INSERT INTO memory_vectors (seq, part, namespace, embedding) VALUES (?, ?, ?, ?::vector) "
            "ON CONFLICT (seq, part) DO UPDATE SET embedding = EXCLUDED.embedding, namespace = EXCLUDED.namespace",
            [(seq, part, namespace, vector_literal(vec)) for part, vec in enumerate(np.atleast_2d(vectors))],
        )

    def _drop_vector_index(self) -> None:
        self.conn.execute("DELETE FROM memory_vectors")

    def index_live(self, where: str, params: tuple = (), *, whole_store: bool = False) -> int:
        """A whole store (an archive read back) is indexed in bulk: the namespaces' counts made
        once at the end. One by one, in the one transaction an import is, each memory rewrote the
        same count rows (a row a common word) again and again: 100,000 memories had not finished
        in 20 minutes."""
        if not whole_store:
            return super().index_live(where, params)
        self._counting = False
        try:
            count = super().index_live(where, params)
        finally:
            self._counting = True
        self.conn.execute("DELETE FROM memory_terms_stats")
        self.conn.execute(
            "INSERT INTO memory_terms_stats (namespace, documents, tokens) "
            "SELECT namespace, count(*), sum(size) FROM memory_terms GROUP BY namespace"
        )
        self.conn.execute("DELETE FROM memory_term_counts")
        self.conn.execute(
            "INSERT INTO memory_term_counts (namespace, term, documents) "
            "SELECT namespace, t, count(*) FROM memory_terms, unnest(all_terms) t GROUP BY namespace, t"
        )
        return count

    def _unindex(self, seq: int) -> None:
        self._flush_counts()
        gone = self.conn.execute(
            "DELETE FROM memory_terms WHERE seq = ? RETURNING namespace, size, all_terms", (seq,)
        ).fetchone()
        if gone is not None:
            namespace, size, terms = gone
            self.conn.execute(
                "DELETE FROM memory_postings WHERE namespace = ? AND term = ANY(?::text[]) AND seq = ?",
                (namespace, list(terms), seq),
            )
            self.conn.execute(
                "UPDATE memory_terms_stats SET documents = documents - 1, tokens = tokens - ? WHERE namespace = ?",
                (size, namespace),
            )
            self.conn.execute(
                "UPDATE memory_term_counts SET documents = documents - 1 WHERE namespace = ? AND term = ANY(?::text[])",
                (namespace, list(terms)),
            )
        self.conn.execute("DELETE FROM memory_vectors WHERE seq = ?", (seq,))

    def _counted(self) -> None:
        """Inside this daemon's write transaction, the counts it has not written yet first."""
        if self._pending_counts and self.conn is self._writer:
            self._flush_counts()

    def _stats_and_frequencies(self, namespace: str, terms: list[str]) -> tuple[int, int, list[int]] | None:
        """The namespace's document and token counts and each term's document frequency, in one
        round trip (None: the namespace has no words yet)."""
        self._counted()
        row = self.conn.execute(
            "SELECT s.documents, s.tokens, ARRAY(SELECT coalesce((SELECT c.documents FROM memory_term_counts c "
            "WHERE c.namespace = s.namespace AND c.term = u.t), 0) FROM unnest(?::text[]) WITH ORDINALITY AS u(t, i) "
            "ORDER BY u.i) FROM memory_terms_stats s WHERE s.namespace = ?",
            (list(terms), namespace),
        ).fetchone()
        return (int(row[0]), int(row[1]), [int(df) for df in row[2]]) if row else None

    def term_statistics(self, namespace: str, terms: list[str]) -> tuple[int, list[int]] | None:
        with self._guard():
            stems = [query_terms([t]) for t in terms]
            counted = self._stats_and_frequencies(namespace, [w for ws in stems for w in ws])
            if counted is None:
                return None
            documents, _, hits = counted
            found = iter(hits)
            frequencies = [max([next(found) for _ in ws] or [0]) for ws in stems]
            return max(documents, *frequencies, 0), frequencies

    def fts_scores(self, namespace: str, terms: list[str], context_weight: float = 1.0) -> dict[int, float]:
        """BM25 as FTS5's bm25() computes it (fts5_aux.c): per query term or phrase, its idf x a
        saturated frequency (the context's occurrences weighted) over the memory's length against the
        mean. Single words are scored in SQL; a phrase ("high school") by its words in order, here."""
        if not terms:
            return {}
        with self._guard():
            phrases = [p for p in (query_terms(fts_terms_in_order(t)) for t in terms) if p]
            words = [p[0] for p in phrases if len(p) == 1]
            counted = self._stats_and_frequencies(namespace, words)
            if counted is None or counted[0] == 0:
                return {}
            documents, tokens, hits = counted
            mean_length = tokens / documents
            scores: dict[int, float] = {}
            if words:
                rows = self.conn.execute(
                    "SELECT p.seq, sum(t.idf * q.tf * ?::float8 / (q.tf + ?::float8 * (1 - ?::float8 + ?::float8 * "
                    "p.size / ?::float8))) FROM unnest(?::text[], ?::float8[]) AS t(term, idf) "
                    "JOIN memory_postings p ON p.namespace = ? AND p.term = t.term "
                    "CROSS JOIN LATERAL (SELECT p.text_tf + ?::float8 * p.context_tf AS tf) q "
                    "WHERE q.tf > 0 GROUP BY p.seq",
                    (
                        BM25_K1 + 1,
                        BM25_K1,
                        BM25_B,
                        BM25_B,
                        mean_length,
                        words,
                        [_idf(documents, n) for n in hits],
                        namespace,
                        context_weight,
                    ),
                ).fetchall()
                scores = {int(seq): float(score) for seq, score in rows}
            for phrase in (p for p in phrases if len(p) > 1):
                rows = self.conn.execute(
                    "SELECT seq, text_terms, context_terms, size FROM memory_terms "
                    "WHERE namespace = ? AND all_terms @> ?::text[]",
                    (namespace, phrase),
                ).fetchall()
                found = {
                    int(seq): (tf, size)
                    for seq, text, context, size in rows
                    if (tf := _count_phrase(text, phrase) + context_weight * _count_phrase(context, phrase)) > 0
                }
                idf = _idf(documents, len(found))
                for seq, (tf, size) in found.items():
                    saturation = tf + BM25_K1 * (1 - BM25_B + BM25_B * size / mean_length)
                    scores[seq] = scores.get(seq, 0.0) + idf * tf * (BM25_K1 + 1) / saturation
            return scores

    def terms_held(self, namespace: str, terms: list[str], seqs: list[int]) -> dict[int, set[str]]:
        out: dict[int, set[str]] = {seq: set() for seq in seqs}
        if not seqs:
            return out
        with self._guard():
            for term in terms:
                stems = query_terms([term])
                if not stems:
                    continue
                rows = self.conn.execute(
                    "SELECT seq FROM memory_terms WHERE namespace = ? AND seq = ANY(?::bigint[]) "
                    "AND text_terms @> ?::text[]",
                    (namespace, list(seqs), stems),
                ).fetchall()
                for (seq,) in rows:
                    out[int(seq)].add(term)
        return out

    def phrase_matches(self, namespace: str, phrases: tuple[str, ...], n: int) -> list[int]:
        if not phrases or n <= 0:
            return []
        found: set[int] = set()
        with self._guard():
            for phrase in phrases:
                stems = query_terms(fts_terms_in_order(phrase))
                if not stems:
                    continue
                rows = self.conn.execute(
                    "SELECT seq, text_terms FROM memory_terms WHERE namespace = ? AND text_terms @> ?::text[] "
                    "ORDER BY seq DESC",
                    (namespace, stems),
                )
                taken = 0
                for seq, words in rows:
                    if _holds_phrase(words, stems):
                        found.add(int(seq))
                        taken += 1
                        if taken >= n:
                            break
        return sorted(found, reverse=True)[:n]

    # ---- the turns' full text ---------------------------------------------------------------

    def turn_match(self, words: list[str]) -> tuple[str, str, str, list[Any]] | None:
        """PostgreSQL's English text search, ranked by ts_rank_cd (negated: lower is better)."""
        if not words:
            return None
        query = " | ".join(f"'{w}'" for w in words)  # fts_terms' words: letters and digits only
        return (
            "turn_search f JOIN conversation_turns t ON t.seq = f.seq",
            "-ts_rank_cd(f.document, to_tsquery('english', ?))",
            "f.document @@ to_tsquery('english', ?)",
            [query, query],
        )

    def unindex_turn(self, seq: int) -> None:
        pass  # the trigger keeps turn_search in step with the turn's content

    def index_turn(self, seq: int, content: str) -> None:
        pass

    def rebuild_turn_index(self) -> None:
        self.conn.execute(
            "INSERT INTO turn_search (seq, document) SELECT seq, to_tsvector('english', content) "
            "FROM conversation_turns ON CONFLICT (seq) DO UPDATE SET document = EXCLUDED.document"
        )

    def reset_sequences(self) -> None:
        """After rows came in with their keys (an archive): each generated key goes on past the largest."""
        for table, column in self.catalog.identities.items():
            self.conn.execute(
                f"SELECT setval(pg_get_serial_sequence('{table}', '{column}'), "
                f"coalesce((SELECT max({column}) FROM {table}), 0) + 1, false)"
            )


def _count_phrase(words: list[str], phrase: list[str]) -> int:
    span = len(phrase)
    return sum(words[i : i + span] == phrase for i in range(len(words) - span + 1))


def _holds_phrase(words: list[str], phrase: list[str]) -> bool:
    return _count_phrase(words, phrase) > 0


def _idf(documents: int, hits: int) -> float:
    """FTS5's: never below a millionth (a term in over half the rows still counts a little)."""
    idf = float(np.log((documents - hits + 0.5) / (hits + 0.5)))
    return idf if idf > 0 else 1e-6

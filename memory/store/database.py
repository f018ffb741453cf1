"""SQLite is the source of truth: memories, their vec0 and FTS5 indexes, the archive, the pack log.

One connection (sqlean.py, so extensions load), WAL mode, explicit transactions.
The store is deliberately dumb: it reads and writes rows; policy lives in service.py.
"""

from __future__ import annotations

import json
import logging
import os
import re
import socket
import stat
import threading
import uuid
import zlib
from contextlib import contextmanager, nullcontext
from functools import cached_property
from pathlib import Path
from typing import Any, Iterator

import numpy as np
import sqlean
import sqlite_utils

from agentmemd.memory.core.errors import StoreError, StoreUnavailable
from agentmemd.memory.core.text import QUERY_STOPWORDS
from agentmemd.memory.core.vocabulary import IDENTITY_FILES, IDENTITY_TYPES
from agentmemd.memory.store.migrations.shared import (
    create_namespace_fts,
    create_vector_index,
    namespace_fts_table,
)
from agentmemd.memory.store.schema import upgrade_schema
from agentmemd.memory.store.sqlite_connection import connect, read_only_uri
from agentmemd.memory.store.vector_index import VectorIndex

log = logging.getLogger("agentmemd")

COLUMNS = (
    "seq, id, namespace, content, context, type, priority, source, tags, created, ingested, "
    "last_accessed, access_count, version, supersedes, superseded_by, token_len, audience, origin_chat, said_by, "
    "embedding"
)
# Columns a row may leave out: who may hear it (the user's own) and where it was said (nowhere in particular).
OPTIONAL_COLUMNS = {"audience": "user", "origin_chat": None, "said_by": None}
INSERTED_COLUMNS = [c.strip() for c in COLUMNS.split(",")][1:]  # what a new memory's INSERT names (not seq)


def inserted_values(row: dict[str, Any], vectors: np.ndarray) -> list[Any]:
    """A new memory's values in INSERTED_COLUMNS' order; ``vectors`` (2-d): its first is ``embedding``."""
    row = {**OPTIONAL_COLUMNS, **row}
    values = [row[c] if c != "tags" else json.dumps(row.get("tags") or []) for c in INSERTED_COLUMNS[:-1]]
    return [*values, to_blob(vectors[0])]


# A word as FTS5's unicode61 takes it: a run of letters or digits; it splits "don't" and
# "well-known" at the apostrophe and the hyphen that memory/core/text.py's words keep.
FTS_WORD = re.compile(r"[^\W_]+")


# Does a memory ask a question (its text ends with a question mark, the Latin, full-width or
# Arabic one, perhaps before a bracketed note such as "[shared image: ...]")? In SQL, so a
# neighbour's whole text need not be read.
ASKS_SQL = "(" + " OR ".join(f"rtrim(content) LIKE '%{m}' OR rtrim(content) LIKE '%{m} [%]'" for m in "?？؟") + ")"


class NotWhole(sqlean.DatabaseError):
    """What PRAGMA quick_check found wrong in a database file that opened."""


def damaged(path: str, exc: BaseException) -> StoreError:
    """A database file SQLite cannot read (cut short, overwritten, not a database): what it said and
    what to do, instead of a traceback. Nothing was written to it."""
    return StoreError(
        f"the database {path} cannot be read: {exc}. Nothing was changed. Restore it from a copy or an "
        "archive (`agentmemd import-store ARCHIVE --data-dir NEW_DIR`), or save what SQLite can still read: "
        f"`sqlite3 {path} .recover | sqlite3 recovered.db`, then move recovered.db in its place",
        {"path": path, "error": str(exc)},
    )


class DimensionMismatch(StoreError):
    """The data dir's embeddings have another dimension than the configured model's."""


def fts_terms_in_order(text: str) -> list[str]:
    """The words of ``text`` as FTS5 splits them, lower-cased, in order, stopwords and repeats kept."""
    return FTS_WORD.findall(text.lower())


def distinct_terms(said: list[str]) -> list[str]:
    """The distinct non-stopword words of ``said`` (fts_terms_in_order's), in order."""
    return list(dict.fromkeys(t for t in said if t not in QUERY_STOPWORDS))


def fts_terms(text: str) -> list[str]:
    """The distinct non-stopword words of ``text``, lower-cased, in order."""
    return distinct_terms(fts_terms_in_order(text))


def fts_query(terms: str | list[str]) -> str | None:
    """An OR query of the terms (or of a text's terms), each quoted: FTS5 syntax-safe."""
    if isinstance(terms, str):
        terms = fts_terms(terms)
    return " OR ".join(f'"{t}"' for t in terms) or None


def indexed_text(content: str, context: str | None) -> str:
    """What the embedder and FTS5 see: the context (if any) situates the content."""
    return f"{context}\n{content}" if context else content


def to_blob(vec: np.ndarray) -> bytes:
    return np.asarray(vec, dtype=np.float32).tobytes()


def from_blob(blob: bytes) -> np.ndarray:
    return np.frombuffer(blob, dtype=np.float32)


def vector_or_zeros(blob: bytes, dim: int) -> np.ndarray:
    """A stored vector; zeros for one still to be made by the configured model (an empty blob:
    ``Store.switch_model``), which then matches nothing."""
    return from_blob(blob)[:dim] if blob else np.zeros(dim, dtype=np.float32)


def _pack_json(value: Any) -> bytes:
    return zlib.compress(json.dumps(value, separators=(",", ":")).encode(), 1)  # 1: 2.5x faster, 20 % larger


def prepared_pack(entry: dict[str, Any]) -> dict[str, Any]:
    """A pack log entry as stored: its candidates and choices as zlib-compressed JSON (a BLOB), its
    goals and the milliseconds of its stages as JSON."""
    return {
        **entry,
        "candidates": _pack_json(entry["candidates"]),
        "chosen": _pack_json(entry["chosen"]),
        "goals": json.dumps(entry.get("goals", [])),
        "stages": json.dumps(entry.get("stages_ms", {})),
    }


def _unpack_json(stored: str | bytes) -> Any:
    """Logged before the pack log was compressed: plain JSON text (as bytes, once moved to a store
    whose column holds bytes only)."""
    if isinstance(stored, (bytes, memoryview)):
        stored = bytes(stored)
        return json.loads(zlib.decompress(stored) if stored[:1] == b"\x78" else stored)
    return json.loads(stored)


def dead_owners(store: "Store", table: str) -> list[str]:
    """The owners of ``table``'s runs still marked running whose store is no longer open."""
    running = {row[0] for row in store.conn.execute(f"SELECT DISTINCT owner FROM {table} WHERE status = 'running'")}
    running.discard(None)
    return sorted(running - store.owners_alive(running))


def _in_chunks(values: list, size: int = 900) -> Iterator[tuple[list, str]]:
    """``values`` in slices an ``IN (...)`` can take (SQLite's bound-parameter limit), each with
    its placeholders."""
    for start in range(0, len(values), size):
        chunk = values[start : start + size]
        yield chunk, ", ".join("?" * len(chunk))


def age_columns(now: str) -> tuple[str, list[Any]]:
    """The SQL columns of a memory's age as ``retention_many`` takes it (is an identity type, access
    count, hours since its last access at ``now``), and their parameters."""
    marks = ", ".join("?" * len(IDENTITY_TYPES))
    columns = f"type IN ({marks}), access_count, (julianday(?) - julianday(last_accessed)) * 24.0"
    return columns, [*sorted(IDENTITY_TYPES), now]


PRIVATE_DIR, PRIVATE_FILE = 0o700, 0o600


def remove_sqlite_files(db: Path) -> None:
    """A SQLite database's file and its WAL and shared-memory files, where they are."""
    for path in (db, db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm")):
        path.unlink(missing_ok=True)


def secure_data_dir(data_dir: Path) -> list[str]:
    """Make the data dir 0700 and every file in it 0600 (memories are private), creating the
    dir if needed. Returns what had to be tightened, for a log line."""
    data_dir = Path(data_dir)
    data_dir.mkdir(parents=True, exist_ok=True, mode=PRIVATE_DIR)
    fixed: list[str] = []
    for path, wanted in [(data_dir, PRIVATE_DIR), *((p, PRIVATE_FILE) for p in data_dir.iterdir() if p.is_file())]:
        mode = stat.S_IMODE(path.lstat().st_mode)
        if mode & ~wanted:
            os.chmod(path, wanted)
            fixed.append(f"{path.name or path} {oct(mode)} -> {oct(wanted)}")
    return fixed


class Store:
    """One writer connection, used by the store thread (and by every thread of a library user),
    and read-only connections for reader threads (``reading``): WAL lets them read committed
    state while the writer commits (issue 17). ``conn`` is the calling thread's."""

    vectors_in_ram = True  # the live memories' vectors, every window of each, in the in-RAM index
    _fault: str | None = None  # the storage fault writes meet now (disk_full, read_only, io_error)

    def __init__(self, path: str | Path, *, dim: int, model: str, synchronous: str = "NORMAL", upto: str | None = None):
        """``upto``: the schema's migrations up to and including this one only (an archive of an older
        schema is read into a store of its schema, then upgraded as a data dir is)."""
        self.path = str(path)
        self.dim = dim
        # Born private: SQLite gives the -wal and -shm files the database file's mode.
        os.close(os.open(self.path, os.O_RDWR | os.O_CREAT, PRIVATE_FILE))
        conn = connect(self.path, read_only=False)
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute(f"PRAGMA synchronous={synchronous}")
            conn.execute("PRAGMA foreign_keys=ON")
            conn.execute("SELECT count(*) FROM sqlite_master").fetchone()  # the file's header and schema read
            # A file overwritten in the middle opens, answers and takes writes into its broken pages:
            # every page is read once here (~65 ms for 20,000 memories with the file cached).
            problems = [row[0] for row in conn.execute("PRAGMA quick_check(5)")]
            if problems != ["ok"]:
                raise NotWhole("; ".join(problems)[:300])
        except sqlean.DatabaseError as exc:
            conn.close()
            raise self._opening_error(exc) from None
        # What is deleted is overwritten with zeros, not left in free pages: forgotten words leave
        # the file (docs/forgetting.md), as the FTS5 tables' 'secure-delete' takes them from the index.
        conn.execute("PRAGMA secure_delete=ON")
        self._writer = conn
        self._writer_db = sqlite_utils.Database(conn)
        self._local = threading.local()  # a reader thread's connection, while it reads
        self._readers: list[Any] = []  # every reader connection opened, closed with the store
        self._readers_lock = threading.Lock()
        self._lock = threading.RLock()  # the writer connection's: a transaction, or a read beside one
        # Index changes of the open transaction, applied to the in-RAM matrix on COMMIT.
        self._after_commit: list[tuple[str, int, np.ndarray | None]] = []
        self._depth = 0
        try:
            # A data dir a newer agentmemd wrote is refused here, before anything is written to it.
            self.schema = upgrade_schema(self.db, upto)
        except sqlean.DatabaseError as exc:
            conn.close()
            raise self._opening_error(exc) from None
        except BaseException:
            conn.close()
            raise
        self._check_embedding_meta(dim, model)
        create_vector_index(self.db, dim)
        self.vectors = VectorIndex(dim, self._load_namespace_vectors)
        self._fts_numbers = self._load_fts_numbers()
        self.switch_model(model)

    @property
    def conn(self) -> Any:
        """The connection of the calling thread: its read-only one inside ``reading()``, else the writer."""
        return getattr(self._local, "conn", None) or self._writer

    @property
    def db(self) -> sqlite_utils.Database:
        return getattr(self._local, "db", None) or self._writer_db

    @contextmanager
    def reading(self) -> Iterator[None]:
        """Run a block of reads on this thread's read-only connection (opened on first use, kept
        for the thread's next reads), in one read transaction: it sees the state committed when
        the block began and never waits on a write."""
        local = self._local
        if getattr(local, "conn", None) is not None:  # nested: already reading
            yield
            return
        reader = getattr(local, "reader", None)
        if reader is None:
            reader = local.reader = self._read_only_connection()
            local.reader_db = sqlite_utils.Database(reader)
            with self._readers_lock:
                self._readers.append(reader)
        local.conn, local.db = reader, local.reader_db
        # One read transaction for the block: its reads are of one snapshot (a document count and a
        # term's frequency, read by two statements, agree), whatever the store thread commits meanwhile.
        reader.execute("BEGIN")
        try:
            yield
        finally:
            local.conn = local.db = None
            reader.execute("COMMIT")

    def cache_max_bytes(self) -> int:
        """What the open connections' page caches may hold at most (PRAGMA cache_size each)."""
        with self._readers_lock:
            connections = 1 + len(self._readers)
        size = self._writer.execute("PRAGMA cache_size").fetchone()[0]
        page = self._writer.execute("PRAGMA page_size").fetchone()[0]
        per_connection = -size * 1024 if size < 0 else size * page  # negative: KiB
        return connections * per_connection

    def _guard(self):
        """The writer connection's lock when this thread uses it (a read must not land inside another
        thread's transaction); nothing on a reader connection."""
        return self._lock if self.conn is self._writer else nullcontext()

    # ---- plumbing -----------------------------------------------------------

    def _check_embedding_meta(self, dim: int, model: str) -> None:
        rows = dict(self.conn.execute("SELECT key, value FROM meta").fetchall())
        if not rows:
            self.conn.execute(
                "INSERT INTO meta(key, value) VALUES ('embedding_dim', ?), ('embedding_model', ?)", (str(dim), model)
            )
            return
        if int(rows.get("embedding_dim", dim)) != dim:
            raise DimensionMismatch(
                f"this data dir was built with {rows['embedding_dim']}-dimensional embeddings "
                f"({rows.get('embedding_model')}); the configured model gives {dim}"
            )
        self._model_before = rows.get("embedding_model") or model

    # ---- another embedding model ------------------------------------------------

    def switch_model(self, model: str) -> bool:
        """Open with another embedding model than the stored vectors' (a person changed
        ``[embedding] model``): every vector of the old model goes, in one transaction, and each
        memory waits for one of the new model (an empty ``embedding``) that ``Reembedding`` makes
        in the background, newest first. Meanwhile a memory without one is found by its words
        only. Derived vectors go too: goals' (made again with the memories) and the response
        cache's entries (asked again). Whether anything changed."""
        before = getattr(self, "_model_before", model)
        if before == model:
            return False
        with self.transaction():
            for table in ("memories", "memory_archive"):
                self.conn.execute(f"UPDATE {table} SET embedding = ? WHERE length(embedding) > 0", (b"",))
            self.conn.execute("DELETE FROM memory_windows")
            self._drop_vector_index()
            self.conn.execute("UPDATE goals SET embedding = ?", (b"",))
            self.conn.execute("DELETE FROM llm_cache")
            self.conn.execute("DELETE FROM meta WHERE key IN ('embedding_model', 'reembedding_from')")
            self.conn.execute(
                "INSERT INTO meta(key, value) VALUES ('embedding_model', ?), ('reembedding_from', ?)", (model, before)
            )
        self._model_before = model
        return True

    def _drop_vector_index(self) -> None:
        self.conn.execute("DELETE FROM memories_vec")
        self.vectors.clear()

    def reembedding_from(self) -> str | None:
        """The model whose vectors are being replaced (None: none are)."""
        row = self.conn.execute("SELECT value FROM meta WHERE key = 'reembedding_from'").fetchone()
        return row[0] if row else None

    def awaiting_vectors(self, limit: int) -> list[dict[str, Any]]:
        """Up to ``limit`` memory versions without a vector of the configured model: live ones
        first, newest first, then the rest (archived, superseded)."""
        return self._rows(
            "SELECT * FROM (SELECT seq, 'memories' AS place, namespace, content, context, superseded_by "
            "FROM memories WHERE length(embedding) = 0 UNION ALL "
            "SELECT seq, 'memory_archive' AS place, namespace, content, context, superseded_by "
            "FROM memory_archive WHERE length(embedding) = 0) AS waiting "
            "ORDER BY place <> 'memories' OR superseded_by IS NOT NULL, seq DESC LIMIT ?",
            (limit,),
        )

    def awaiting_count(self) -> tuple[int, int]:
        """(memory versions without a vector of the configured model, memory versions in all)."""
        waiting = total = 0
        for table in ("memories", "memory_archive"):
            row = self.conn.execute(
                f"SELECT count(*), coalesce(sum(CASE WHEN length(embedding) = 0 THEN 1 ELSE 0 END), 0) FROM {table}"
            ).fetchone()
            total += int(row[0])
            waiting += int(row[1])
        return waiting, total

    def set_vectors(self, seq: int, place: str, vectors: np.ndarray) -> bool:
        """A memory version's vectors of the configured model (and the index's, if it is live and
        current), unless it has gained some meanwhile (an update re-embedded it) or is gone."""
        if place not in ("memories", "memory_archive"):
            raise ValueError(f"no memory table {place!r}")
        vectors = np.atleast_2d(np.asarray(vectors, dtype=np.float32))
        changed = self.conn.execute(
            f"UPDATE {place} SET embedding = ? WHERE seq = ? AND length(embedding) = 0", (to_blob(vectors[0]), seq)
        ).rowcount
        if not changed:
            return False
        self.conn.execute("DELETE FROM memory_windows WHERE seq = ?", (seq,))
        self.conn.executemany(
            "INSERT INTO memory_windows (seq, part, embedding) VALUES (?, ?, ?)",
            [(seq, part, to_blob(vec)) for part, vec in enumerate(vectors[1:], 1)],
        )
        if place == "memories":
            namespace, superseded_by = self.conn.execute(
                "SELECT namespace, superseded_by FROM memories WHERE seq = ?", (seq,)
            ).fetchone()
            if superseded_by is None:
                self._index_vectors(seq, namespace, vectors)
        return True

    def goals_awaiting_vectors(self) -> list[tuple[str, str]]:
        """(id, text) of the goals without a vector of the configured model."""
        return [(r[0], r[1]) for r in self.conn.execute("SELECT id, text FROM goals WHERE length(embedding) = 0")]

    def set_goal_vector(self, goal_id: str, text: str, vector: np.ndarray) -> None:
        """Unless the goal's text changed meanwhile (its update embedded it)."""
        self.conn.execute(
            "UPDATE goals SET embedding = ? WHERE id = ? AND text = ? AND length(embedding) = 0",
            (to_blob(vector), goal_id, text),
        )

    def reembedding_done(self) -> None:
        self.conn.execute("DELETE FROM meta WHERE key = 'reembedding_from'")

    @contextmanager
    def transaction(self) -> Iterator[None]:
        """BEGIN IMMEDIATE ... COMMIT on the writer connection. Nested use joins the outer
        transaction (all or nothing). Never inside ``reading()``: writes go to the store thread."""
        if self.conn is not self._writer:
            raise StoreError("a write was attempted on a read-only connection (inside Store.reading)")
        with self._lock:
            if self._depth:
                self._depth += 1
                try:
                    yield
                finally:
                    self._depth -= 1
                return
            self._begin()
            self._depth = 1
            try:
                try:
                    yield
                    self._commit()
                except BaseException as exc:
                    self._roll_back()
                    fault = self._storage_fault(exc)
                    if fault is None:
                        raise
                    raise fault from exc
            finally:
                self._depth = 0
            self._fault_over()

    # What a transaction does at its ends (postgres/store.py has PostgreSQL's).
    def _begin(self) -> None:
        self.conn.execute("BEGIN IMMEDIATE")
        self._after_commit.clear()

    def _roll_back(self) -> None:
        self._after_commit.clear()
        if self.conn.in_transaction:  # a full disk may have ended it already (SQLite rolls back by itself)
            self.conn.execute("ROLLBACK")
        self._fts_numbers = self._load_fts_numbers()  # a namespace's new FTS table went with it

    # SQLite's storage faults by their result code, and what a person reads of each.
    STORAGE_FAULTS = {
        "SQLITE_FULL": ("disk_full", "the disk is full"),
        "SQLITE_READONLY": ("read_only", "the data dir is read-only"),
        "SQLITE_IOERR": ("io_error", "the disk failed to read or write"),
        "SQLITE_CANTOPEN": ("io_error", "the database file cannot be opened"),
    }

    def _opening_error(self, exc: BaseException) -> BaseException:
        """What opening the file met: a file SQLite cannot read (damaged), a storage fault (a full
        or read-only disk: StoreUnavailable), else the error itself."""
        name = getattr(exc, "sqlite_errorname", None) or ""
        if name.startswith(("SQLITE_CORRUPT", "SQLITE_NOTADB")) or isinstance(exc, NotWhole):
            return damaged(self.path, exc)
        return self._storage_fault(exc) or exc

    def _storage_fault(self, exc: BaseException) -> StoreUnavailable | None:
        """A write the storage refused, as the store's own error (logged once while the fault lasts);
        None for any other error."""
        name = getattr(exc, "sqlite_errorname", None) or ""
        found = next((v for k, v in self.STORAGE_FAULTS.items() if name == k or name.startswith(k + "_")), None)
        if found is None:
            return None
        kind, said = found
        if self._fault != kind:
            log.warning("store fault: writes fail until it is over", extra={"fault": kind, "error": str(exc)})
            self._fault = kind
        return StoreUnavailable(
            f"the store cannot be written: {said} ({exc}); nothing was changed, reads go on",
            {"fault": kind},
        )

    @property
    def write_fault(self) -> str | None:
        """The storage fault the last write met, until a write succeeds again (disk_full,
        read_only, io_error); None when writes go through."""
        return self._fault

    def _fault_over(self) -> None:
        if self._fault is not None:
            log.info("store fault over: writes succeed again", extra={"fault": self._fault})
            self._fault = None

    def _commit(self) -> None:
        self.conn.execute("COMMIT")
        for namespace, seq, vec in self._after_commit:
            if vec is None:
                self.vectors.remove(seq)
            else:
                self.vectors.add(namespace, seq, vec)
        self._after_commit.clear()

    def close(self) -> None:
        with self._readers_lock:
            for reader in self._readers:
                reader.close()
            self._readers.clear()
        with self._lock:
            try:
                self._before_close()
            finally:
                self._writer.close()

    def discard(self) -> None:
        """Close the store and remove it (an import that failed leaves nothing)."""
        self.close()
        remove_sqlite_files(Path(self.path))

    @cached_property
    def owner(self) -> str:
        """Who this open store is, for the runs it starts (a job, an Observer run): host, process
        and a random tail, so a starting daemon can tell its own dead runs from another's live ones."""
        return f"{socket.gethostname()}:{os.getpid()}:{uuid.uuid4().hex[:8]}"

    def owners_alive(self, owners: set[str]) -> set[str]:
        """Those of ``owners`` whose store is still open. On SQLite one daemon at a time opens a
        data dir (its lock), so any owner but this one is gone."""
        return owners & {self.owner}

    def scrub(self, namespace: str) -> None:
        """After a forget, the forgotten words in no file: the full-text indexes of the namespace's
        memories and of the turns merged (FTS5's 'secure-delete' takes a deleted row's entries out,
        but a word's key can stay in a segment's page until a merge: ~25 ms at 40,000 memories), and
        the WAL folded into the database file and cut to nothing (secure_delete zeroed the pages the
        rows had used). Best effort: a reader holding an older snapshot leaves the WAL for the next
        checkpoint, which SQLite runs on its own."""
        try:
            with self.transaction():
                for table in (self._fts_table(namespace), "conversation_turns_fts"):
                    if table is not None:
                        self.conn.execute(f"INSERT INTO {table} ({table}) VALUES ('optimize')")
            with self._lock:
                self._writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except sqlean.DatabaseError as exc:
            log.warning("the forgotten words' old pages were not cleared yet", extra={"error": str(exc)})

    def _before_close(self) -> None:
        """Fold the WAL into the database file, so a closed store is one file. On a full disk it
        cannot be: the WAL stays beside the file, and SQLite reads it at the next start."""
        try:
            self._writer.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        except sqlean.DatabaseError as exc:
            log.warning("the WAL was not folded into the database at stop; it is read at the next start",
                        extra={"error": str(exc)})  # fmt: skip

    def _rows(self, sql: str, params: tuple | list = ()) -> list[dict[str, Any]]:
        cur = self.conn.execute(sql, params)
        names = [d[0] for d in cur.description]
        return [dict(zip(names, row)) for row in cur.fetchall()]

    # ---- writes (call inside transaction()) ------------------------------------

    def insert(self, row: dict[str, Any], vectors: np.ndarray, *, seq: int | None = None) -> int:
        """``vectors``: the memory's embedding, or one row per window of a long text (the first is
        the memory's ``embedding``)."""
        vectors = np.atleast_2d(np.asarray(vectors, dtype=np.float32))
        cols = INSERTED_COLUMNS
        values = inserted_values(row, vectors)
        seq = self._new_seq() if seq is None else seq
        if seq is None:
            cur = self.conn.execute(
                f"INSERT INTO memories ({', '.join(cols)}) VALUES ({', '.join('?' * len(cols))})", values
            )
            seq = int(cur.lastrowid)
        else:
            self.conn.execute(
                f"INSERT INTO memories (seq, {', '.join(cols)}) VALUES (?, {', '.join('?' * len(cols))})",
                [seq, *values],
            )
        self.conn.executemany(
            "INSERT INTO memory_windows (seq, part, embedding) VALUES (?, ?, ?)",
            [(seq, part, to_blob(vec)) for part, vec in enumerate(vectors[1:], 1)],
        )
        self._index(seq, row["namespace"], row["content"], row.get("context"), vectors)
        if row["type"] in IDENTITY_TYPES:  # a new memory is in no workspace file yet (put_workspace_item)
            self.identity_changed(row["namespace"])
        return seq

    def insert_many(self, rows: list[dict[str, Any]], vectors: list[np.ndarray]) -> list[int]:
        """``insert`` of each row with its vectors, in order: their seqs."""
        return [self.insert(row, vecs) for row, vecs in zip(rows, vectors)]

    def _new_seq(self) -> int | None:
        """A new memory's seq: past every live and archived one. SQLite's own would be past the live
        ones only, so a memory stored after the newest was archived took the archived one's seq: its
        restore then failed, and the new memory's secret and affect rows (keyed by seq) replaced the
        archived one's (a card number stored, archived, then restored was no longer a secret)."""
        row = self.conn.execute(
            "SELECT max(coalesce((SELECT max(seq) FROM memories), 0), coalesce((SELECT max(seq) FROM memory_archive), 0))"
        ).fetchone()
        return int(row[0]) + 1

    def identity_changed(self, namespace: str) -> None:
        """The identity graph's sources in ``namespace`` changed (m040): a graph read before is
        read again (persona/identity/recall.py)."""
        self.conn.execute(
            "INSERT INTO identity_generations (namespace, generation) VALUES (?, 1) ON CONFLICT (namespace) "
            "DO UPDATE SET generation = identity_generations.generation + 1",
            (namespace,),
        )

    def _if_identity(self, seq: int, table: str = "memories") -> None:
        """identity_changed, when the memory ``seq`` is one of the identity graph's sources."""
        row = self.conn.execute(f"SELECT namespace, type, id FROM {table} WHERE seq = ?", (seq,)).fetchone()
        if row is not None and (row[1] in IDENTITY_TYPES or self._in_identity_file(row[2])):
            self.identity_changed(row[0])

    def _in_identity_file(self, memory_id: str) -> bool:
        marks = ", ".join("?" * len(IDENTITY_FILES))
        return (
            self.conn.execute(
                f"SELECT 1 FROM workspace_items WHERE memory_id = ? AND path IN ({marks})", (memory_id, *IDENTITY_FILES)
            ).fetchone()
            is not None
        )

    def _load_fts_numbers(self) -> dict[str, int]:
        return dict(self.conn.execute("SELECT namespace, number FROM fts_namespaces").fetchall())

    def _fts_table(self, namespace: str, *, create: bool = False) -> str | None:
        """The namespace's FTS5 table (m014): None if it has none yet, unless ``create``."""
        number = self._fts_numbers.get(namespace)
        if number is not None and self.conn is not self._writer:
            # A reader's snapshot may predate the table: the writer records a new namespace's number
            # as it creates the table, before the commit a reader began earlier cannot see.
            seen = self.conn.execute(
                "SELECT 1 FROM sqlite_master WHERE name = ?", (namespace_fts_table(number),)
            ).fetchone()
            return namespace_fts_table(number) if seen else None
        if number is None:
            if not create:
                return None
            number = self.conn.execute("SELECT coalesce(max(number), 0) + 1 FROM fts_namespaces").fetchone()[0]
            self.conn.execute("INSERT INTO fts_namespaces (namespace, number) VALUES (?, ?)", (namespace, number))
            create_namespace_fts(self.conn, number)
            self._fts_numbers[namespace] = number
        return namespace_fts_table(number)

    def _index(self, seq: int, namespace: str, content: str, context: str | None, vectors: np.ndarray | None) -> None:
        """Into the word index, and the vector index unless ``vectors`` is None (the memory waits
        for its vector of the configured model: ``switch_model``)."""
        table = self._fts_table(namespace, create=True)
        self.conn.execute(f"INSERT INTO {table} (rowid, text, context) VALUES (?, ?, ?)", (seq, content, context or ""))
        if vectors is not None:
            self._index_vectors(seq, namespace, vectors)

    def _index_vectors(self, seq: int, namespace: str, vectors: np.ndarray) -> None:
        self.conn.execute(
            "INSERT INTO memories_vec(rowid, embedding, namespace) VALUES (?, ?, ?)",
            (seq, to_blob(vectors[0]), namespace),
        )
        self._after_commit.append((namespace, seq, vectors))

    def _unindex(self, seq: int) -> None:
        (namespace,) = self.conn.execute("SELECT namespace FROM memories WHERE seq = ?", (seq,)).fetchone()
        self.conn.execute(f"DELETE FROM {self._fts_table(namespace, create=True)} WHERE rowid = ?", (seq,))
        self.conn.execute("DELETE FROM memories_vec WHERE rowid = ?", (seq,))
        self._after_commit.append(("", seq, None))

    def _read_only_connection(self) -> Any:
        return connect(read_only_uri(self.path), read_only=True)

    def _load_namespace_vectors(self, namespace: str) -> tuple[list[int], Iterator[list[bytes]]]:
        """The in-RAM index's loader: a namespace's vectors read on a connection of its own, in a
        read transaction that begins now, after the index began to record what commits meanwhile.
        The calling thread's connection will not do: a reader's transaction may have begun before a
        commit the index could not take (the namespace was not loaded), and the writer's may hold
        writes not committed yet. Either way the matrix would keep what is gone for good."""
        conn = self._read_only_connection()
        try:
            conn.execute("BEGIN")
            seqs, chunks = self._load_vectors(namespace, conn)
        except BaseException:
            conn.close()
            raise
        if not seqs:
            conn.close()
            return seqs, iter(())

        def streamed() -> Iterator[list[bytes]]:
            try:
                yield from chunks
            finally:
                conn.close()  # ends the read transaction; a load that stopped half-way closes it too

        return seqs, streamed()

    def _load_vectors(self, namespace: str, conn: Any) -> tuple[list[int], Iterator[list[bytes]]]:
        """The namespace's live vectors for the in-RAM index: each memory's first, then the other
        windows of the long ones (read on ``conn``)."""
        queries = [
            # From memories (its first vector), not vec0: a plain scan of vec0 reads every partition's
            # chunks (220 ms for one namespace of 1,000 among 40,000 vectors; 2.3 ms here, by index).
            "SELECT seq{} FROM memories WHERE namespace = ? AND superseded_by IS NULL AND length(embedding) > 0 "
            "ORDER BY seq",
            "SELECT w.seq{} FROM memory_windows w JOIN memories m ON m.seq = w.seq "
            "WHERE m.namespace = ? AND m.superseded_by IS NULL ORDER BY w.seq, w.part",
        ]
        vector_columns = [", embedding", ", w.embedding"]
        # The seqs and the vectors are of one snapshot: ``conn`` is inside a read transaction.
        seqs = [r[0] for sql in queries for r in conn.execute(sql.format(""), (namespace,))]

        def chunks() -> Iterator[list[bytes]]:
            for sql, column in zip(queries, vector_columns):
                cur = conn.execute(sql.format(column), (namespace,))
                while rows := cur.fetchmany(8192):
                    yield [r[1] for r in rows]

        return seqs, chunks()

    def window_vectors(self, seqs: list[int]) -> dict[int, np.ndarray]:
        """The further windows' vectors of those of ``seqs`` that are long texts: seq -> (parts, dim)."""
        found: dict[int, list[np.ndarray]] = {}
        for chunk, marks in _in_chunks(seqs):
            sql = f"SELECT seq, embedding FROM memory_windows WHERE seq IN ({marks}) ORDER BY seq, part"
            for seq, blob in self.conn.execute(sql, chunk):
                found.setdefault(seq, []).append(from_blob(blob))
        return {seq: np.vstack(vectors) for seq, vectors in found.items()}

    def set_access(self, seq: int, last_accessed: str, access_count: float) -> None:
        self.conn.execute(
            "UPDATE memories SET last_accessed = ?, access_count = ? WHERE seq = ?", (last_accessed, access_count, seq)
        )

    def mark_superseded(self, seq: int, new_id: str) -> None:
        """The old version stays readable but leaves the search indexes for good; the new one
        keeps the turns it was made from (m017)."""
        self._if_identity(seq)
        self.conn.execute("UPDATE memories SET superseded_by = ? WHERE seq = ?", (new_id, seq))
        self.conn.execute(
            "INSERT OR IGNORE INTO memory_turns (memory_id, turn_seq) SELECT ?, turn_seq FROM memory_turns "
            "WHERE memory_id = (SELECT id FROM memories WHERE seq = ?)",
            (new_id, seq),
        )
        self._unindex(seq)

    def link_turns(self, memory_id: str, turn_seqs: list[int]) -> None:
        """Record the conversation turns ``memory_id`` was made from (m017 memory_turns)."""
        self.conn.executemany(
            "INSERT OR IGNORE INTO memory_turns (memory_id, turn_seq) VALUES (?, ?)",
            [(memory_id, seq) for seq in turn_seqs],
        )

    def move_to_archive(self, seq: int, at: str) -> None:
        row = self.conn.execute("SELECT superseded_by FROM memories WHERE seq = ?", (seq,)).fetchone()
        if row is None:
            return
        if row[0] is None:
            self._unindex(seq)
            self._if_identity(seq)
        self.conn.execute(
            f"INSERT INTO memory_archive ({COLUMNS}, archived_at) SELECT {COLUMNS}, ? FROM memories WHERE seq = ?",
            (at, seq),
        )
        self.conn.execute("DELETE FROM memories WHERE seq = ?", (seq,))

    def restore_from_archive(self, seq: int) -> None:
        self.conn.execute(
            f"INSERT INTO memories ({COLUMNS}) SELECT {COLUMNS} FROM memory_archive WHERE seq = ?", (seq,)
        )
        self.conn.execute("DELETE FROM memory_archive WHERE seq = ?", (seq,))
        self.index_live("seq = ?", (seq,))
        self._if_identity(seq)

    def index_live(self, where: str, params: tuple = (), *, whole_store: bool = False) -> int:
        """Put the current versions of the memories ``where`` selects into the search indexes (each
        with the vectors of its further windows): a memory restored from the archive table, or every
        memory of a store read back from an archive (``whole_store``: the indexes were empty). How many."""
        rows = self.conn.execute(
            "SELECT seq, namespace, content, context, embedding FROM memories "
            f"WHERE superseded_by IS NULL AND ({where}) ORDER BY seq",
            params,
        ).fetchall()
        windows = self.window_vectors([r[0] for r in rows])
        for seq, namespace, content, context, embedding in rows:
            vectors = (
                np.vstack([from_blob(embedding), *([windows[seq]] if seq in windows else [])]) if embedding else None
            )
            self._index(seq, namespace, content, context, vectors)
        return len(rows)

    def delete_row(self, seq: int, *, archived: bool) -> None:
        """Remove a memory version for good: its row, its windows and, for the live current
        version, its search index entries (forgetting, issue 18)."""
        table = "memory_archive" if archived else "memories"
        row = self.conn.execute(f"SELECT superseded_by FROM {table} WHERE seq = ?", (seq,)).fetchone()
        if row is None:
            return
        if not archived and row[0] is None:
            self._unindex(seq)
            self._if_identity(seq)
        self.conn.execute(f"DELETE FROM {table} WHERE seq = ?", (seq,))
        self.conn.execute("DELETE FROM memory_windows WHERE seq = ?", (seq,))
        self.conn.execute("DELETE FROM slot_fills WHERE seq = ?", (seq,))
        self.conn.execute("DELETE FROM memory_times WHERE seq = ?", (seq,))
        self.conn.execute("DELETE FROM memory_affect WHERE seq = ?", (seq,))
        self.conn.execute("DELETE FROM memory_secrets WHERE seq = ?", (seq,))

    def set_source(self, seq: int, source: str | None) -> None:
        self.conn.execute("UPDATE memories SET source = ? WHERE seq = ?", (source, seq))
        self._if_identity(seq)

    # ---- workspace bookkeeping ---------------------------------------------------

    def workspace_items(self, paths: list[str]) -> list[dict[str, Any]]:
        if not paths:
            return []
        return self._rows(
            f"SELECT * FROM workspace_items WHERE path IN ({', '.join('?' * len(paths))}) ORDER BY rowid", paths
        )

    def put_workspace_item(self, row: dict[str, Any]) -> None:
        self.conn.execute(
            "INSERT OR REPLACE INTO workspace_items (memory_id, namespace, path, item_key, anchor, heading_path, content) "
            "VALUES (:memory_id, :namespace, :path, :item_key, :anchor, :heading_path, :content)",
            row,
        )
        if row["path"] in IDENTITY_FILES:
            self.identity_changed(row["namespace"])

    def drop_workspace_item(self, memory_id: str) -> None:
        found = self.conn.execute("SELECT namespace, path FROM workspace_items WHERE memory_id = ?", (memory_id,))
        for namespace, path in found.fetchall():
            if path in IDENTITY_FILES:
                self.identity_changed(namespace)
        self.conn.execute("DELETE FROM workspace_items WHERE memory_id = ?", (memory_id,))

    def workspace_files(self) -> dict[str, dict[str, Any]]:
        return {r["path"]: r for r in self._rows("SELECT * FROM workspace_files")}

    def put_workspace_file(self, row: dict[str, Any]) -> None:
        self.conn.execute(
            "INSERT OR REPLACE INTO workspace_files (path, sha256, size, status, reason, indexed_at) "
            "VALUES (:path, :sha256, :size, :status, :reason, :indexed_at)",
            row,
        )

    def drop_workspace_file(self, path: str) -> None:
        self.conn.execute("DELETE FROM workspace_files WHERE path = ?", (path,))

    def owned_section(self, rel_path: str) -> str | None:
        """What the daemon last wrote into a file's owned section."""
        row = self.conn.execute("SELECT body FROM owned_sections WHERE path = ?", (rel_path,)).fetchone()
        return row[0] if row else None

    def put_owned_section(self, rel_path: str, body: str, written_at: str) -> None:
        # ``db`` is sqlite-utils' Database here and the PostgreSQL store's SqlTables there: both
        # index a table by its name (``.table()`` is SQLite's alone).
        table = self.db["owned_sections"]
        table.upsert({"path": rel_path, "body": body, "written_at": written_at}, pk="path")  # type: ignore[union-attr]

    def log_packs(self, rows: list[dict[str, Any]]) -> None:
        """Log packs, each as ``prepared_pack`` made it."""
        self.conn.executemany(
            "INSERT INTO pack_log (pack_id, namespace, query, audience, budget_tokens, at, tokens, text, candidates, "
            "chosen, goals, stages) VALUES (:pack_id, :namespace, :query, :audience, :budget_tokens, :at, :tokens, "
            ":text, :candidates, :chosen, :goals, :stages)",
            rows,
        )

    def prune_pack_log(self, keep: int, older_than: str) -> int:
        """Drop logged packs past the newest ``keep`` or from before ``older_than``; how many went."""
        gone = self.conn.execute("DELETE FROM pack_log WHERE at < ?", (older_than,)).rowcount
        gone += self.conn.execute(
            "DELETE FROM pack_log WHERE pack_id IN (SELECT pack_id FROM pack_log ORDER BY at DESC LIMIT -1 OFFSET ?)",
            (keep,),
        ).rowcount
        return gone

    # ---- reads ---------------------------------------------------------------

    def get(self, memory_id: str) -> tuple[dict[str, Any], bool] | None:
        """Return (row, archived) or None."""
        rows = self._rows(f"SELECT {COLUMNS} FROM memories WHERE id = ?", (memory_id,))
        if rows:
            return rows[0], False
        rows = self._rows(f"SELECT {COLUMNS} FROM memory_archive WHERE id = ?", (memory_id,))
        if rows:
            return rows[0], True
        return None

    def neighbour_rows(self, seqs: list[int]) -> list[dict[str, Any]]:
        """What lifting a memory by its neighbours needs of their rows (seq, audience, created, and
        whether it is a conversation's episode): not whole rows, which cost a pack ~8 ms at 100k memories."""
        if not seqs:
            return []
        return self._rows(
            f"SELECT seq, audience, created, {ASKS_SQL} AS asks, "
            f"(type = 'episode' AND source LIKE 'conversation:%') AS in_conversation "
            f"FROM memories WHERE seq IN ({', '.join('?' * len(seqs))})",
            seqs,
        )

    def conversation_adjacent(self, seqs: list[int]) -> dict[int, tuple[int | None, int | None]]:
        """seq -> the live episodes of the turns just before and just after its turn in the same
        conversation, for those of ``seqs`` that are a conversation's episodes: a conversation is
        its own sequence, whatever was stored between its turns in other conversations."""
        out: dict[int, tuple[int | None, int | None]] = {}
        near = (
            "(SELECT e.seq FROM conversation_turns p JOIN memory_turns pm ON pm.turn_seq = p.seq "
            "JOIN memories e ON e.id = pm.memory_id AND e.type = 'episode' AND e.superseded_by IS NULL "
            "WHERE p.session = t.session AND p.seq {} t.seq ORDER BY p.seq {} LIMIT 1)"
        )
        with self._guard():
            for chunk, marks in _in_chunks(seqs):
                for seq, before, after in self.conn.execute(
                    f"SELECT m.seq, {near.format('<', 'DESC')}, {near.format('>', 'ASC')} "
                    "FROM memories m JOIN memory_turns mt ON mt.memory_id = m.id "
                    "JOIN conversation_turns t ON t.seq = mt.turn_seq "
                    f"WHERE m.seq IN ({marks}) AND m.type = 'episode' AND m.source LIKE 'conversation:%'",
                    chunk,
                ):
                    out[seq] = (before, after)
        return out

    def turns_of(self, memory_ids: list[str]) -> dict[str, set[int]]:
        """memory id -> the conversation turns it was made from, for those made from any."""
        out: dict[str, set[int]] = {}
        with self._guard():
            for chunk, marks in _in_chunks(memory_ids):
                sql = f"SELECT memory_id, turn_seq FROM memory_turns WHERE memory_id IN ({marks})"
                for memory_id, seq in self.conn.execute(sql, chunk):
                    out.setdefault(memory_id, set()).add(seq)
        return out

    def made_from_same_turns(self, memory_id: str) -> list[tuple[str, str]]:
        """(id, type) of the current memories, live or archived, made from a turn ``memory_id``
        was made from: an episode's observations, an observation's episodes."""
        sql = (
            "SELECT DISTINCT m.id, m.type FROM memory_turns a JOIN memory_turns b ON b.turn_seq = a.turn_seq "
            "JOIN {table} m ON m.id = b.memory_id "
            "WHERE a.memory_id = ? AND b.memory_id != ? AND m.superseded_by IS NULL"
        )
        with self._guard():
            return [
                (row[0], row[1])
                for table in ("memories", "memory_archive")
                for row in self.conn.execute(sql.format(table=table), (memory_id, memory_id))
            ]

    def rows_by_id(self, memory_ids: list[str]) -> list[dict[str, Any]]:
        """The live rows (current versions) of these memory ids."""
        out: list[dict[str, Any]] = []
        for chunk, marks in _in_chunks(memory_ids):
            out.extend(
                self._rows(f"SELECT {COLUMNS} FROM memories WHERE superseded_by IS NULL AND id IN ({marks})", chunk)
            )
        return out

    def contents_of(self, memory_ids: list[str]) -> dict[str, str]:
        """id -> text of these memories, any version, live or archived (a forgotten one: absent)."""
        out: dict[str, str] = {}
        for chunk, marks in _in_chunks(memory_ids):
            for table in ("memories", "memory_archive"):
                sql = f"SELECT id, content FROM {table} WHERE id IN ({marks})"
                out.update(self.conn.execute(sql, chunk).fetchall())
        return out

    def ids_of(self, seqs: list[int]) -> list[str]:
        """The ids of these live memories."""
        out: list[str] = []
        for chunk, marks in _in_chunks(seqs):
            out.extend(r[0] for r in self.conn.execute(f"SELECT id FROM memories WHERE seq IN ({marks})", chunk))
        return out

    def rows_by_seq(self, seqs: list[int]) -> list[dict[str, Any]]:
        out: list[dict[str, Any]] = []
        for chunk, marks in _in_chunks(seqs):
            out.extend(self._rows(f"SELECT {COLUMNS} FROM memories WHERE seq IN ({marks})", chunk))
        return out

    def knn(self, namespace: str, vec: np.ndarray, n: int, skip: set[int] | None = None) -> list[tuple[int, float]]:
        """[(seq, cosine)] of the n nearest live memories of the namespace but ``skip`` (chosen in
        RAM; see vector_index)."""
        with self._guard():
            return self.vectors.search(namespace, vec, n, skip)

    def term_statistics(self, namespace: str, terms: list[str]) -> tuple[int, list[int]] | None:
        """(how many memories the namespace holds, each term's document frequency in its FTS5
        table, m014); None for a namespace without one. What to make of them is
        memory/retrieval/lexical.py's."""
        with self._guard():
            table = self._fts_table(namespace)
            if table is None:
                return None
            frequencies = [self._document_frequency(table, t) for t in terms]
            # The in-RAM index's count may lag or lead a reader's snapshot by a commit or two: never
            # fewer documents than a term is in.
            return max(self.vectors.size(namespace), *frequencies, 0), frequencies

    def fts_scores(self, namespace: str, terms: list[str], context_weight: float = 1.0) -> dict[int, float]:
        """seq -> FTS5's BM25 (higher is better) of the namespace's memories holding any of the
        terms; a word of the context counts ``context_weight`` of one of the memory's own (m018)."""
        with self._guard():
            table = self._fts_table(namespace)
            if table is None or not terms:
                return {}
            rows = self.conn.execute(
                f"SELECT rowid, -bm25({table}, 1.0, ?) FROM {table} WHERE {table} MATCH ?",
                (context_weight, fts_query(terms)),
            ).fetchall()
            return dict(rows)

    def terms_held(self, namespace: str, terms: list[str], seqs: list[int]) -> dict[int, set[str]]:
        """seq -> which of ``terms`` the memory's own text holds (FTS5's tokenizer: "issues" holds
        "issue"; its context does not count), for these memories of the namespace."""
        out: dict[int, set[str]] = {seq: set() for seq in seqs}
        with self._guard():
            table = self._fts_table(namespace)
            if table is None or not seqs:
                return out
            for term in terms:
                for chunk, marks in _in_chunks(seqs):
                    rows = self.conn.execute(
                        f"SELECT rowid FROM {table} WHERE {table} MATCH ? AND rowid IN ({marks})",
                        (f"text : {fts_query([term])}", *chunk),
                    ).fetchall()
                    for (seq,) in rows:
                        out[seq].add(term)
        return out

    def _document_frequency(self, table: str, term: str) -> int:
        return self.conn.execute(
            f"SELECT count(*) FROM {table} WHERE {table} MATCH ?", (fts_query([term]),)
        ).fetchone()[0]

    def adjacent(self, namespace: str, seqs: list[int]) -> dict[int, tuple[int | None, int | None]]:
        """seq -> the live memories of the namespace stored just before and just after it (from the
        in-RAM index, which holds exactly the namespace's live memories; SQL took ~7 ms a pack)."""
        with self._guard():
            return self.vectors.adjacent(namespace, seqs)

    def best_cosines(self, namespace: str, seqs: list[int], qvec: np.ndarray) -> dict[int, float]:
        """seq -> its best vector's cosine with ``qvec``, from the in-RAM index."""
        with self._guard():
            return self.vectors.best_cosines(namespace, seqs, qvec)

    def audiences(self, namespace: str) -> list[str]:
        """The distinct audiences of the namespace's memories: one index seek per audience (a
        namespace has a few, its memories up to 100,000s; DISTINCT would read every index entry)."""
        found: list[str] = []
        while True:
            row = self.conn.execute(
                "SELECT audience FROM memories WHERE namespace = ? AND audience > ? ORDER BY audience LIMIT 1",
                (namespace, found[-1] if found else ""),
            ).fetchone()
            if row is None:
                return found
            found.append(row[0])

    def seqs_heard_by_none_of(self, namespace: str, audiences: list[str]) -> set[int]:
        """The live memories of the namespace whose audience is one of ``audiences``."""
        if not audiences:
            return set()
        return {
            r[0]
            for r in self.conn.execute(
                f"SELECT seq FROM memories WHERE namespace = ? AND audience IN ({', '.join('?' * len(audiences))}) "
                "AND superseded_by IS NULL",
                (namespace, *audiences),
            )
        }

    def audiences_in(self, namespace: str) -> set[str]:
        """Every audience the namespace's memories and conversation turns are said in."""
        return {
            row[0]
            for row in self.conn.execute(
                "SELECT DISTINCT audience FROM memories WHERE namespace = ? "
                "UNION SELECT DISTINCT audience FROM conversation_turns WHERE namespace = ?",
                (namespace, namespace),
            )
        }

    def set_audience(self, seq: int, audience: str, *, archived: bool = False) -> None:
        table = "memory_archive" if archived else "memories"
        self.conn.execute(f"UPDATE {table} SET audience = ? WHERE seq = ?", (audience, seq))
        if not archived:
            self._if_identity(seq)

    def pinned(self, namespace: str, n: int) -> list[int]:
        """The n highest-priority persona/relational memories (one index walk per type)."""
        rows: list[tuple[float, int]] = []
        for mtype in sorted(IDENTITY_TYPES):
            rows += self.conn.execute(
                "SELECT priority, seq FROM memories WHERE namespace = ? AND type = ? AND superseded_by IS NULL "
                "ORDER BY priority DESC, seq LIMIT ?",
                (namespace, mtype, n),
            ).fetchall()
        return [seq for _, seq in sorted(rows, key=lambda r: (-r[0], r[1]))[:n]]

    def phrase_matches(self, namespace: str, phrases: tuple[str, ...], n: int) -> list[int]:
        """The newest n live memories of the namespace whose own text holds one of ``phrases``
        (FTS5 phrases, stemmed like the index)."""
        with self._guard():
            table = self._fts_table(namespace)
            if table is None or not phrases or n <= 0:
                return []
            match = f"text : ({fts_query(list(phrases))})"  # a quoted string is a phrase to FTS5
            return [
                r[0]
                for r in self.conn.execute(
                    f"SELECT rowid FROM {table} WHERE {table} MATCH ? ORDER BY rowid DESC LIMIT ?", (match, n)
                )
            ]

    def recent(self, namespace: str, n: int) -> list[int]:
        return [
            r[0]
            for r in self.conn.execute(
                "SELECT seq FROM memories WHERE namespace = ? AND superseded_by IS NULL "
                "ORDER BY last_accessed DESC, seq DESC LIMIT ?",
                (namespace, n),
            )
        ]

    def live_access_rows(self, namespace: str | None = None) -> list[tuple[int, str, str, float]]:
        """(seq, type, last_accessed, access_count) for every live memory: the sweep's input."""
        sql = "SELECT seq, type, last_accessed, access_count FROM memories WHERE superseded_by IS NULL"
        if namespace is None:
            return self.conn.execute(sql).fetchall()
        return self.conn.execute(sql + " AND namespace = ?", (namespace,)).fetchall()

    def access_ages(self, now: str, namespace: str) -> np.ndarray:
        """(is an identity type, access_count, hours since the last access at ``now``) of every live
        memory of the namespace, one row each, from an index (m019): what stats computes tiers
        from. Numbers only, and SQLite's julianday does the date arithmetic: 100,000 memories
        read as text and parsed in Python cost ~0.2 s, this ~0.08 s."""
        columns, params = age_columns(now)
        sql = f"SELECT {columns} FROM memories WHERE superseded_by IS NULL AND namespace = ?"
        return np.array(self.conn.execute(sql, [*params, namespace]).fetchall(), dtype=np.float64).reshape(-1, 3)

    def counts_by_namespace(self) -> dict[str, dict[str, Any]]:
        """namespace -> {by_type: live memories by type, archived}."""
        out: dict[str, dict[str, Any]] = {}
        sql = "SELECT namespace, type, count(*) FROM memories WHERE superseded_by IS NULL GROUP BY namespace, type"
        for namespace, mtype, n in self.conn.execute(sql):
            out.setdefault(namespace, {"by_type": {}, "archived": 0})["by_type"][mtype] = n
        sql = "SELECT namespace, count(*) FROM memory_archive GROUP BY namespace"
        for namespace, n in self.conn.execute(sql):
            out.setdefault(namespace, {"by_type": {}, "archived": 0})["archived"] = n
        return out

    def archive_rows(self, namespace: str) -> list[dict[str, Any]]:
        return self._rows(
            f"SELECT {COLUMNS} FROM memory_archive WHERE namespace = ? AND superseded_by IS NULL", (namespace,)
        )

    def pack_chosen(self, pack_id: str) -> list[Any] | None:
        """What a logged pack chose."""
        row = self.conn.execute("SELECT chosen FROM pack_log WHERE pack_id = ?", (pack_id,)).fetchone()
        return _unpack_json(row[0]) if row else None

    def live_of_type(self, namespace: str, mtype: str) -> list[dict[str, Any]]:
        """(id, content, priority, audience) of the namespace's live memories of one type."""
        return self._rows(
            "SELECT id, content, priority, audience FROM memories WHERE namespace = ? AND type = ? AND superseded_by IS NULL",
            (namespace, mtype),
        )

    def learned_between(
        self, namespace: str, start: str, end: str, limit: int, audiences: list[str]
    ) -> tuple[list[dict[str, Any]], int]:
        """(first ``limit`` memories heard by ``audiences``, learned in [start, end) that no workspace
        file, consolidation or observation made, and not episodes (the day's turns are in its
        observations), how many in all): the daily log's."""
        if not audiences:
            return [], 0
        heard = f"AND audience IN ({', '.join('?' * len(audiences))}) "
        where = (
            "FROM memories WHERE namespace = ? AND ingested >= ? AND ingested < ? AND superseded_by IS NULL "
            + heard
            + "AND type != 'episode' "
            "AND id NOT IN (SELECT memory_id FROM workspace_items) "
            "AND id NOT IN (SELECT memory_id FROM consolidation_nodes) "
            "AND id NOT IN (SELECT memory_id FROM observations WHERE memory_id IS NOT NULL)"
        )
        params = (namespace, start, end, *audiences)
        total = self.conn.execute(f"SELECT count(*) {where}", params).fetchone()[0]
        rows = self._rows(
            f"SELECT id, type, content, ingested {where} ORDER BY ingested, seq LIMIT ?", params + (limit,)
        )
        return rows, total

    def audiences_of(self, namespace: str) -> list[str]:
        """Every audience a live memory of the namespace has."""
        sql = "SELECT DISTINCT audience FROM memories WHERE namespace = ? AND superseded_by IS NULL"
        return [row[0] for row in self.conn.execute(sql, (namespace,))]

    def get_pack(self, pack_id: str) -> dict[str, Any] | None:
        """A logged pack, its candidates and choices decoded."""
        rows = self._rows("SELECT * FROM pack_log WHERE pack_id = ?", (pack_id,))
        if not rows:
            return None
        row = rows[0]
        stages = row.pop("stages")
        return {
            **row,
            "candidates": _unpack_json(row["candidates"]),
            "chosen": _unpack_json(row["chosen"]),
            "goals": json.loads(row["goals"]) if row["goals"] else [],  # none logged before m039
            "stages_ms": json.loads(stages) if stages else {},
        }

    def newest_contents(self, namespace: str | None, limit: int) -> list[str]:
        """The texts of the newest live memories (of the namespace, or all)."""
        where, params = ("AND namespace = ?", (namespace, limit)) if namespace else ("", (limit,))
        rows = self.conn.execute(
            f"SELECT content FROM memories WHERE superseded_by IS NULL {where} ORDER BY seq DESC LIMIT ?", params
        )
        return [r[0] for r in rows]

    def counts(self, namespace: str | None = None) -> dict[str, Any]:
        where, params = ("WHERE namespace = ?", (namespace,)) if namespace else ("", ())
        live = self.conn.execute(
            f"SELECT type, COUNT(*) FROM memories {where} {'AND' if where else 'WHERE'} superseded_by IS NULL GROUP BY type",
            params,
        ).fetchall()
        superseded = self.conn.execute(
            f"SELECT COUNT(*) FROM memories {where} {'AND' if where else 'WHERE'} superseded_by IS NOT NULL", params
        ).fetchone()[0]
        archived = self.conn.execute(f"SELECT COUNT(*) FROM memory_archive {where}", params).fetchone()[0]
        # Asked about one namespace, the answer names no other (a namespace is a boundary).
        namespaces = [
            r[0]
            for r in self.conn.execute(f"SELECT DISTINCT namespace FROM memories {where} ORDER BY namespace", params)
        ]
        packs = self.conn.execute(f"SELECT COUNT(*) FROM pack_log {where}", params).fetchone()[0]
        by_type = {t: c for t, c in live}
        return {
            "live": sum(by_type.values()),
            "by_type": by_type,
            "superseded": superseded,
            "archived": archived,
            "namespaces": namespaces,
            "packs_logged": packs,
        }

    # ---- what differs between the stores (postgres/store.py has the other side) --------------

    def turn_match(self, words: list[str]) -> tuple[str, str, str, list[Any]] | None:
        """How to find the turns holding any of ``words``: (the FROM, joined on the turns as
        ``t``; a score column, lower is better; the WHERE; their parameters, the score's first)."""
        match = fts_query(words)
        if match is None:
            return None
        return (
            "conversation_turns_fts f JOIN conversation_turns t ON t.seq = f.rowid",
            "bm25(conversation_turns_fts)",
            "conversation_turns_fts MATCH ?",
            [match],
        )

    def unindex_turn(self, seq: int) -> None:
        """Take a turn's words out of its full-text index (external content: the old text must be given)."""
        (old,) = self.conn.execute("SELECT content FROM conversation_turns WHERE seq = ?", (seq,)).fetchone()
        self.conn.execute(
            "INSERT INTO conversation_turns_fts (conversation_turns_fts, rowid, content) VALUES ('delete', ?, ?)",
            (seq, old),
        )

    def index_turn(self, seq: int, content: str) -> None:
        self.conn.execute("INSERT INTO conversation_turns_fts (rowid, content) VALUES (?, ?)", (seq, content))

    def rebuild_turn_index(self) -> None:
        self.conn.execute("INSERT INTO conversation_turns_fts(conversation_turns_fts) VALUES ('rebuild')")

    def applied_migrations(self) -> list[str]:
        """The schema: the migrations applied, in order."""
        return self.archive_tables().schema()

    def archive_tables(self):
        """What an archive reads of this store, on the calling thread's connection (archive.py)."""
        from agentmemd.memory.store.archive import SqliteTables

        return SqliteTables(self.conn)

    def defer_foreign_keys(self) -> None:
        """Check the open transaction's foreign keys at COMMIT (rows may come in any order)."""
        self.conn.execute("PRAGMA defer_foreign_keys=ON")

    def reset_sequences(self) -> None:
        """After rows came in with their keys: SQLite's next key is always past the largest."""

    def count_live(self) -> int:
        return self.conn.execute("SELECT COUNT(*) FROM memories WHERE superseded_by IS NULL").fetchone()[0]

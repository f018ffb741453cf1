"""SQLite is the source of truth: memories, their vec0 and FTS5 indexes, the archive, the pack log.

One connection (sqlean.py, so extensions load), WAL mode, explicit transactions.
The store is deliberately dumb: it reads and writes rows; policy lives in service.py.
"""

from __future__ import annotations

import json
import re
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator

import numpy as np
import sqlean
import sqlite_utils
import sqlite_vec

from .migrations import create_vector_index, migrations

COLUMNS = (
    "seq, id, namespace, content, context, type, priority, source, tags, created, ingested, "
    "last_accessed, access_count, version, supersedes, superseded_by, token_len, embedding"
)
_STOPWORDS = frozenset(
    """a about above after again against all am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further had has
    have having he her here hers herself him himself his how i if in into is it its itself just me more
    most my myself no nor not now of off on once only or other our ours ourselves out over own same she
    should so some such than that the their theirs them themselves then there these they this those
    through to too under until up very was we were what when where which while who whom why will with
    would you your yours yourself yourselves ever also""".split()
)
_WORD = re.compile(r"[^\W_]+", re.UNICODE)


class StoreError(Exception):
    pass


class DimensionMismatch(StoreError):
    pass


def fts_query(text: str) -> str | None:
    """An OR query of the distinct non-stopword terms, each quoted (FTS5 syntax-safe)."""
    terms: list[str] = []
    for word in _WORD.findall(text.lower()):
        if word in _STOPWORDS or word in terms:
            continue
        terms.append(word)
    if not terms:
        return None
    return " OR ".join(f'"{t}"' for t in terms)


def indexed_text(content: str, context: str | None) -> str:
    """What the embedder and FTS5 see: the context (if any) situates the content."""
    return f"{context}\n{content}" if context else content


def to_blob(vec: np.ndarray) -> bytes:
    return np.asarray(vec, dtype=np.float32).tobytes()


def from_blob(blob: bytes) -> np.ndarray:
    return np.frombuffer(blob, dtype=np.float32)


class Store:
    def __init__(self, path: str | Path, *, dim: int, model: str, synchronous: str = "NORMAL"):
        self.path = str(path)
        self.dim = dim
        conn = sqlean.connect(self.path, check_same_thread=False, isolation_level=None)
        conn.enable_load_extension(True)
        sqlite_vec.load(conn)
        conn.enable_load_extension(False)
        conn.execute("PRAGMA journal_mode=WAL")
        conn.execute(f"PRAGMA synchronous={synchronous}")
        conn.execute("PRAGMA foreign_keys=ON")
        conn.execute("PRAGMA busy_timeout=5000")
        self.conn = conn
        self.db = sqlite_utils.Database(conn)
        self._lock = threading.RLock()
        migrations.apply(self.db)
        self._check_embedding_meta(dim, model)
        create_vector_index(self.db, dim)

    # ---- plumbing -----------------------------------------------------------

    def _check_embedding_meta(self, dim: int, model: str) -> None:
        rows = dict(self.conn.execute("SELECT key, value FROM meta").fetchall())
        if not rows:
            self.conn.execute("INSERT INTO meta(key, value) VALUES ('embedding_dim', ?), ('embedding_model', ?)", (str(dim), model))
            return
        if int(rows.get("embedding_dim", dim)) != dim:
            raise DimensionMismatch(
                f"this data dir was built with {rows['embedding_dim']}-dimensional embeddings "
                f"({rows.get('embedding_model')}); the configured model gives {dim}"
            )

    @contextmanager
    def transaction(self) -> Iterator[None]:
        with self._lock:
            self.conn.execute("BEGIN IMMEDIATE")
            try:
                yield
            except BaseException:
                self.conn.execute("ROLLBACK")
                raise
            else:
                self.conn.execute("COMMIT")

    def close(self) -> None:
        with self._lock:
            try:
                self.conn.execute("PRAGMA wal_checkpoint(TRUNCATE)")
            finally:
                self.conn.close()

    def _rows(self, sql: str, params: tuple | list = ()) -> list[dict[str, Any]]:
        cur = self.conn.execute(sql, params)
        names = [d[0] for d in cur.description]
        return [dict(zip(names, row)) for row in cur.fetchall()]

    # ---- writes (call inside transaction()) ------------------------------------

    def insert(self, row: dict[str, Any], vec: np.ndarray, *, seq: int | None = None) -> int:
        cols = [c.strip() for c in COLUMNS.split(",")][1:]
        values = [row[c] if c != "tags" else json.dumps(row.get("tags") or []) for c in cols if c != "embedding"]
        values.append(to_blob(vec))
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
        self._index(seq, row["namespace"], indexed_text(row["content"], row.get("context")), vec)
        return seq

    def _index(self, seq: int, namespace: str, text: str, vec: np.ndarray) -> None:
        self.conn.execute("INSERT INTO memories_fts(rowid, text) VALUES (?, ?)", (seq, text))
        self.conn.execute(
            "INSERT INTO memories_vec(rowid, embedding, namespace) VALUES (?, ?, ?)", (seq, to_blob(vec), namespace)
        )

    def _unindex(self, seq: int) -> None:
        self.conn.execute("DELETE FROM memories_fts WHERE rowid = ?", (seq,))
        self.conn.execute("DELETE FROM memories_vec WHERE rowid = ?", (seq,))

    def set_access(self, seq: int, last_accessed: str, access_count: float) -> None:
        self.conn.execute(
            "UPDATE memories SET last_accessed = ?, access_count = ? WHERE seq = ?", (last_accessed, access_count, seq)
        )

    def mark_superseded(self, seq: int, new_id: str) -> None:
        """The old version stays readable but leaves the search indexes for good."""
        self.conn.execute("UPDATE memories SET superseded_by = ? WHERE seq = ?", (new_id, seq))
        self._unindex(seq)

    def move_to_archive(self, seq: int, at: str) -> None:
        row = self.conn.execute("SELECT superseded_by FROM memories WHERE seq = ?", (seq,)).fetchone()
        if row is None:
            return
        if row[0] is None:
            self._unindex(seq)
        self.conn.execute(
            f"INSERT INTO memory_archive ({COLUMNS}, archived_at) SELECT {COLUMNS}, ? FROM memories WHERE seq = ?",
            (at, seq),
        )
        self.conn.execute("DELETE FROM memories WHERE seq = ?", (seq,))

    def restore_from_archive(self, seq: int) -> None:
        self.conn.execute(f"INSERT INTO memories ({COLUMNS}) SELECT {COLUMNS} FROM memory_archive WHERE seq = ?", (seq,))
        self.conn.execute("DELETE FROM memory_archive WHERE seq = ?", (seq,))
        row = self.conn.execute(
            "SELECT namespace, content, context, embedding, superseded_by FROM memories WHERE seq = ?", (seq,)
        ).fetchone()
        if row[4] is None:
            self._index(seq, row[0], indexed_text(row[1], row[2]), from_blob(row[3]))

    def log_pack(self, entry: dict[str, Any]) -> None:
        self.conn.execute(
            "INSERT INTO pack_log (pack_id, namespace, query, budget_tokens, at, tokens, text, candidates, chosen) "
            "VALUES (:pack_id, :namespace, :query, :budget_tokens, :at, :tokens, :text, :candidates, :chosen)",
            entry,
        )

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

    def rows_by_seq(self, seqs: list[int]) -> list[dict[str, Any]]:
        if not seqs:
            return []
        out: list[dict[str, Any]] = []
        for start in range(0, len(seqs), 900):
            chunk = seqs[start : start + 900]
            out.extend(
                self._rows(f"SELECT {COLUMNS} FROM memories WHERE seq IN ({', '.join('?' * len(chunk))})", chunk)
            )
        return out

    def knn(self, namespace: str, vec: np.ndarray, n: int) -> list[tuple[int, float]]:
        return self.conn.execute(
            "SELECT rowid, distance FROM memories_vec WHERE embedding MATCH ? AND k = ? AND namespace = ?",
            (to_blob(vec), n, namespace),
        ).fetchall()

    def fts(self, namespace: str, match: str, n: int) -> list[tuple[int, float]]:
        return self.conn.execute(
            "SELECT f.rowid, bm25(memories_fts) AS s FROM memories_fts f JOIN memories m ON m.seq = f.rowid "
            "WHERE memories_fts MATCH ? AND m.namespace = ? ORDER BY s, f.rowid LIMIT ?",
            (match, namespace, n),
        ).fetchall()

    def fts_scores(self, match: str, seqs: list[int]) -> dict[int, float]:
        if not seqs:
            return {}
        rows = self.conn.execute(
            f"SELECT rowid, bm25(memories_fts) FROM memories_fts WHERE memories_fts MATCH ? "
            f"AND rowid IN ({', '.join('?' * len(seqs))})",
            (match, *seqs),
        ).fetchall()
        return dict(rows)

    def pinned(self, namespace: str, n: int) -> list[int]:
        return [
            r[0]
            for r in self.conn.execute(
                "SELECT seq FROM memories WHERE namespace = ? AND type IN ('persona', 'relational') "
                "AND superseded_by IS NULL ORDER BY priority DESC, seq LIMIT ?",
                (namespace, n),
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

    def archive_rows(self, namespace: str) -> list[dict[str, Any]]:
        return self._rows(
            f"SELECT {COLUMNS} FROM memory_archive WHERE namespace = ? AND superseded_by IS NULL", (namespace,)
        )

    def get_pack(self, pack_id: str) -> dict[str, Any] | None:
        rows = self._rows("SELECT * FROM pack_log WHERE pack_id = ?", (pack_id,))
        return rows[0] if rows else None

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
        namespaces = [r[0] for r in self.conn.execute("SELECT DISTINCT namespace FROM memories ORDER BY namespace")]
        packs = self.conn.execute("SELECT COUNT(*) FROM pack_log").fetchone()[0]
        by_type = {t: c for t, c in live}
        return {
            "live": sum(by_type.values()),
            "by_type": by_type,
            "superseded": superseded,
            "archived": archived,
            "namespaces": namespaces,
            "packs_logged": packs,
        }

    def count_live(self) -> int:
        return self.conn.execute("SELECT COUNT(*) FROM memories WHERE superseded_by IS NULL").fetchone()[0]

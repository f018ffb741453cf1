"""What several migrations and the store build with: the memory tables' columns, a backlog mark, a
rule proposal's id, the vector index and a namespace's full-text index."""

from __future__ import annotations

import secrets

import sqlite_utils

MEMORY_COLUMNS = """
    id TEXT NOT NULL UNIQUE,
    namespace TEXT NOT NULL,
    content TEXT NOT NULL,
    context TEXT,
    type TEXT NOT NULL,
    priority REAL NOT NULL,
    source TEXT,
    tags TEXT NOT NULL DEFAULT '[]',
    created TEXT NOT NULL,
    ingested TEXT NOT NULL,
    last_accessed TEXT NOT NULL,
    access_count REAL NOT NULL,
    version INTEGER NOT NULL DEFAULT 1,
    supersedes TEXT,
    superseded_by TEXT,
    token_len INTEGER NOT NULL,
    embedding BLOB NOT NULL
"""


def mark_backlog(db, key: str) -> None:
    """Every memory stored so far (live and archived) is to be read once by the daemon that applied
    the migration: the highest seq under ``key`` in meta (store/backlog.py), none for an empty store."""
    db.execute(
        "INSERT OR REPLACE INTO meta (key, value) SELECT ?, CAST(max(seq) AS TEXT) FROM "
        "(SELECT seq FROM memories UNION ALL SELECT seq FROM memory_archive) HAVING max(seq) IS NOT NULL",
        (key,),
    )


def new_proposal_id() -> str:
    return "rp_" + secrets.token_hex(12)


def create_vector_index(db, dim: int) -> None:
    """The vec0 table needs the embedding dimension, known only once an embedder is chosen."""
    db.execute(
        f"CREATE VIRTUAL TABLE IF NOT EXISTS memories_vec USING vec0("
        f"embedding float[{dim}] distance_metric=cosine, namespace text partition key)"
    )


def namespace_fts_table(number: int) -> str:
    return f"memories_fts_{number}"


def create_namespace_fts(db, number: int) -> None:
    """A namespace's FTS5 index (m018): the memory's text and its context, two columns so that
    BM25 can weigh them apart. Contentless (the memories table holds the text);
    contentless_delete lets a row leave it by rowid."""
    db.execute(
        f"CREATE VIRTUAL TABLE {namespace_fts_table(number)} USING fts5("
        "text, context, content='', contentless_delete=1, tokenize='porter unicode61 remove_diacritics 2')"
    )
    fts_secure_delete(db, namespace_fts_table(number))


def fts_secure_delete(db, table: str) -> None:
    """A row deleted from the FTS5 table leaves its index at once, no delete marker left beside
    its words until a merge (SQLite 3.42's 'secure-delete'): forgotten words leave the file."""
    db.execute(f"INSERT INTO {table} ({table}, rank) VALUES ('secure-delete', 1)")


def on_sqlite(db) -> bool:
    """Whether a migration's ``db`` is SQLite's (on PostgreSQL it is the store's rewriting one, and
    SQLite's own tables, FTS5's, are not there)."""
    return isinstance(db, sqlite_utils.Database)

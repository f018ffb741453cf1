"""Data dirs as other agentmemd versions leave them, for the schema tests: an older one (made with
the migrations before OLD_SCHEMA, as that version applied them) and a newer one (every migration
this one knows and one more, noted as agentmemd 0.3.0's); and a fingerprint to prove one unchanged."""

from __future__ import annotations

import hashlib
import os
import sqlite3
from pathlib import Path

import sqlite_utils
from inprocess import HashEmbedder

from agentmemd.memory.store.database import Store
from agentmemd.memory.store.migrations import migrations
from agentmemd.memory.store.opening import DB_FILE
from agentmemd.memory.store.sqlite_connection import connect

MODEL, DIM = HashEmbedder.name, HashEmbedder.dim
OLD_SCHEMA = "m020_listing_order"  # an agentmemd from before this migration wrote the older data dir


def older_data_dir(data_dir: Path) -> Path:
    """A database as an agentmemd that knew the migrations before OLD_SCHEMA left it."""
    data_dir.mkdir(mode=0o700)
    os.close(os.open(data_dir / DB_FILE, os.O_RDWR | os.O_CREAT, 0o600))  # private, as every agentmemd made it
    conn = connect(str(data_dir / DB_FILE), read_only=False)
    migrations.apply(sqlite_utils.Database(conn), stop_before=OLD_SCHEMA)
    conn.execute("INSERT INTO meta(key, value) VALUES ('embedding_dim', ?), ('embedding_model', ?)", (str(DIM), MODEL))
    conn.close()
    return data_dir


def newer_data_dir(data_dir: Path) -> Path:
    """A database as agentmemd 0.3.0 leaves it: every migration this one knows and one more."""
    data_dir.mkdir(mode=0o700)
    Store(data_dir / DB_FILE, dim=DIM, model=MODEL).close()
    conn = connect(str(data_dir / DB_FILE), read_only=False)
    conn.execute(
        "INSERT INTO _sqlite_migrations(migration_set, name, applied_at) VALUES (?, 'm031_future_table', 'then')",
        (migrations.name,),
    )
    conn.execute("CREATE TABLE future_table (x)")
    conn.execute(
        "INSERT INTO schema_versions(agentmemd, schema, applied, at) VALUES "
        "('0.3.0', 'm031_future_table', '[\"m031_future_table\"]', '2027-01-01T00:00:00.000000Z')"
    )
    conn.close()
    return data_dir


def fingerprint(data_dir: Path) -> tuple[str, list]:
    """The database file's bytes (hashed) and its schema as SQLite lists it."""
    path = data_dir / DB_FILE
    conn = sqlite3.connect(f"file:{path}?immutable=1", uri=True)  # reads without a -wal or -shm of its own
    schema = conn.execute("SELECT type, name, sql FROM sqlite_master ORDER BY name").fetchall()
    conn.close()
    return hashlib.sha256(path.read_bytes()).hexdigest(), schema

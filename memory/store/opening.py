"""Which store a data dir's memory lives in: SQLite in the data dir, or a PostgreSQL by URL.

store = open_store(config.store, data_dir, dim=384, model="all-MiniLM-L6-v2")
"""

from __future__ import annotations

from pathlib import Path

from agentmemd.memory.core.config import StoreConfig
from agentmemd.memory.store.database import Store

DB_FILE = "agentmemd.db"
LOCK_FILE = "agentmemd.lock"  # the serving daemon's flock (daemon/host/process.py's DataDirLock)


def open_store(config: StoreConfig, data_dir: Path, *, dim: int, model: str, upto: str | None = None) -> Store:
    """``config.url`` set: the PostgreSQL store there (psycopg imported only then); else the data
    dir's SQLite file. ``upto``: its schema's migrations up to and including this one only."""
    if config.url:
        from agentmemd.memory.store.postgres.store import PostgresStore

        return PostgresStore(config.url, dim=dim, model=model, upto=upto)
    return Store(Path(data_dir) / DB_FILE, dim=dim, model=model, synchronous=config.synchronous, upto=upto)

"""One SQLite connection as every part of the store opens it: sqlean's SQLite with sqlite-vec
loaded, a busy timeout, the ``agentmemd_fold`` function a name search compares with, and
``query_only`` on a read-only one. The store (database.py) and an archive's snapshot (archive.py)
both open theirs here."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import sqlean
import sqlite_vec

from agentmemd.memory.core.text import fold


def _fold(text: str | None) -> str | None:
    """fold() as SQL's ``agentmemd_fold``: what a search for a name compares (core/text.py)."""
    return None if text is None else fold(text)


def read_only_uri(path: str | Path) -> str:
    """The URI that opens the database at ``path`` read-only. pathlib builds it, escaping what a
    URI would read otherwise: ``file:/data/Project #2/agentmemd.db?mode=ro`` opened ``/data/Project ``."""
    return f"{Path(path).absolute().as_uri()}?mode=ro"


def connect(uri: str, *, read_only: bool) -> Any:
    """A sqlean connection with sqlite-vec loaded (the writer keeps vec0 in step with memories)."""
    conn = sqlean.connect(uri, uri=read_only, check_same_thread=False, isolation_level=None)
    conn.enable_load_extension(True)
    sqlite_vec.load(conn)
    conn.enable_load_extension(False)
    conn.execute("PRAGMA busy_timeout=5000")
    conn.create_function("agentmemd_fold", 1, _fold, deterministic=True)
    if read_only:
        conn.execute("PRAGMA query_only=ON")
    return conn

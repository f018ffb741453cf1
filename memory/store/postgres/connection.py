"""A PostgreSQL connection that answers the store's SQLite-style calls.

    conn = connect(url, catalog)          # psycopg, autocommit: the store says BEGIN and COMMIT
    conn.execute("SELECT seq FROM memories WHERE id = ?", (memory_id,)).fetchone()
    SqlTables(conn)["goals"].insert(row)  # the part of sqlite-utils' Table the store uses

Each statement is rewritten by dialect.py; values are bound on the client (psycopg's
ClientCursor) as literals, so a parameter takes its type from where it stands, as in SQLite, and
one round trip runs a statement. A cursor's ``lastrowid`` is the session's last identity value.
JSON comes back as its text, and booleans go in as 0 and 1: the store's columns are SQLite's.
"""

from __future__ import annotations

import re
from typing import Any, Callable, Iterator, Sequence
from urllib.parse import unquote

from agentmemd.memory.core.errors import InvalidParams, StoreError, StoreUnavailable
from agentmemd.memory.store.postgres.dialect import Catalog, to_postgres


def _psycopg():
    try:
        import psycopg
    except ImportError:  # the extra not installed: say what to install
        raise StoreError(
            "a PostgreSQL store needs psycopg: pip install 'agentmemd[postgres]' (or psycopg[binary])"
        ) from None
    return psycopg


def _refuse_nul(values) -> None:
    """PostgreSQL's text cannot hold U+0000 (SQLite's can): refused as bad input, before anything runs."""
    for value in values:
        if isinstance(value, str) and "\x00" in value:
            raise InvalidParams("text", "holds a NUL character (U+0000), which the PostgreSQL store cannot keep")


class Cursor:
    """The result of one statement, as the store reads SQLite's cursors."""

    def __init__(self, conn: "Connection", cursor: Any, ran: bool = True):
        self._conn = conn
        self._cursor = cursor
        self._ran = ran  # an executemany of no rows ran nothing: it changed 0 rows

    @property
    def description(self) -> list[tuple[str]] | None:
        if self._cursor.description is None:
            return None
        return [(column.name,) for column in self._cursor.description]

    @property
    def rowcount(self) -> int:
        return self._cursor.rowcount if self._ran else 0

    @property
    def lastrowid(self) -> int:
        return self._conn.ask("SELECT lastval()")[0]

    def fetchone(self) -> tuple | None:
        return self._cursor.fetchone() if self._cursor.description is not None else None

    def fetchall(self) -> list[tuple]:
        return self._cursor.fetchall() if self._cursor.description is not None else []

    def fetchmany(self, size: int) -> list[tuple]:
        return self._cursor.fetchmany(size) if self._cursor.description is not None else []

    def __iter__(self) -> Iterator[tuple]:
        return iter(self.fetchall())


class Connection:
    """One psycopg connection (autocommit) behind SQLite's ``execute``/``executemany``. A connection
    the server dropped (a restart, a failover) is opened again before the next statement that is
    not inside a transaction (one that begins a transaction included); inside one, the statement
    fails and the transaction with it, and the next transaction opens a new connection. A dropped
    connection reports no transaction status (UNKNOWN), so whether one of ours is open is kept here:
    with only the status to go on, a daemon that saw the server go away failed every call after it
    came back."""

    def __init__(self, raw: Any, catalog: Catalog | None, *, url: str, read_only: bool, on_connect=None):
        self.raw = raw
        self.catalog = catalog
        self._url = url
        self._read_only = read_only
        self._on_connect = on_connect
        self._in_transaction = False  # a BEGIN ran here and no COMMIT or ROLLBACK since (finish)

    def ensure(self) -> None:
        """Open the connection again if the server dropped it (call between transactions). A
        server shutting down may end the new session while it is being set up: that is the
        store's "unavailable" as well, and the next call tries again."""
        if self.raw.closed or self.raw.broken:
            self.raw = _open(self._url, self._read_only, self._on_connect)

    def ask(self, sql: str, params: Sequence = ()) -> tuple:
        """One row of a statement in psycopg's own placeholders, outside the store's dialect (a
        session lock, the last identity value): a server gone away is the store's "unavailable"."""
        try:
            return self.raw.execute(sql, params or None).fetchone()
        except _psycopg().OperationalError as exc:
            raise unavailable(exc) from exc

    def _run(self, run: Callable[[Any], None], begins: bool = False) -> Any:
        psycopg = _psycopg()
        status = self.raw.info.transaction_status
        statuses = psycopg.pq.TransactionStatus
        # Between transactions: IDLE, or dropped (UNKNOWN) when no transaction of ours was open on it.
        between = status == statuses.IDLE or (status == statuses.UNKNOWN and (begins or not self._in_transaction))
        if between:
            self._in_transaction = False
            self.ensure()
        try:
            cursor = self.raw.cursor()
            try:
                run(cursor)
            except psycopg.OperationalError:
                if not (between and self.raw.broken):
                    raise
                self.ensure()  # dropped while idle: nothing was written; run it once more on a new one
                cursor = self.raw.cursor()
                run(cursor)
        except psycopg.OperationalError as exc:
            raise unavailable(exc) from exc
        if begins:
            self._in_transaction = True
        return cursor

    def execute(self, sql: str, params: Sequence | dict | None = None) -> Cursor:
        has_params = bool(params)
        statement = to_postgres(sql, self.catalog, has_params)
        if has_params:
            _refuse_nul(params.values() if isinstance(params, dict) else params)
        begins = sql.lstrip()[:5].upper() == "BEGIN"
        return Cursor(self, self._run(lambda cursor: cursor.execute(statement, params if has_params else None), begins))

    def finish(self, statement: str) -> None:
        """End the transaction a BEGIN opened: "COMMIT" (it fails if the connection was dropped: what
        it wrote is gone) or "ROLLBACK" (nothing to do on a dropped one: the server ended it)."""
        self._in_transaction = False
        if statement == "ROLLBACK" and (self.raw.closed or self.raw.broken):
            return
        try:
            self.raw.execute(statement)
        except _psycopg().OperationalError as exc:
            raise unavailable(exc) from exc

    def executemany(self, sql: str, rows: Sequence) -> Cursor:
        rows = list(rows)
        for row in rows:
            _refuse_nul(row.values() if isinstance(row, dict) else row)
        if not rows:
            return Cursor(self, self.raw.cursor(), ran=False)
        statement = to_postgres(sql, self.catalog, True)
        return Cursor(self, self._run(lambda cursor: cursor.executemany(statement, rows)))

    def close(self) -> None:
        self.raw.close()


def unavailable(exc: Exception) -> StoreUnavailable:
    """A connection the server dropped, or one that cannot be made: the store is away for now."""
    return StoreUnavailable(f"the PostgreSQL store is unavailable: {str(exc).strip() or type(exc).__name__}")


def _open(url: str, read_only: bool, on_connect: Callable[[Any], None] | None = None) -> Any:
    """A psycopg connection whose values bind as the store's SQL expects (see the module), set up
    by ``on_connect(raw)``."""
    psycopg = _psycopg()
    from psycopg.adapt import Dumper, Loader
    from psycopg.types.string import TextLoader

    class BoolAsInt(Dumper):
        def dump(self, obj: bool) -> bytes:
            return b"1" if obj else b"0"

        def quote(self, obj: bool) -> bytes:
            return self.dump(obj)

    class NumberLoader(Loader):
        """A sum of integers is numeric in PostgreSQL, an integer in SQLite."""

        def load(self, data) -> int | float:
            text = bytes(data).decode()
            return float(text) if any(c in text for c in ".eEN") else int(text)

    try:
        raw = psycopg.connect(url, autocommit=True, cursor_factory=psycopg.ClientCursor, connect_timeout=10)
    except psycopg.OperationalError as exc:  # the server is away (or not there): it may come back
        raise StoreUnavailable(f"cannot connect to the PostgreSQL store: {_without_password(str(exc), url)}") from None
    except psycopg.Error as exc:
        raise StoreError(f"cannot connect to the PostgreSQL store: {_without_password(str(exc), url)}") from None
    raw.adapters.register_dumper(bool, BoolAsInt)
    for json_type in ("json", "jsonb"):
        raw.adapters.register_loader(json_type, TextLoader)
    raw.adapters.register_loader("numeric", NumberLoader)
    try:
        if read_only:
            raw.execute("SET default_transaction_read_only = on")
        if on_connect is not None:
            on_connect(raw)
    except psycopg.OperationalError as exc:  # the server ended the session as it began (a shutdown)
        raw.close()
        raise unavailable(exc) from exc
    return raw


def _without_password(message: str, url: str) -> str:
    """libpq's message with the URL's password taken out, as written and decoded: a malformed one
    is quoted whole ("invalid percent-encoded token: ..."), and a message goes to a log."""
    found = re.search(r"://[^:/@]*:([^/?#]*)@", url)
    words = [found.group(1)] if found else []
    words += re.findall(r"[?&]password=([^&#]*)", url, flags=re.IGNORECASE)
    message = message.strip()
    for word in words:
        for form in {word, unquote(word)}:
            if form:
                message = message.replace(form, "***")
    if "invalid percent-encoded token" in message or "invalid URI" in message:
        message += " (a password's @ : / % # ? must be written %40 %3A %2F %25 %23 %3F in the URL)"
    return message


def connect(
    url: str, catalog: Catalog | None, *, read_only: bool = False, on_connect: Callable[[Any], None] | None = None
) -> Connection:
    """A connection to ``url``; ``on_connect(raw)`` sets it up, and again after a reconnection."""
    raw = _open(url, read_only, on_connect)
    return Connection(raw, catalog, url=url, read_only=read_only, on_connect=on_connect)


class _Table:
    """``db[name]``: insert, upsert, update, exists, as sqlite-utils' Table does them."""

    def __init__(self, conn: Connection, name: str):
        self.conn = conn
        self.name = name
        self.last_rowid: int | None = None
        self.last_pk: Any = None

    def insert(self, row: dict[str, Any], *, replace: bool = False) -> "_Table":
        columns = list(row)
        verb = "INSERT OR REPLACE INTO" if replace else "INSERT INTO"
        sql = f"{verb} {self.name} ({', '.join(columns)}) VALUES ({', '.join('?' * len(columns))})"
        key = self.conn.catalog.keys.get(self.name, ())
        identity = self.conn.catalog.identities.get(self.name)
        returning = f" RETURNING {identity}" if identity else ""
        found = self.conn.execute(sql + returning, [row[c] for c in columns]).fetchone()
        self.last_rowid = found[0] if found else None
        self.last_pk = row[key[0]] if len(key) == 1 and key[0] in row else self.last_rowid
        return self

    def upsert(self, row: dict[str, Any], *, pk: str) -> "_Table":
        """Insert, or update the given columns of the row with that key (the dialect's ON CONFLICT)."""
        if self.conn.catalog.keys.get(self.name) != (pk,):
            raise ValueError(f"upsert into {self.name} by {pk}, which is not its key")
        return self.insert(row, replace=True)

    def update(self, pk_value: Any, values: dict[str, Any]) -> "_Table":
        (key,) = self.conn.catalog.keys[self.name]
        sets = ", ".join(f"{c} = ?" for c in values)
        self.conn.execute(f"UPDATE {self.name} SET {sets} WHERE {key} = ?", [*values.values(), pk_value])
        self.last_pk = pk_value
        return self

    def exists(self) -> bool:
        return self.name in self.conn.catalog.keys or self.name in self.conn.catalog.rowid_tables


class SqlTables:
    """What the store's modules use of a sqlite-utils Database: ``execute`` and ``db[table]``."""

    def __init__(self, conn: Connection):
        self.conn = conn

    def execute(self, sql: str, params: Sequence | dict | None = None) -> Cursor:
        return self.conn.execute(sql, params)

    def __getitem__(self, name: str) -> _Table:
        return _Table(self.conn, name)

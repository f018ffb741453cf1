"""A whole memory as an open archive: what a person takes with them, and what moves a store.

    write_archive(db_path, out_path, agentmemd_version)   # -> the manifest

The archive is a gzipped tar of one manifest and one JSON Lines file per table::

    manifest.json          {"format": "agentmemd-archive", "format_version": 1, "agentmemd": ...,
                            "schema": [migrations applied], "created": ..., "tables":
                            {"memories": {"rows": 1234, "columns": [...], "sha256": ...}, ...}}
    tables/memories.jsonl  one row a line, its columns by name; a BLOB (an embedding) is
                            {"$base64": "..."}; rows in their key's order

Every table the schema made is in it but what is derived from the others and rebuilt from them:
the full-text indexes (FTS5 tables, their shadow tables and the namespace -> index map) and the
vector index (sqlite-vec's vec0 tables). Memories keep their versions, events, audiences, affect,
slots and dates; conversations their turns and observations; persona, people, goals, tokens, jobs,
the pack log and the language-model ledger are all there. It is read in one read transaction of
its own connection, so a daemon may keep running: the archive is the store as of one moment.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import os
import tarfile
import zlib
from pathlib import Path
from typing import Any

from agentmemd.memory.core.clock import SystemClock, format_time
from agentmemd.memory.core.errors import InvalidParams
from agentmemd.memory.store.sqlite_connection import connect, read_only_uri

FORMAT = "agentmemd-archive"
FORMAT_VERSION = 1
DERIVED_TABLES = ("fts_namespaces",)  # which FTS table holds each namespace: rebuilt with the indexes
SCHEMA_TABLE = "_sqlite_migrations"  # the schema itself: the manifest's "schema"


# What opening a new store writes itself: a store holding nothing else holds nothing of anyone's
# (an import stopped part way, by SIGTERM or kill -9, leaves such a store).
OPENING_WRITES = frozenset({"meta", "schema_versions"})


def holds_nothing(tables) -> bool:
    """Whether every table of ``tables`` (SqliteTables or PostgresTables) but OPENING_WRITES is empty."""
    return all(
        t in OPENING_WRITES or tables.conn.execute(f'SELECT 1 FROM "{t}" LIMIT 1').fetchone() is None
        for t in tables.names()
    )


def sqlite_holds_nothing(db: Path) -> bool:
    """The SQLite store at ``db`` holds nothing but what opening it wrote (read only: an older
    agentmemd's store is not upgraded by looking at it)."""
    import sqlite3

    from agentmemd.memory.store.sqlite_connection import read_only_uri

    try:
        conn = sqlite3.connect(read_only_uri(db), uri=True)
    except sqlite3.Error:
        return False
    try:
        return holds_nothing(SqliteTables(conn))
    except sqlite3.Error:
        return False
    finally:
        conn.close()


class SqliteTables:
    """What an archive reads of a SQLite store through ``conn``: its tables, each one's order, its
    schema. (postgres/store.py's PostgresTables answers the same of a PostgreSQL one.)"""

    def __init__(self, conn):
        self.conn = conn

    def names(self) -> list[str]:
        """Every ordinary table but the derived ones (see the module)."""
        rows = self.conn.execute(
            "SELECT name, type, sql FROM sqlite_master WHERE type = 'table' ORDER BY name"
        ).fetchall()
        virtual = [name for name, _, sql in rows if (sql or "").upper().startswith("CREATE VIRTUAL TABLE")]
        return [
            name
            for name, _, sql in rows
            if name not in virtual
            and not name.startswith("sqlite_")
            and name not in DERIVED_TABLES
            and name != SCHEMA_TABLE
            and not any(name.startswith(f"{v}_") for v in virtual)
        ]

    def order(self, table: str) -> str:
        """Its key's columns, else its rowid (the order rows came in), else none."""
        keys = [r[1] for r in sorted(self.conn.execute(f'PRAGMA table_info("{table}")'), key=lambda r: r[5]) if r[5]]
        rowid = self.conn.execute("SELECT 1 FROM sqlite_master WHERE name = ? AND sql LIKE '%WITHOUT ROWID%'", (table,))
        if keys:
            return ", ".join(f'"{k}"' for k in keys)
        return "rowid" if rowid.fetchone() is None else "1"

    def schema(self) -> list[str]:
        return [r[0] for r in self.conn.execute(f"SELECT name FROM {SCHEMA_TABLE} ORDER BY id")]


def _value(value: Any) -> Any:
    return {"$base64": base64.b64encode(value).decode("ascii")} if isinstance(value, (bytes, memoryview)) else value


def _lines(tables, table: str):
    """(columns, the table's rows as archive lines, in its key's order)."""
    cursor = tables.conn.execute(f"SELECT * FROM {table} ORDER BY {tables.order(table)}")
    columns = [c[0] for c in cursor.description]

    def lines():
        for row in cursor:
            line = json.dumps(dict(zip(columns, map(_value, row))), ensure_ascii=False, separators=(",", ":"))
            yield line.encode("utf-8") + b"\n"

    return columns, lines()


def write_archive(db_path: Path, out_path: Path, agentmemd_version: str) -> dict[str, Any]:
    """Write the SQLite store at ``db_path`` as an archive at ``out_path``, read on a read-only
    connection of its own in one snapshot. Returns the manifest."""
    conn = connect(read_only_uri(db_path), read_only=True)
    try:
        conn.execute("BEGIN")  # one snapshot for every table
        manifest = write_tables(SqliteTables(conn), out_path, agentmemd_version)
        conn.execute("COMMIT")
        return manifest
    finally:
        conn.close()


def write_tables(tables, out_path: Path, agentmemd_version: str) -> dict[str, Any]:
    """Write what ``tables`` reads (inside the caller's snapshot) as an archive at ``out_path``
    (written beside it, then renamed into place: a half-written archive never has its name)."""
    tmp = out_path.with_name(out_path.name + ".partial")
    try:
        manifest: dict[str, Any] = {
            "format": FORMAT,
            "format_version": FORMAT_VERSION,
            "agentmemd": agentmemd_version,
            "schema": tables.schema(),
            "created": format_time(SystemClock().now()),
            "tables": {},
        }
        # Private from its first byte, as the data dir's files are: it holds every memory, secrets too.
        tmp.unlink(missing_ok=True)
        os.close(os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600))
        with tarfile.open(tmp, "w:gz") as tar:
            for table in tables.names():
                columns, lines = _lines(tables, table)
                data = b"".join(lines)
                manifest["tables"][table] = {
                    "rows": data.count(b"\n"),  # a line a row: JSON keeps a newline in a text escaped
                    "columns": columns,
                    "sha256": hashlib.sha256(data).hexdigest(),
                }
                _add(tar, f"tables/{table}.jsonl", data)
            _add(tar, "manifest.json", json.dumps(manifest, indent=2, ensure_ascii=False).encode("utf-8"))
        tmp.replace(out_path)
        return manifest
    finally:
        tmp.unlink(missing_ok=True)


def _add(tar: tarfile.TarFile, name: str, data: bytes) -> None:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    info.mode = 0o600
    tar.addfile(info, io.BytesIO(data))


class ArchiveError(ValueError):
    """An archive that cannot be read back as it was written; nothing was stored."""


def read_archive(path: Path) -> tuple[dict[str, Any], dict[str, bytes]]:
    """The archive's manifest and its tables' files, every checksum checked (ArchiveError)."""
    try:
        with tarfile.open(path, "r:gz") as tar:
            files = {m.name: tar.extractfile(m).read() for m in tar.getmembers() if m.isfile()}
        manifest = json.loads(files.pop("manifest.json"))
    except EOFError:  # gzip's stream ends before its end: a copy interrupted, a disk that filled
        raise ArchiveError(f"{path} is cut short (its compressed data ends early): nothing was stored") from None
    except (OSError, tarfile.TarError, KeyError, json.JSONDecodeError, zlib.error) as exc:
        raise ArchiveError(f"{path} is not an agentmemd archive ({exc})") from None
    if manifest.get("format") != FORMAT:
        raise ArchiveError(f"{path} is not an agentmemd archive (format {manifest.get('format')!r})")
    if manifest.get("format_version") != FORMAT_VERSION:
        raise ArchiveError(
            f"{path} is archive format {manifest.get('format_version')}; this agentmemd reads {FORMAT_VERSION}"
        )
    for table, about in manifest["tables"].items():
        data = files.get(f"tables/{table}.jsonl")
        if data is None or hashlib.sha256(data).hexdigest() != about["sha256"]:
            raise ArchiveError(f"table {table} of {path} is missing or does not match its checksum")
    return manifest, files


def _stored(value: Any) -> Any:
    return base64.b64decode(value["$base64"]) if isinstance(value, dict) and "$base64" in value else value


def load_archive(store, manifest: dict[str, Any], files: dict[str, bytes]) -> dict[str, int]:
    """Every archived table's rows into ``store`` (a new, empty one of the same schema), then the
    search indexes rebuilt from the memories, in one transaction. table -> rows stored."""
    if manifest["schema"] != store.applied_migrations():
        raise ArchiveError(
            f"the archive's schema ends at {manifest['schema'][-1]}; this store's does not match: read it with "
            f"the agentmemd that wrote it ({manifest['agentmemd']})"
        )
    counts: dict[str, int] = {}
    with store.transaction():
        store.defer_foreign_keys()  # goal notes before their goal, say: checked at COMMIT
        for table, about in manifest["tables"].items():
            columns = about["columns"]
            marks = ", ".join("?" * len(columns))
            names = ", ".join(f'"{c}"' for c in columns)
            store.conn.execute(f'DELETE FROM "{table}"')  # what opening the store wrote (meta, schema_versions)
            rows = [
                [_stored(json.loads(line)[c]) for c in columns] for line in files[f"tables/{table}.jsonl"].splitlines()
            ]
            try:
                store.conn.executemany(f'INSERT INTO "{table}" ({names}) VALUES ({marks})', rows)
            except InvalidParams as exc:  # a value this store cannot keep (PostgreSQL: a NUL in a text)
                said = exc.message.split(": ", 2)[-1]  # without "invalid params: text: "
                raise ArchiveError(
                    f"table {table}, {_which(columns, rows)}: {said}; correct it in the store it came from "
                    "(agentmemd memory update ID) and export again"
                ) from None
            counts[table] = len(rows)
        store.reset_sequences()
        store.index_live("1=1", whole_store=True)
        store.rebuild_turn_index()
    return counts


def _which(columns: list[str], rows: list[list[Any]]) -> str:
    """The first row holding a NUL, named by its first columns (its id, its namespace...), so the
    one memory that stops a move to PostgreSQL can be found and corrected where it is."""
    for row in rows:
        if any(isinstance(value, str) and "\x00" in value for value in row):
            named = ", ".join(f"{c} {v!r}" for c, v in zip(columns[:3], row[:3]) if not isinstance(v, bytes))
            held = [c for c, v in zip(columns, row) if isinstance(v, str) and "\x00" in v]
            return f"the row with {named} (in {', '.join(held)})"
    return "a row"


def table_checksums(tables) -> dict[str, str]:
    """Each archived table's SHA-256 as an archive would hold it (a store read back checks out)."""
    out = {}
    for table in tables.names():
        digest = hashlib.sha256()
        for line in _lines(tables, table)[1]:
            digest.update(line)
        out[table] = digest.hexdigest()
    return out

"""`agentmemd export` and `agentmemd import-store`: a whole memory written as an open archive
(memory/store/archive.py) from a data dir or a PostgreSQL store, while its daemons run or not, and
read back into a new data dir or an empty PostgreSQL database, verified table by table against the
archive's checksums. So a memory moves between the two stores. Nothing is overwritten: an existing
archive path, or a data dir or database that already holds a store, is refused."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentmemd.memory.core import __version__
from agentmemd.memory.core.config import StoreConfig, redact
from agentmemd.memory.core.errors import InvalidParams, StoreError, StoreUnavailable
from agentmemd.memory.store.archive import (
    ArchiveError,
    load_archive,
    read_archive,
    sqlite_holds_nothing,
    table_checksums,
    write_archive,
    write_tables,
)
from agentmemd.memory.store.database import Store, remove_sqlite_files
from agentmemd.memory.store.opening import DB_FILE, DataDirLock, open_store
from agentmemd.memory.store.schema import known_migrations, short


def export_archive(data_dir: Path | None, out: Path, store_url: str = "") -> dict[str, Any]:
    """The manifest of the archive written at ``out`` (of the PostgreSQL store at ``store_url`` if
    given, else of the data dir's), a summary of it (tables and rows in all)."""
    data_dir = Path(data_dir or ".")
    db = data_dir / DB_FILE
    if not store_url and not db.is_file():
        raise InvalidParams(
            "data_dir",
            f"{data_dir} holds no agentmemd store ({DB_FILE} not found; a daemon keeping its memory in PostgreSQL: "
            "give --store-url)",
        )
    if out.exists():
        raise InvalidParams("out", f"{out} exists: give a new path (an archive is never written over a file)")
    if not out.parent.is_dir():
        raise InvalidParams("out", f"{out.parent} is not a directory")
    manifest = _export_postgres(store_url, out) if store_url else write_archive(db, out, __version__)
    return {
        "archive": str(out),
        "bytes": out.stat().st_size,
        "tables": len(manifest["tables"]),
        "rows": sum(t["rows"] for t in manifest["tables"].values()),
        "memories": manifest["tables"].get("memories", {}).get("rows", 0),
        "schema": manifest["schema"][-1] if manifest["schema"] else None,
        "format_version": manifest["format_version"],
    }


def _export_postgres(url: str, out: Path) -> dict[str, Any]:
    from agentmemd.memory.store.postgres.store import PostgresTables, open_existing

    try:
        conn = open_existing(url)
    except StoreError as exc:
        raise InvalidParams("store_url", exc.message) from None
    try:
        conn.raw.execute("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")  # one snapshot for every table
        return write_tables(PostgresTables(conn), out, __version__)
    finally:
        conn.close()


def import_archive(archive: Path, data_dir: Path | None, store_url: str = "") -> dict[str, Any]:
    """A new store holding what ``archive`` holds (in the empty PostgreSQL database at ``store_url``
    if given, else at ``data_dir``), search indexes rebuilt; every table checked against the
    archive's checksum. On any failure nothing is left behind."""
    data_dir = Path(data_dir or ".")
    db = data_dir / DB_FILE
    _refuse_a_used_store(data_dir, store_url)
    if not archive.is_file():
        raise InvalidParams("archive", f"{archive} is not a file")
    try:
        manifest, files = read_archive(archive)
    except ArchiveError as exc:
        raise InvalidParams("archive", str(exc)) from None
    schema = list(manifest.get("schema") or [])
    try:
        older = _older_schema(schema, manifest.get("agentmemd"))
    except ArchiveError as exc:
        raise InvalidParams("archive", str(exc)) from None
    meta = dict((row["key"], row["value"]) for row in map(json.loads, files.get("tables/meta.jsonl", b"").splitlines()))
    if not store_url:
        data_dir.mkdir(parents=True, exist_ok=True, mode=0o700)
    store = None
    where = StoreConfig(url=store_url)
    dim, model = int(meta.get("embedding_dim", 384)), meta.get("embedding_model", "")
    upgraded: list[str] = []
    loaded = False
    try:
        # An archive of an older schema is read into a store of its own schema and checked there,
        # then the store is upgraded as an older data dir is when a daemon opens it.
        store = open_store(where, Path(data_dir or "."), dim=dim, model=model, upto=schema[-1] if older else None)
        counts = load_archive(store, manifest, files)
        loaded = True
        found = table_checksums(store.archive_tables())
        wrong = sorted(t for t, about in manifest["tables"].items() if found.get(t) != about["sha256"])
        if wrong:
            raise ArchiveError(f"read back, these tables differ from the archive: {', '.join(wrong)}")
        if older:
            store.close()
            store = None
            store = open_store(where, Path(data_dir or "."), dim=dim, model=model)
            upgraded = store.schema.applied
    except BaseException as exc:
        if store is None and loaded and store_url:  # its upgrade (one transaction) failed: the loaded store goes
            store = _reopened(lambda: open_store(where, Path("."), dim=dim, model=model, upto=schema[-1]))
        _remove_store(store, None if store_url else db)
        if isinstance(exc, ArchiveError):
            raise InvalidParams("archive", str(exc)) from None
        if isinstance(exc, StoreUnavailable):  # a full disk, a read-only one: no bad param, and no reads going on
            said = exc.message.split("; nothing was changed")[0]
            raise StoreUnavailable(f"{said}; the import stopped and left nothing behind", exc.data) from None
        if isinstance(exc, StoreError):  # a store that cannot be made there (no right to create pgvector's extension)
            raise InvalidParams("store_url" if store_url else "data_dir", exc.message) from None
        raise
    store.close()
    return {
        **({"store_url": redact(store_url)} if store_url else {"data_dir": str(data_dir)}),
        "tables": len(counts),
        "rows": sum(counts.values()),
        "memories": counts.get("memories", 0),
        "verified": "every table matches its checksum",
        "schema": known_migrations()[-1] if upgraded else schema[-1],
        **(
            {"upgraded": f"from {short(schema[-1])}, {len(upgraded)} migration{'s' * (len(upgraded) != 1)} applied"}
            if upgraded
            else {}
        ),
    }


def _refuse_a_used_store(data_dir: Path, store_url: str) -> None:
    """InvalidParams when the database or data dir already holds a store; what an import stopped
    part way left in a data dir (nothing of anyone's) is removed."""
    db = data_dir / DB_FILE
    if store_url:
        from agentmemd.memory.store.postgres.store import holds_store

        try:
            used = holds_store(store_url)
        except StoreError as exc:
            raise InvalidParams("store_url", exc.message) from None
        if used:
            raise InvalidParams(
                "store_url", f"{redact(store_url)} already holds a store: read an archive into an empty database"
            )
    elif db.exists():
        if DataDirLock(data_dir).held_elsewhere() or not sqlite_holds_nothing(db):
            raise InvalidParams("data_dir", f"{data_dir} already holds a store: read an archive into a new data dir")
        remove_sqlite_files(db)  # what an import stopped part way left: nothing of anyone's


def _older_schema(schema: list[str], written_by: str | None) -> bool:
    """Whether an archive's schema is an older one of this agentmemd's (its migrations a first part
    of this one's list); ArchiveError for a schema this agentmemd cannot read (a newer one's)."""
    known = known_migrations()
    if schema and schema == known[: len(schema)]:
        return len(schema) < len(known)
    unknown = [name for name in schema if name not in known]
    raise ArchiveError(
        f"the archive was written by agentmemd {written_by or '(unknown)'} "
        f"with schema {short(schema[-1]) if schema else '(none)'}"
        + (
            f", newer than this agentmemd {__version__}'s (up to {short(known[-1])}): read it with agentmemd "
            f"{written_by or 'that wrote it'} or later"
            if unknown
            else ", which is not one of this agentmemd's schemas"
        )
    )


def _reopened(opening) -> Store | None:
    """The store ``opening()`` opens, or None if it cannot be (then there is nothing more to remove)."""
    try:
        return opening()
    except Exception:
        return None


def _remove_store(store: Store | None, db: Path | None) -> None:
    """``db``: the SQLite file an import made (None: it went into PostgreSQL)."""
    if store is not None:
        store.discard()
    elif db is not None:  # it failed to open: what SQLite had made of it
        remove_sqlite_files(db)

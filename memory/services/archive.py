"""`agentmemd export` and `agentmemd import-store`: a whole memory written as an open archive
(memory/store/archive.py) from a data dir, while its daemon runs or not, and read back into a new
data dir, verified table by table against the archive's checksums. Nothing is overwritten: an
existing archive path, or a data dir that already holds a store, is refused."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from agentmemd.memory.core import __version__
from agentmemd.memory.core.errors import InvalidParams
from agentmemd.memory.services.app import DB_FILE
from agentmemd.memory.store.archive import ArchiveError, load_archive, read_archive, table_checksums, write_archive
from agentmemd.memory.store.database import Store


def export_archive(data_dir: Path, out: Path) -> dict[str, Any]:
    """The manifest of the archive written at ``out``, a summary of it (tables and rows in all)."""
    db = Path(data_dir) / DB_FILE
    if not db.is_file():
        raise InvalidParams("data_dir", f"{data_dir} holds no agentmemd store ({DB_FILE} not found)")
    if out.exists():
        raise InvalidParams("out", f"{out} exists: give a new path (an archive is never written over a file)")
    if not out.parent.is_dir():
        raise InvalidParams("out", f"{out.parent} is not a directory")
    manifest = write_archive(db, out, __version__)
    return {
        "archive": str(out),
        "bytes": out.stat().st_size,
        "tables": len(manifest["tables"]),
        "rows": sum(t["rows"] for t in manifest["tables"].values()),
        "memories": manifest["tables"].get("memories", {}).get("rows", 0),
        "schema": manifest["schema"][-1] if manifest["schema"] else None,
        "format_version": manifest["format_version"],
    }


def import_archive(archive: Path, data_dir: Path) -> dict[str, Any]:
    """A new store at ``data_dir`` holding what ``archive`` holds, search indexes rebuilt; every table
    checked against the archive's checksum. On any failure nothing is left behind."""
    db = Path(data_dir) / DB_FILE
    if db.exists():
        raise InvalidParams("data_dir", f"{data_dir} already holds a store: read an archive into a new data dir")
    if not archive.is_file():
        raise InvalidParams("archive", f"{archive} is not a file")
    try:
        manifest, files = read_archive(archive)
    except ArchiveError as exc:
        raise InvalidParams("archive", str(exc)) from None
    meta = dict((row["key"], row["value"]) for row in map(json.loads, files.get("tables/meta.jsonl", b"").splitlines()))
    Path(data_dir).mkdir(parents=True, exist_ok=True, mode=0o700)
    store = None
    try:
        store = Store(db, dim=int(meta.get("embedding_dim", 384)), model=meta.get("embedding_model", ""))
        counts = load_archive(store, manifest, files)
        found = table_checksums(store.conn)
        wrong = sorted(t for t, about in manifest["tables"].items() if found.get(t) != about["sha256"])
        if wrong:
            raise ArchiveError(f"read back, these tables differ from the archive: {', '.join(wrong)}")
    except ArchiveError as exc:
        _remove_store(store, db)
        raise InvalidParams("archive", str(exc)) from None
    except BaseException:
        _remove_store(store, db)
        raise
    store.close()
    return {
        "data_dir": str(data_dir),
        "tables": len(counts),
        "rows": sum(counts.values()),
        "memories": counts.get("memories", 0),
        "verified": "every table matches its checksum",
        "schema": manifest["schema"][-1],
    }


def _remove_store(store: Store | None, db: Path) -> None:
    if store is not None:
        store.close()
    for path in (db, db.with_name(db.name + "-wal"), db.with_name(db.name + "-shm")):
        path.unlink(missing_ok=True)

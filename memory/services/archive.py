"""`agentmemd export`: a whole memory written as an open archive (memory/store/archive.py), from a
data dir, while its daemon runs or not. Nothing is overwritten: an existing archive path is refused."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentmemd.memory.core import __version__
from agentmemd.memory.core.errors import InvalidParams
from agentmemd.memory.services.app import DB_FILE
from agentmemd.memory.store.archive import write_archive


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

"""Reading chat-export files, shared by the importers: zips, JSON with line numbers, dates."""

from __future__ import annotations

import io
import json
import zipfile
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from agentmemd.memory.core.errors import MalformedExport


def read_export(path: Path) -> tuple[bytes, zipfile.ZipFile | None]:
    """The file's bytes, and the archive when it is a zip (Slack, WhatsApp with media, the
    ChatGPT and Claude downloads). A missing file is a MalformedExport at line 0."""
    path = Path(path)
    if not path.is_file():
        raise MalformedExport(f"{path}: no such file", {"line": 0})
    data = path.read_bytes()
    archive = zipfile.ZipFile(io.BytesIO(data)) if zipfile.is_zipfile(io.BytesIO(data)) else None
    return data, archive


def zip_member(archive: zipfile.ZipFile, name: str, path: Path) -> bytes:
    """One file of the archive, found by its base name at any depth (a re-zipped export nests it)."""
    found = [n for n in archive.namelist() if n.rsplit("/", 1)[-1] == name]
    if not found:
        raise MalformedExport(f"{path}: the zip has no {name}", {"line": 0})
    return archive.read(min(found, key=len))


def read_json_export(path: Path, member: str) -> Any:
    """The JSON document of an export: the file itself, or ``member`` inside it when it is a zip."""
    data, archive = read_export(path)
    if archive is not None:
        data = zip_member(archive, member, path)
    return load_json(data, Path(path).name)


def decode_text(data: bytes, name: str) -> str:
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        raise MalformedExport(f"{name}: line {line}: not UTF-8 text (byte {exc.start})", {"line": line}) from None


def load_json(data: bytes, name: str) -> Any:
    """Parsed JSON; a syntax error names the file and its line."""
    try:
        return json.loads(decode_text(data, name))
    except json.JSONDecodeError as exc:
        raise MalformedExport(f"{name}: line {exc.lineno}: not valid JSON: {exc.msg}", {"line": exc.lineno}) from None


def expect(value: Any, kind: type | tuple[type, ...], what: str, line: int = 0) -> Any:
    """``value`` when it has the shape the format promises; else an error saying what was expected."""
    if not isinstance(value, kind):
        names = " or ".join(k.__name__ for k in (kind if isinstance(kind, tuple) else (kind,)))
        raise MalformedExport(f"{what}: expected {names}, found {type(value).__name__}", {"line": line})
    return value


def from_epoch(seconds: float | str) -> datetime:
    return datetime.fromtimestamp(float(seconds), tz=timezone.utc)


def from_iso(text: str, what: str, line: int) -> datetime:
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00"))
    except (ValueError, AttributeError, TypeError):
        raise MalformedExport(f"{what}: not an ISO date and time: {text!r}", {"line": line}) from None

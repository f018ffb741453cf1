"""Reading chat-export files, shared by the importers: zips, JSON with line numbers, dates.

A file that is not what the format expects says which of three it is, never with zipfile's own
exception: not a zip at all, a zip without the file the format reads (another app's export?),
or a corrupt zip (cut short by a download, damaged, encrypted).
"""

from __future__ import annotations

import codecs
import io
import json
import lzma
import zipfile
import zlib
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from agentmemd.memory.core.errors import MalformedExport

# How a zip starts: a member's header, or the end record of an empty archive.
ZIP_STARTS = (b"PK\x03\x04", b"PK\x05\x06")
# What reading a damaged member raises: a bad CRC or header, broken deflate data, a stream cut
# short, a compression zipfile cannot undo, a password it does not have.
_DAMAGE = (zipfile.BadZipFile, zlib.error, lzma.LZMAError, EOFError, OSError, NotImplementedError, RuntimeError)
SHOWN_MEMBERS = 6


class ExportZip(zipfile.ZipFile):
    """An export's archive in memory; a member that cannot be read is a MalformedExport naming it."""

    def __init__(self, data: bytes, name: str):
        super().__init__(io.BytesIO(data))
        self.export_name = name

    def read(self, name: Any, pwd: bytes | None = None) -> bytes:
        try:
            return super().read(name, pwd)
        except _DAMAGE as exc:
            member = getattr(name, "filename", name)
            if isinstance(exc, RuntimeError) and "encrypted" in str(exc):
                raise MalformedExport(
                    f"encrypted zip: {self.export_name}: {member} needs a password; unzip it and import the files",
                    {"line": 0},
                ) from None
            raise MalformedExport(f"corrupt zip: {self.export_name}: {member}: {exc}", {"line": 0}) from None


def read_export(path: Path) -> tuple[bytes, ExportZip | None]:
    """The file's bytes, and the archive when it is a zip (Slack, WhatsApp with media, the
    ChatGPT and Claude downloads). A missing file is a MalformedExport at line 0."""
    path = Path(path)
    if not path.is_file():
        raise MalformedExport(f"{path}: no such file", {"line": 0})
    data = path.read_bytes()
    return data, open_zip(data, path.name)


NOT_A_ZIP = "its name ends in .zip, but it is no zip file"


# What may stand before a file's first character: a byte-order mark and blank space.
_LEADING = b"\xef\xbb\xbf \t\r\n"


def first_byte(data: bytes) -> bytes:
    """The file's first significant byte ("{" or "[" for JSON), b"" for an empty one."""
    return data.lstrip(_LEADING)[:1]


def open_zip(data: bytes, name: str) -> ExportZip | None:
    """The archive when ``data`` is a zip, None when it is none; a zip that cannot be opened (a
    download cut short, a damaged directory) is a MalformedExport saying so."""
    complete = zipfile.is_zipfile(io.BytesIO(data))
    if not complete and not data.startswith(ZIP_STARTS):
        return None
    if not complete:  # a zip's first bytes without its end record: the rest of the file is missing
        raise MalformedExport(
            f"corrupt zip: {name}: it ends before the zip's directory (cut short by a download or copy?)", {"line": 0}
        )
    try:
        return ExportZip(data, name)
    except (zipfile.BadZipFile, OSError, ValueError, EOFError) as exc:
        raise MalformedExport(f"corrupt zip: {name}: {exc}", {"line": 0}) from None


def zip_contents(archive: zipfile.ZipFile) -> str:
    """What a zip holds, the shallowest files first, for an error about a zip that is not the expected one."""
    files = sorted((n for n in archive.namelist() if not n.endswith("/")), key=lambda n: (n.count("/"), n))
    if not files:
        return "It is empty."
    shown = ", ".join(files[:SHOWN_MEMBERS])
    return f"It holds {shown}" + (
        f" and {len(files) - SHOWN_MEMBERS} more files." if len(files) > SHOWN_MEMBERS else "."
    )


def not_the_export(archive: zipfile.ZipFile, name: str, missing: str, app: str) -> MalformedExport:
    """The error for a sound zip that lacks what ``app``'s export has: likely another app's."""
    return MalformedExport(
        f"{name}: a zip, but it has no {missing}; is this a {app} export? {zip_contents(archive)}", {"line": 0}
    )


def zip_member(archive: ExportZip, name: str, app: str) -> bytes:
    """One file of the archive, found by its base name at any depth (a re-zipped export nests it)."""
    found = [n for n in archive.namelist() if n.rsplit("/", 1)[-1] == name]
    if not found:
        raise not_the_export(archive, archive.export_name, name, app)
    return archive.read(min(found, key=len))


def read_json_export(path: Path, member: str, app: str) -> Any:
    """The JSON document of an export: the file itself, or ``member`` inside it when it is a zip."""
    path = Path(path)
    data, archive = read_export(path)
    if archive is not None:
        return load_json(zip_member(archive, member, app), f"{path.name}: {member}")
    return load_export_json(data, path.name, f"a {app} export is its {member}, or a zip holding it")


def load_export_json(data: bytes, name: str, expected: str) -> Any:
    """``load_json`` of a whole file, which may be neither a zip nor JSON (a PDF, the wrong download):
    then the error says so and what ``expected`` is, not which byte failed to parse."""
    start = data.lstrip(b"\xef\xbb\xbf \t\r\n")[:1]
    if start not in (b"{", b"["):
        seen = "it is empty" if not start else f"it starts with {data[:12]!r}"
        raise MalformedExport(f"not a zip, nor JSON: {name} ({seen}); {expected}", {"line": 0})
    return load_json(data, name)


def decode_text(data: bytes, name: str) -> str:
    """The text of an export: UTF-8 (its byte-order mark read past), or UTF-16 with its mark (a file
    saved again by Windows' Notepad as "Unicode")."""
    if data[:2] in (codecs.BOM_UTF16_LE, codecs.BOM_UTF16_BE):
        try:
            return data.decode("utf-16")
        except UnicodeDecodeError as exc:
            raise MalformedExport(
                f"{name}: not UTF-16 text past byte {exc.start}, though it starts as such", {"line": 0}
            ) from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        line = data[: exc.start].count(b"\n") + 1
        column = exc.start - (data.rfind(b"\n", 0, exc.start) + 1) + 1
        raise MalformedExport(
            f"{name}: line {line}, byte {column} of the line: not UTF-8 text (save the export as UTF-8)", {"line": line}
        ) from None


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


def edit_time(value: Any) -> datetime | None:
    """When a message was edited, as an export may say it (Unix seconds, or ISO with a zone), or
    None: the time is a detail a message is not refused for, and a naive one has no known zone."""
    try:
        if isinstance(value, (int, float)) or (isinstance(value, str) and value.replace(".", "", 1).isdigit()):
            return from_epoch(value)
        when = datetime.fromisoformat(str(value).replace("Z", "+00:00"))
    except (ValueError, OverflowError, OSError):
        return None
    return when if when.tzinfo is not None else None


def from_iso(text: str, what: str, line: int) -> datetime:
    try:
        return datetime.fromisoformat(text.replace("Z", "+00:00"))
    except (ValueError, AttributeError, TypeError):
        raise MalformedExport(f"{what}: not an ISO date and time: {text!r}", {"line": line}) from None

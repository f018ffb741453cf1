"""What every chat export becomes, whatever app it came from: chats of messages by senders.

Each importer (``memory/channels/<format>.py``) parses its file into a ``ChatExport``; the import
service stores that, so the rules (sessions, people, idempotency, audiences) live in one place.
"""

from __future__ import annotations

import io
import json
import zipfile
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from agentmemd.memory.core.errors import MalformedExport

ChatKind = Literal["private", "group"]


class _Model(BaseModel):
    model_config = ConfigDict(extra="forbid")


class ChatMessage(_Model):
    """One message as the export has it. ``ts`` is naive when the export gives no time zone
    (WhatsApp): the importer's ``--tz`` says which it was."""

    sender: str = Field(description="the sender's name (or number) as the export shows it")
    sender_id: str | None = Field(None, description="the app's id for the sender, where the export has one")
    ts: datetime
    text: str
    line: int = Field(
        description="where it is, for provenance and errors: the line of a text export, the message's "
        "position (1-based) in its chat in a JSON one"
    )
    attachments: list[str] = Field(default_factory=list, description="file names or kinds of what came with it")
    edited: bool = False
    reply_to: str | None = None
    forwarded_from: str | None = None
    message_id: str | None = Field(None, description="the app's id, where the export has one")
    by_assistant: bool = Field(False, description="written by an AI assistant (ChatGPT and Claude exports)")


class Skipped(_Model):
    line: int
    reason: str
    text: str = Field("", description="the start of what was skipped")


class Chat(_Model):
    chat_id: str = Field(description="stable across imports of the same chat: the app's id or its title")
    title: str
    kind: ChatKind
    messages: list[ChatMessage] = Field(default_factory=list)
    skipped: list[Skipped] = Field(default_factory=list)

    @property
    def senders(self) -> list[str]:
        return sorted({m.sender for m in self.messages})


class ChatExport(_Model):
    format: str
    chats: list[Chat]
    notes: list[str] = Field(default_factory=list, description="what the importer inferred, e.g. the date order")
    owner: str | None = Field(
        None, description="the sender (id or name) who made the export, i.e. the user, where the format says"
    )


# ---- reading export files: shared by the importers ------------------------------------------


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

"""The chat-export formats ``agentmemd import`` reads, each declared once in FORMATS: its name, what
a person exports it as, its reader, and how a file is recognised as one. The CLI's format choices and
help, ``agentmemd import auto`` and the benches' ``--format`` follow from that list; a new format is
its parser module and one entry here."""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cached_property
from pathlib import Path
from typing import Any, Callable

from agentmemd.memory.channels.chatgpt import read_chatgpt
from agentmemd.memory.channels.claude import read_claude
from agentmemd.memory.channels.discord import read_discord
from agentmemd.memory.channels.exports import NOT_A_ZIP, first_byte, read_export, zip_contents
from agentmemd.memory.channels.slack import read_slack
from agentmemd.memory.channels.telegram import read_telegram
from agentmemd.memory.channels.whatsapp import DateOrder, read_whatsapp
from agentmemd.memory.core.chats import ChatExport
from agentmemd.memory.core.errors import MalformedExport

AUTO = "auto"  # `agentmemd import auto FILE`: the format the file is recognised as


class ExportPeek:
    """What recognising a file needs of it, read once: the names it holds (a zip's members, else
    its own name) and a JSON document by base name (a zip's member, else the file itself)."""

    def __init__(self, path: Path):
        self.path = Path(path)
        self.data, self.archive = read_export(self.path)
        self._documents: dict[str | None, Any] = {}  # each parsed once, however many formats ask

    @cached_property
    def names(self) -> list[str]:
        if self.archive is None:
            return [self.path.name]
        return [n.rsplit("/", 1)[-1] for n in self.archive.namelist() if not n.endswith("/")]

    def suffixes(self) -> set[str]:
        return {Path(name).suffix.lower() for name in self.names}

    def document(self, member: str | None = None) -> Any:
        """The JSON in the file (or in ``member`` of a zip); None when it is not JSON."""
        key = None if self.archive is None else member
        if key not in self._documents:
            self._documents[key] = self._parse(member)
        return self._documents[key]

    def _parse(self, member: str | None) -> Any:
        try:
            if self.archive is None:
                return json.loads(self.data.decode("utf-8-sig"))
            if member is None:
                return None
            found = [n for n in self.archive.namelist() if n.rsplit("/", 1)[-1] == member]
            return json.loads(self.archive.read(min(found, key=len)).decode("utf-8-sig")) if found else None
        except (ValueError, UnicodeDecodeError, MalformedExport):
            return None

    def first(self, member: str) -> dict[str, Any]:
        """The first conversation of a list of them (ChatGPT's and Claude's conversations.json)."""
        doc = self.document(member)
        return doc[0] if isinstance(doc, list) and doc and isinstance(doc[0], dict) else {}


def _whatsapp(peek: ExportPeek) -> bool:
    return (
        peek.archive is None
        and peek.path.suffix.lower() == ".txt"
        or (peek.archive is not None and ".txt" in peek.suffixes() and "users.json" not in peek.names)
    )


def _telegram(peek: ExportPeek) -> bool:
    """A whole account ('chats'), or one chat: its messages beside its type (personal_chat,
    private_group...), where DiscordChatExporter's file has a guild and a channel instead."""
    doc = peek.document("result.json")
    return isinstance(doc, dict) and ("chats" in doc or ("messages" in doc and "type" in doc and "guild" not in doc))


def _slack(peek: ExportPeek) -> bool:
    return peek.archive is not None and "users.json" in peek.names


def _discord(peek: ExportPeek) -> bool:
    if peek.archive is not None:
        members = [n for n in peek.archive.namelist() if n.lower().endswith(".json")]
        doc = peek.document(members[0].rsplit("/", 1)[-1]) if members and "users.json" not in peek.names else None
    else:
        doc = peek.document()
    return isinstance(doc, dict) and "channel" in doc and "messages" in doc


def _chatgpt(peek: ExportPeek) -> bool:
    return "mapping" in peek.first("conversations.json")


def _claude(peek: ExportPeek) -> bool:
    return "chat_messages" in peek.first("conversations.json")


@dataclass(frozen=True)
class ChatFormat:
    name: str
    description: str  # what a person exports, in their app's words
    read: Callable[..., ChatExport]  # read(path, **options)
    recognise: Callable[[ExportPeek], bool]  # whether a file looks like this format's export
    options: frozenset[str] = frozenset()  # the reader's options (WhatsApp's date_order)


FORMATS: tuple[ChatFormat, ...] = (
    ChatFormat(
        "whatsapp",
        "WhatsApp 'Export chat' .txt (Android or iOS), or its .zip with media",
        read_whatsapp,
        _whatsapp,
        frozenset({"date_order"}),
    ),
    ChatFormat(
        "telegram",
        "Telegram Desktop 'Export chat history' result.json (one chat or the whole account)",
        read_telegram,
        _telegram,
    ),
    ChatFormat("slack", "Slack workspace export .zip (channels, DMs, group DMs, threads)", read_slack, _slack),
    ChatFormat("discord", "DiscordChatExporter JSON (one channel per file, or a zip of them)", read_discord, _discord),
    ChatFormat("chatgpt", "ChatGPT data export .zip, or its conversations.json", read_chatgpt, _chatgpt),
    ChatFormat("claude", "Claude data export .zip, or its conversations.json", read_claude, _claude),
)
BY_NAME = {chat_format.name: chat_format for chat_format in FORMATS}


def recognise(path: Path) -> str:
    """The one format ``path`` looks like; MalformedExport naming what it is not, or both it may be."""
    peek = ExportPeek(path)
    matched = [f.name for f in FORMATS if f.recognise(peek)]
    if len(matched) == 1:
        return matched[0]
    if not matched:
        known = ", ".join(BY_NAME)
        raise MalformedExport(f"not an export agentmemd recognises ({known}){_why_not(peek)}", {"line": 0})
    raise MalformedExport(f"it could be {' or '.join(matched)}; name its format", {"line": 0})


def _why_not(peek: ExportPeek) -> str:
    """What the file is instead, where it can be told: empty, no zip, JSON cut short, a zip of what."""
    if not peek.data.strip():
        return ": the file is empty"
    if peek.archive is not None:
        return f". {zip_contents(peek.archive)}"
    if peek.path.suffix.lower() == ".zip":
        return f": {NOT_A_ZIP}"
    if first_byte(peek.data) in (b"{", b"["):
        try:
            json.loads(peek.data.decode("utf-8-sig"))
        except UnicodeDecodeError:
            return ": JSON that is not UTF-8"
        except ValueError as exc:
            return f": not valid JSON ({exc}; cut short by a download or copy?)"
        return "; name its format"
    return "; name its format"


def read_chat_export(format: str, path: Path, *, date_order: DateOrder | None = None) -> ChatExport:
    """Parse ``path`` as ``format`` (``auto``: the one it is recognised as). Only WhatsApp's text has
    an ambiguous date order to override."""
    chosen = BY_NAME[recognise(path) if format == AUTO else format]
    options = {"date_order": date_order} if date_order is not None and "date_order" in chosen.options else {}
    return chosen.read(Path(path), **options)

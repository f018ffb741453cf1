"""DiscordChatExporter's JSON (``--format Json``): one channel, thread or DM per file.

    {"guild": {"id": "…", "name": "Climbing crew"},
     "channel": {"id": "…", "type": "GuildTextChat", "category": "General", "name": "trips"},
     "messages": [{"id": "…", "type": "Default", "timestamp": "2024-03-12T09:15:40.123+00:00",
                   "timestampEdited": null, "content": "…", "author": {"id": "…", "name": "ana",
                   "nickname": "Ana"}, "attachments": [{"fileName": "…"}], "mentions": [...],
                   "reference": {"messageId": "…"}}]}

Direct messages (``DirectTextChat``) are private; guild channels, threads and group DMs are
groups. Join, pin, call and other system message types are skipped with their type; a raw
``<@id>`` mention left in the content is named through the message's mentions.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from agentmemd.memory.channels.exports import (
    edit_time,
    expect,
    from_iso,
    load_export_json,
    load_json,
    not_the_export,
    read_export,
)
from agentmemd.memory.core.chats import Chat, ChatExport, ChatMessage, Skipped
from agentmemd.memory.core.errors import MalformedExport

CONVERSATION_TYPES = {"Default", "Reply", "ThreadStarterMessage"}
PRIVATE_CHANNELS = {"DirectTextChat"}
EXPECTED = "a DiscordChatExporter export is a channel's JSON (--format Json), or a zip of several"
_MENTION = re.compile(r"<@!?(?P<id>\d+)>")


def read_discord(path: Path) -> ChatExport:
    """Parse one DiscordChatExporter JSON file, or a zip of several (one per channel)."""
    path = Path(path)
    data, archive = read_export(path)
    if archive is None:
        return parse_discord([load_export_json(data, path.name, EXPECTED)])
    members = sorted(n for n in archive.namelist() if n.lower().endswith(".json"))
    if not members:
        raise not_the_export(archive, path.name, ".json channel exports", "DiscordChatExporter")
    return parse_discord([load_json(archive.read(m), f"{path.name}: {m}") for m in members])


def parse_discord(documents: list[Any]) -> ChatExport:
    return ChatExport(format="discord", chats=[_chat(expect(d, dict, "DiscordChatExporter JSON")) for d in documents])


def _chat(doc: dict) -> Chat:
    channel = expect(doc.get("channel"), dict, "'channel'")
    guild = doc.get("guild") or {}
    private = channel.get("type") in PRIVATE_CHANNELS
    name = channel.get("name") or channel.get("id")
    title = str(name) if private else f"{guild.get('name', 'Discord')} / #{name}"
    chat = Chat(chat_id=f"discord:{channel.get('id', name)}", title=title, kind="private" if private else "group")
    for position, raw in enumerate(expect(doc.get("messages", []), list, "'messages'"), start=1):
        parsed = _message(expect(raw, dict, f"message {position}", position), position)
        chat.add(parsed)
    return chat


def _message(raw: dict, position: int) -> ChatMessage | Skipped:
    author = raw.get("author") or {}
    sender = str(author.get("nickname") or author.get("name") or author.get("id") or "unknown")
    mentions = {
        str(m.get("id")): m.get("nickname") or m.get("name") for m in raw.get("mentions") or [] if isinstance(m, dict)
    }
    text = _MENTION.sub(
        lambda f: "@" + str(mentions.get(f.group("id")) or f.group("id")), str(raw.get("content") or "")
    )
    text = text.strip()
    kind = raw.get("type", "Default")
    if kind not in CONVERSATION_TYPES:
        return Skipped(line=position, reason=f"system message ({kind})", text=f"{sender} {text}".strip()[:120])
    files = [
        str(a.get("fileName") or a.get("url") or "file") for a in raw.get("attachments") or [] if isinstance(a, dict)
    ]
    files += [f"sticker {s.get('name')}" for s in raw.get("stickers") or [] if isinstance(s, dict)]
    if not text:
        return Skipped(line=position, reason=f"media without text ({', '.join(files) or 'nothing'})", text=sender)
    if not raw.get("timestamp"):
        raise MalformedExport(f"message {position}: no timestamp", {"line": position})
    reference = raw.get("reference") or {}
    return ChatMessage(
        sender=sender,
        sender_id=str(author["id"]) if author.get("id") else None,
        ts=from_iso(raw["timestamp"], f"message {position}: timestamp", position),
        text=text,
        line=position,
        attachments=files,
        edited=bool(raw.get("timestampEdited")),
        edited_at=edit_time(raw.get("timestampEdited")),
        reply_to=str(reference["messageId"]) if reference.get("messageId") else None,
        message_id=str(raw["id"]) if raw.get("id") else None,
    )

"""Claude's data export (Settings → Privacy → Export data): ``conversations.json`` in a zip.

    [{"uuid": "…", "name": "Trip to Porto", "created_at": "2024-03-12T09:15:40.123456Z",
      "chat_messages": [{"uuid": "…", "sender": "human", "created_at": "…", "text": "…",
                         "content": [{"type": "text", "text": "…"}, {"type": "tool_use", …}],
                         "attachments": [{"file_name": "…"}], "files": [{"file_name": "…"}]}]}]

A message's words are its ``text`` blocks (tool calls, tool results and thinking are left out),
or its ``text`` field in exports without ``content``. The person is the export's owner; Claude's
messages are marked ``by_assistant``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from agentmemd.memory.channels.exports import expect, from_iso, read_json_export
from agentmemd.memory.core.chats import Chat, ChatExport, ChatMessage, Skipped
from agentmemd.memory.core.errors import MalformedExport

OWNER = "User"
ASSISTANT = "Claude"


def read_claude(path: Path) -> ChatExport:
    """Parse Claude's export zip, or its ``conversations.json``."""
    return parse_claude(read_json_export(path, "conversations.json", "Claude"))


def parse_claude(document: Any) -> ChatExport:
    conversations = expect(document, list, "conversations.json (a list of conversations)")
    chats = [_chat(expect(c, dict, f"conversation {n}"), n) for n, c in enumerate(conversations, start=1)]
    return ChatExport(format="claude", chats=chats, owner=OWNER)


def _chat(raw: dict, number: int) -> Chat:
    if "chat_messages" not in raw and "mapping" in raw:  # else each conversation would read as empty
        raise MalformedExport(
            f"conversation {number} has mapping, not chat_messages: this is a ChatGPT export (import it as chatgpt)",
            {"line": number},
        )
    chat = Chat(chat_id=f"claude:{raw.get('uuid', number)}", title=str(raw.get("name") or "Untitled"), kind="private")
    messages = expect(raw.get("chat_messages", []), list, f"conversation {number}: chat_messages", number)
    for position, message in enumerate(messages, start=1):
        parsed = _message(expect(message, dict, f"conversation {number}: message {position}", position), position)
        chat.add(parsed)
    return chat


def _message(raw: dict, position: int) -> ChatMessage | Skipped:
    sender = raw.get("sender")
    blocks = raw.get("content")
    if isinstance(blocks, list) and blocks:
        text = "\n\n".join(b.get("text", "") for b in blocks if isinstance(b, dict) and b.get("type") == "text")
    else:
        text = str(raw.get("text") or "")
    text = text.strip()
    files = [str(f.get("file_name")) for f in [*(raw.get("attachments") or []), *(raw.get("files") or [])]
             if isinstance(f, dict) and f.get("file_name")]  # fmt: skip
    if sender not in ("human", "assistant"):
        return Skipped(line=position, reason=f"{sender or 'unknown'} message", text=text[:120])
    if not text:
        return Skipped(line=position, reason=f"no text ({', '.join(files) or 'tool use only'})", text=sender)
    if not raw.get("created_at"):
        raise MalformedExport(f"message {position}: no created_at", {"line": position})
    return ChatMessage(
        sender=OWNER if sender == "human" else ASSISTANT,
        ts=from_iso(raw["created_at"], f"message {position}: created_at", position),
        text=text,
        line=position,
        attachments=files,
        message_id=str(raw["uuid"]) if raw.get("uuid") else None,
        by_assistant=sender == "assistant",
    )

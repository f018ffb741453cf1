"""ChatGPT's data export: ``conversations.json`` (in the zip ChatGPT mails, or on its own).

    [{"id": "…", "title": "Trip to Porto", "create_time": 1710234940.1, "current_node": "n9",
      "mapping": {"n1": {"message": {"author": {"role": "user"}, "create_time": 1710234941.2,
                                     "content": {"content_type": "text", "parts": ["…"]}},
                         "parent": null, "children": ["n2"]}, …}}]

A conversation is a tree: every edit or regenerated answer is a branch. The one the person last
saw runs from ``current_node`` up through the parents, and only it is read. System, tool and
hidden messages, the model's reasoning and browsing output are skipped with the reason; images in
a multimodal message become attachments. The person is the export's owner; the assistant's
messages are marked ``by_assistant``.
"""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from agentmemd.memory.channels.exports import expect, from_epoch, read_json_export
from agentmemd.memory.core.chats import Chat, ChatExport, ChatMessage, Skipped
from agentmemd.memory.core.errors import MalformedExport

OWNER = "User"
ASSISTANT = "ChatGPT"
SKIPPED_CONTENT = {
    "thoughts": "the model's reasoning",
    "reasoning_recap": "the model's reasoning",
    "code": "a tool call",
    "execution_output": "tool output",
    "tether_browsing_display": "browsing output",
    "tether_quote": "browsing output",
    "system_error": "an error",
    "user_editable_context": "custom instructions",
}


def read_chatgpt(path: Path) -> ChatExport:
    """Parse ChatGPT's export zip, or its ``conversations.json``."""
    return parse_chatgpt(read_json_export(path, "conversations.json"))


def parse_chatgpt(document: Any) -> ChatExport:
    conversations = expect(document, list, "conversations.json (a list of conversations)")
    chats = [_chat(expect(c, dict, f"conversation {n}"), n) for n, c in enumerate(conversations, start=1)]
    return ChatExport(format="chatgpt", chats=chats, owner=OWNER)


def _branch(mapping: dict, current: str | None) -> list[dict]:
    """The messages from the root to ``current`` (the branch shown last), oldest first."""
    if current is None:  # older exports: follow the last child from the root
        roots = [k for k, node in mapping.items() if not node.get("parent")]
        current = roots[0] if roots else None
        while current is not None and mapping[current].get("children"):
            current = mapping[current]["children"][-1]
    path, seen = [], set()
    while current is not None and current in mapping and current not in seen:
        seen.add(current)
        node = mapping[current]
        if node.get("message"):
            path.append(node["message"])
        current = node.get("parent")
    return path[::-1]


def _chat(raw: dict, number: int) -> Chat:
    mapping = expect(raw.get("mapping"), dict, f"conversation {number}: mapping", number)
    conversation_id = raw.get("conversation_id") or raw.get("id") or f"{raw.get('create_time')}"
    chat = Chat(chat_id=f"chatgpt:{conversation_id}", title=str(raw.get("title") or "Untitled"), kind="private")
    last: datetime | None = from_epoch(raw["create_time"]) if raw.get("create_time") else None
    for position, message in enumerate(_branch(mapping, raw.get("current_node")), start=1):
        parsed = _message(expect(message, dict, f"conversation {number}: message {position}"), position, last)
        chat.add(parsed)
        if not isinstance(parsed, Skipped):
            last = parsed.ts
    return chat


def _message(raw: dict, position: int, last: datetime | None) -> ChatMessage | Skipped:
    role = (raw.get("author") or {}).get("role")
    content = raw.get("content") or {}
    kind = content.get("content_type", "text")
    parts = content.get("parts") or ([content["text"]] if isinstance(content.get("text"), str) else [])
    text = "\n".join(p for p in parts if isinstance(p, str)).strip()
    images = [str(p.get("asset_pointer") or p.get("content_type") or "image") for p in parts if isinstance(p, dict)]
    if role not in ("user", "assistant"):
        return Skipped(line=position, reason=f"{role or 'unknown'} message", text=text[:120])
    if kind in SKIPPED_CONTENT or (raw.get("metadata") or {}).get("is_visually_hidden_from_conversation"):
        return Skipped(line=position, reason=SKIPPED_CONTENT.get(kind, "hidden message"), text=text[:120])
    if not text:
        return Skipped(line=position, reason=f"media without text ({', '.join(images) or 'nothing'})", text=role)
    when = raw.get("create_time")
    if when is None and last is None:
        raise MalformedExport(f"message {position}: no create_time, and nothing before it has one", {"line": position})
    return ChatMessage(
        sender=OWNER if role == "user" else ASSISTANT,
        ts=from_epoch(when) if when is not None else last,
        text=text,
        line=position,
        attachments=images,
        message_id=str(raw["id"]) if raw.get("id") else None,
        by_assistant=role == "assistant",
    )

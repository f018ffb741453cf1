"""ChatGPT's data export: ``conversations.json`` (in the zip ChatGPT mails, or on its own).

    [{"id": "…", "title": "Trip to Porto", "create_time": 1710234940.1, "current_node": "n9",
      "mapping": {"n1": {"message": {"author": {"role": "user"}, "create_time": 1710234941.2,
                                     "content": {"content_type": "text", "parts": ["…"]}},
                         "parent": null, "children": ["n2"]}, …}}]

A conversation is a tree: every edit or regenerated answer is a branch. The one the person last
saw runs from ``current_node`` up through the parents, and only it is read; what the other
branches hold is counted in the export's notes. System, tool and hidden messages, the model's
reasoning and browsing output are skipped with the reason; images in a multimodal message become
attachments. The person is the export's owner; the assistant's messages are marked ``by_assistant``.

Custom instructions ride along in every conversation as a hidden message (``content_type``
"user_editable_context", ``metadata.is_user_system_message``), the person's own words in
``metadata.user_context_message_data`` {"about_user_message", "about_model_message"}, or fenced
in ``content.user_profile`` / ``user_instructions`` after ChatGPT's preamble. They are what the
person says about themselves: each distinct text is imported once, at the first conversation it
was in, as the person's message in a chat of its own ("ChatGPT custom instructions").
"""

from __future__ import annotations

import hashlib
import re
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
INSTRUCTIONS_CHAT = "chatgpt:custom-instructions"
# (the clean text's key in the metadata, the content field that wraps it, how the import says it)
INSTRUCTION_PARTS = (
    ("about_user_message", "user_profile", "About me (my ChatGPT custom instructions)"),
    ("about_model_message", "user_instructions", "How I want ChatGPT to respond (my custom instructions)"),
)
_FENCED = re.compile(r"```(.*)```", re.DOTALL)
BRANCHES_NAMED = 3


def read_chatgpt(path: Path) -> ChatExport:
    """Parse ChatGPT's export zip, or its ``conversations.json``."""
    return parse_chatgpt(read_json_export(path, "conversations.json", "ChatGPT"))


def parse_chatgpt(document: Any) -> ChatExport:
    conversations = expect(document, list, "conversations.json (a list of conversations)")
    chats: list[Chat] = []
    off_branch: list[tuple[str, int]] = []  # (title, messages on branches not shown last)
    instructions: dict[str, datetime] = {}  # each distinct text -> the first time it was in a conversation
    for number, raw in enumerate(conversations, start=1):
        chat, others = _chat(expect(raw, dict, f"conversation {number}"), number)
        chats.append(chat)
        if others:
            off_branch.append((chat.title, others))
        for text, when in _custom_instructions(raw):
            instructions[text] = min(when, instructions.get(text, when))
    if instructions:
        chats.append(_instructions_chat(instructions))
    notes = [_branches_note(off_branch)] if off_branch else []
    return ChatExport(format="chatgpt", chats=chats, owner=OWNER, notes=notes)


def _branch(mapping: dict, current: str | None) -> list[tuple[str, dict]]:
    """(node id, message) from the root to ``current`` (the branch shown last), oldest first."""
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
            path.append((current, node["message"]))
        current = node.get("parent")
    return path[::-1]


def _chat(raw: dict, number: int) -> tuple[Chat, int]:
    """The conversation's branch shown last, and how many messages its other branches hold."""
    if "mapping" not in raw and "chat_messages" in raw:
        raise MalformedExport(
            f"conversation {number} has chat_messages, not mapping: this is a Claude export (import it as claude)",
            {"line": number},
        )
    mapping = expect(raw.get("mapping"), dict, f"conversation {number}: mapping", number)
    conversation_id = raw.get("conversation_id") or raw.get("id") or f"{raw.get('create_time')}"
    chat = Chat(chat_id=f"chatgpt:{conversation_id}", title=str(raw.get("title") or "Untitled"), kind="private")
    last: datetime | None = from_epoch(raw["create_time"]) if raw.get("create_time") else None
    branch = _branch(mapping, raw.get("current_node"))
    for position, (_, message) in enumerate(branch, start=1):
        parsed = _message(expect(message, dict, f"conversation {number}: message {position}"), position, last)
        chat.add(parsed)
        if not isinstance(parsed, Skipped):
            last = parsed.ts
    shown = {node_id for node_id, _ in branch}
    others = sum(
        1
        for node_id, node in mapping.items()
        if node_id not in shown
        and isinstance(node, dict)
        and isinstance(node.get("message"), dict)
        and _skipped(node["message"], 0) is None
    )
    return chat, others


def _branches_note(off_branch: list[tuple[str, int]]) -> str:
    total = sum(count for _, count in off_branch)
    named = ", ".join(f"{count} in {title!r}" for title, count in off_branch[:BRANCHES_NAMED])
    more = len(off_branch) - BRANCHES_NAMED
    return (
        f"{total} message{'s' if total != 1 else ''} on other branches not imported (earlier edits and "
        f"regenerated answers: only the branch each conversation showed last is read): {named}"
        + (f", and more in {more} other conversations" if more > 0 else "")
    )


def _custom_instructions(raw: dict) -> list[tuple[str, datetime]]:
    """The custom instructions a conversation carried, as the person wrote them, with when."""
    mapping = raw.get("mapping") if isinstance(raw.get("mapping"), dict) else {}
    started = raw.get("create_time") or raw.get("update_time")
    found = []
    for node in mapping.values():
        message = node.get("message") if isinstance(node, dict) else None
        if not isinstance(message, dict):
            continue
        metadata = message.get("metadata") or {}
        content = message.get("content") or {}
        if content.get("content_type") != "user_editable_context" and not metadata.get("is_user_system_message"):
            continue
        when = message.get("create_time") or started
        if when is None:  # nothing in the conversation says when: no time to file it at
            continue
        given = metadata.get("user_context_message_data") or {}
        for clean, wrapped, label in INSTRUCTION_PARTS:
            text = given.get(clean) or _unwrapped(content.get(wrapped))
            if isinstance(text, str) and text.strip():
                found.append((f"{label}: {text.strip()}", from_epoch(when)))
    return found


def _unwrapped(text: Any) -> str:
    """The person's words in a ``user_profile`` / ``user_instructions`` field: what ChatGPT's preamble
    fences, or the whole field when it has no fence (older exports)."""
    if not isinstance(text, str):
        return ""
    fenced = _FENCED.search(text)
    return fenced.group(1) if fenced else text


def _instructions_chat(instructions: dict[str, datetime]) -> Chat:
    """One message by the person per distinct text, keyed by it: a re-import adds nothing."""
    chat = Chat(chat_id=INSTRUCTIONS_CHAT, title="ChatGPT custom instructions", kind="private")
    ordered = sorted(instructions.items(), key=lambda pair: (pair[1], pair[0]))
    for position, (text, when) in enumerate(ordered, start=1):
        digest = hashlib.sha256(text.encode()).hexdigest()[:24]
        chat.add(ChatMessage(sender=OWNER, ts=when, text=text, line=position, message_id=f"instructions:{digest}"))
    return chat


def _parts(raw: dict) -> tuple[str | None, str, list[str]]:
    """A message's author role, text and images."""
    content = raw.get("content") or {}
    parts = content.get("parts") or ([content["text"]] if isinstance(content.get("text"), str) else [])
    text = "\n".join(p for p in parts if isinstance(p, str)).strip()
    images = [str(p.get("asset_pointer") or p.get("content_type") or "image") for p in parts if isinstance(p, dict)]
    return (raw.get("author") or {}).get("role"), text, images


def _skipped(raw: dict, position: int) -> Skipped | None:
    """Why a message is no part of the conversation (None: it is)."""
    role, text, images = _parts(raw)
    kind = (raw.get("content") or {}).get("content_type", "text")
    if role not in ("user", "assistant"):
        return Skipped(line=position, reason=f"{role or 'unknown'} message", text=text[:120])
    if kind in SKIPPED_CONTENT or (raw.get("metadata") or {}).get("is_visually_hidden_from_conversation"):
        return Skipped(line=position, reason=SKIPPED_CONTENT.get(kind, "hidden message"), text=text[:120])
    if not text:
        return Skipped(line=position, reason=f"media without text ({', '.join(images) or 'nothing'})", text=role)
    return None


def _message(raw: dict, position: int, last: datetime | None) -> ChatMessage | Skipped:
    skipped = _skipped(raw, position)
    if skipped is not None:
        return skipped
    role, text, images = _parts(raw)
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

"""A chat's identity from what it holds, for exports whose app gives no chat id (WhatsApp).

A file name says nothing: every iOS export is ``_chat.txt``, a copy becomes ``… (1).txt``, and
two people's chats may share a title. The opening messages do: the first few, with their times
as the export wrote them (wall-clock, so another ``--tz`` reading is the same chat), their
senders and their words. Two chats that open with the same messages at the same minutes by the
same names are, for any practical purpose, the same chat; a later export of a chat still opens
the same way (WhatsApp exports a chat from its start, up to its size limit).
"""

from __future__ import annotations

import hashlib

from agentmemd.memory.core.chats import ChatMessage

OPENING_MESSAGES = 3


def content_chat_id(channel: str, messages: list[ChatMessage]) -> str:
    """``whatsapp:c-1a2b3c4d5e6f7a8b``: the same for every export of one chat, whatever its file's name."""
    opening = sorted(messages, key=lambda m: (m.ts.isoformat(), m.line))[:OPENING_MESSAGES]
    basis = "\x1e".join(f"{m.ts.isoformat()}\x1f{m.sender}\x1f{m.text}" for m in opening)
    return f"{channel}:c-{hashlib.sha256(basis.encode()).hexdigest()[:16]}"


def title_from_people(messages: list[ChatMessage], limit: int = 4) -> str:
    """A readable title for a chat whose file has none (``_chat.txt``): its senders, most frequent first."""
    counts: dict[str, int] = {}
    for m in messages:
        counts[m.sender] = counts.get(m.sender, 0) + 1
    names = sorted(counts, key=lambda n: (-counts[n], n))
    shown = ", ".join(names[:limit]) + (f" and {len(names) - limit} more" if len(names) > limit else "")
    return shown or "chat"

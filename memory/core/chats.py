"""What every chat export becomes, whatever app it came from: chats of messages by senders.

Each importer (``memory/channels/<format>.py``) parses its file into a ``ChatExport``; the channel
service stores its messages (``channels.ingest``, which live webhooks use too), so the rules
(sessions, people, idempotency, audiences) live in one place. These models cross the socket.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

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
    edited_at: datetime | None = Field(None, description="when it was last edited, where the export says")
    reply_to: str | None = None
    forwarded_from: str | None = None
    message_id: str | None = Field(None, description="the app's id, where the export has one")
    by_assistant: bool = Field(False, description="written by an AI assistant (ChatGPT and Claude exports)")


class Skipped(_Model):
    line: int
    reason: str
    text: str = Field("", description="the start of what was skipped")


class Chat(_Model):
    chat_id: str = Field(
        description="stable across imports of the same chat: the app's id, or one made from its content"
    )
    title: str
    earlier_ids: list[str] = Field(
        default_factory=list, description="ids earlier versions stored the same chat under (found by its messages)"
    )
    kind: ChatKind
    messages: list[ChatMessage] = Field(default_factory=list)
    skipped: list[Skipped] = Field(default_factory=list)
    deleted: list[str] = Field(
        default_factory=list, description="app ids of messages the export marks deleted (a Slack tombstone)"
    )

    def add(self, parsed: ChatMessage | Skipped) -> None:
        """A parsed message, or a line skipped with its reason, in its list."""
        (self.skipped if isinstance(parsed, Skipped) else self.messages).append(parsed)

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

    def senders(self) -> list[str]:
        """Every sender's name in the export, the most frequent first (ties by name)."""
        counts: dict[str, int] = {}
        for chat in self.chats:
            for m in chat.messages:
                counts[m.sender] = counts.get(m.sender, 0) + 1
        return sorted(counts, key=lambda name: (-counts[name], name))

    def is_sender(self, who: str) -> bool:
        """Whether ``who`` (a name or the app's id, as ``--me`` takes it) sent a message of the export."""
        return any(who in (m.sender, m.sender_id) for chat in self.chats for m in chat.messages)

"""What the dashboard's People and Chats pages read beside people.list/get and chats.list: every
account of a namespace's people at once, one chat's sessions and speakers, and the namespace's
memories counted by audience."""

from __future__ import annotations

from typing import Any

from agentmemd.memory.store.database import Store


class DirectoryTables:
    def __init__(self, store: Store):
        self.store = store  # store.conn, asked each time: a reader thread's own connection while it reads

    def accounts(self, namespace: str) -> list[dict[str, Any]]:
        return self.store._rows(
            "SELECT person, channel, account, name FROM person_accounts WHERE namespace = ? "
            "ORDER BY person, channel, account",
            (namespace,),
        )

    def chat(self, namespace: str, chat: str) -> dict[str, Any] | None:
        """The chat with its message and session counts and its first and last message."""
        rows = self.store._rows(
            "SELECT c.chat, c.channel, c.title, c.kind, count(t.seq) AS messages, "
            "count(DISTINCT t.session) AS sessions, min(t.ts) AS first, max(t.ts) AS last "
            "FROM chats c LEFT JOIN conversation_turns t ON t.namespace = c.namespace AND t.chat = c.chat "
            "WHERE c.namespace = ? AND c.chat = ? GROUP BY c.namespace, c.chat",
            (namespace, chat),
        )
        return rows[0] if rows else None

    def chat_sessions(self, namespace: str, chat: str, limit: int, offset: int) -> list[dict[str, Any]]:
        """A page of the chat's sessions, the latest active first."""
        return self.store._rows(
            "SELECT session, count(*) AS messages, min(ts) AS first, max(ts) AS last, "
            "count(observed_run) AS observed FROM conversation_turns "
            "WHERE chat = ? AND namespace = ? GROUP BY session ORDER BY max(seq) DESC LIMIT ? OFFSET ?",
            (chat, namespace, limit, offset),
        )

    def chat_people(self, namespace: str, chat: str) -> list[dict[str, Any]]:
        """Everyone who spoke in the chat, as it shows them, most messages first."""
        return self.store._rows(
            "SELECT person, max(speaker) AS name, count(*) AS messages FROM conversation_turns "
            "WHERE chat = ? AND namespace = ? AND person IS NOT NULL GROUP BY person ORDER BY messages DESC, person",
            (chat, namespace),
        )

    def memory_audiences(self, namespace: str) -> dict[str, int]:
        """The namespace's current memories (live, not superseded) counted by audience."""
        rows = self.store.conn.execute(
            "SELECT audience, count(*) FROM memories WHERE namespace = ? AND superseded_by IS NULL GROUP BY audience",
            (namespace,),
        )
        return dict(rows.fetchall())

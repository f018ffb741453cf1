"""Access tokens: each a name, the SHA-256 of its secret, the namespaces it may use, and its last
use (when, by which door, for which method)."""

from __future__ import annotations

import json
from typing import Any

from agentmemd.memory.store.database import Store

COLUMNS = "name, namespaces, created, revoked, last_used, last_door, last_method, hears"


class AccessTables:
    def __init__(self, store: Store):
        self.store = store

    def add(
        self, name: str, token_sha256: str, namespaces: list[str] | None, created: str, hears: str | None = None
    ) -> None:
        self.store.conn.execute(
            "INSERT INTO access_tokens (name, token_sha256, namespaces, created, hears) VALUES (?, ?, ?, ?, ?)",
            (name, token_sha256, None if namespaces is None else json.dumps(namespaces), created, hears),
        )

    def exists(self, name: str) -> bool:
        return self.store.conn.execute("SELECT 1 FROM access_tokens WHERE name = ?", (name,)).fetchone() is not None

    def live_by_hash(self, token_sha256: str) -> dict[str, Any] | None:
        rows = self._select("WHERE token_sha256 = ? AND revoked IS NULL", (token_sha256,))
        return rows[0] if rows else None

    def all(self) -> list[dict[str, Any]]:
        return self._select("ORDER BY created, name", ())

    def revoke(self, name: str, at: str) -> bool:
        """True when a live token of that name was revoked now."""
        cursor = self.store.conn.execute(
            "UPDATE access_tokens SET revoked = ? WHERE name = ? AND revoked IS NULL", (at, name)
        )
        return cursor.rowcount > 0

    def note_uses(self, uses: list[tuple[str, str, str, str]]) -> None:
        """Each (name, at, door, method): the token's latest call. One written earlier with a later
        time is kept (a slower writer never turns the clock back)."""
        self.store.conn.executemany(
            "UPDATE access_tokens SET last_used = ?, last_door = ?, last_method = ? "
            "WHERE name = ? AND (last_used IS NULL OR last_used <= ?)",
            [(at, door, method, name, at) for name, at, door, method in uses],
        )

    def _select(self, rest: str, params: tuple) -> list[dict[str, Any]]:
        rows = self.store.conn.execute(f"SELECT {COLUMNS} FROM access_tokens {rest}", params).fetchall()
        return [
            {
                "name": name,
                "namespaces": None if namespaces is None else json.loads(namespaces),
                "created": created,
                "revoked": revoked,
                "last_used": last_used,
                "last_door": last_door,
                "last_method": last_method,
                "hears": hears,
            }
            for name, namespaces, created, revoked, last_used, last_door, last_method, hears in rows
        ]

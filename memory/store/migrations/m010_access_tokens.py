"""Migration 010: access tokens."""

from __future__ import annotations

from agentmemd.memory.store.migrations import migrations


@migrations()
def m010_access_tokens(db):
    """Scoped access (issue 13): a door serving someone else presents a token bound to a set of
    namespaces. Only a SHA-256 of each token is kept; namespaces NULL means every namespace."""
    db.execute(
        """CREATE TABLE access_tokens (
            name TEXT PRIMARY KEY,
            token_sha256 TEXT NOT NULL UNIQUE,
            namespaces TEXT,
            created TEXT NOT NULL,
            revoked TEXT
        )"""
    )

"""Migration 025: token last use."""

from __future__ import annotations

from agentmemd.memory.store.migrations import migrations


@migrations()
def m025_token_last_use(db):
    """When each access token was last used, by which door (the process at the socket's other
    end: mcp, proxy, webhooks, the CLI) and for which method: the dashboard's Access tokens page.
    Noted in memory on every call and written at most once a minute per token (services/access.py)."""
    for column in ("last_used", "last_door", "last_method"):
        db.execute(f"ALTER TABLE access_tokens ADD COLUMN {column} TEXT")

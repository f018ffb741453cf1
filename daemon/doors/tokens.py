"""The access token an HTTP caller sends: `Authorization: Bearer <token>` (MCP over HTTP, the
webhooks' generic route, a script calling the dashboard)."""

from __future__ import annotations


def bearer_token(authorization: str | None) -> str | None:
    """The token of an `Authorization: Bearer …` header value; None for anything else."""
    if not authorization or authorization[:7].lower() != "bearer ":
        return None
    return authorization[7:].strip() or None

"""Migration 051: tokens that hear one audience."""

from __future__ import annotations

from agentmemd.memory.store.migrations import migrations


@migrations()
def m051_tokens_that_hear_one_audience(db):
    """An access token may be limited to what one conversation's audience may hear (``hears``: a
    chat's, or the user's own): a door serving one person of a household reads only that. NULL:
    every audience, as every token before."""
    db.execute("ALTER TABLE access_tokens ADD COLUMN hears TEXT")

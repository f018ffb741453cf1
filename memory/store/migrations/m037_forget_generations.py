"""Migration 037: forget generations."""

from __future__ import annotations

from agentmemd.memory.store.migrations import migrations


@migrations()
def m037_forget_generations(db):
    """How many times something was forgotten in each namespace (memory/store/history_tables.py):
    a language-model answer computed while a forget ran is not cached, since its prompt may quote
    what was just forgotten (memory/llm/cache.py)."""
    db.execute(
        """CREATE TABLE forget_generations (
            namespace TEXT PRIMARY KEY,
            generation INTEGER NOT NULL
        )"""
    )

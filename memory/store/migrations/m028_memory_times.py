"""Migration 028: memory times."""

from __future__ import annotations

from agentmemd.memory.store.migrations import migrations
from agentmemd.memory.store.migrations.shared import mark_backlog


@migrations()
def m028_memory_times(db):
    """The days each memory speaks of ("yesterday", "last weekend", "in March 2023"), resolved
    against the moment it was said when it is stored (memory/language/dates.py): when it happened,
    beside when it was said (``created``). Memories stored before are read once, as for m027."""
    db.execute(
        """CREATE TABLE memory_times (
            seq INTEGER NOT NULL,
            namespace TEXT NOT NULL,
            first_day TEXT NOT NULL,
            after_day TEXT NOT NULL,
            PRIMARY KEY (seq, first_day, after_day)
        ) WITHOUT ROWID"""
    )
    db.execute("CREATE INDEX memory_times_by_day ON memory_times (namespace, first_day)")
    mark_backlog(db, "memory_times_backlog")

"""Migration 038: run owners."""

from __future__ import annotations

from agentmemd.memory.store.migrations import migrations


@migrations()
def m038_run_owners(db):
    """Who started each job run and Observer/Reflector run (``Store.owner``): a daemon starting on a
    PostgreSQL database other daemons share marks only the runs of daemons that are gone as
    interrupted, not another's run at work. Runs from before have none: theirs are over."""
    db.execute("ALTER TABLE job_runs ADD COLUMN owner TEXT")
    db.execute("ALTER TABLE conversation_runs ADD COLUMN owner TEXT")

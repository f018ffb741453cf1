"""Migration 005: jobs."""

from __future__ import annotations

from agentmemd.memory.store.migrations import migrations


@migrations()
def m005_jobs(db):
    # job_state.checked_through: every fire time of the job up to this instant has been
    # handled (run, or caught up at start). job_runs: one row per run, for `agentmemd jobs`.
    db.execute("CREATE TABLE job_state (name TEXT PRIMARY KEY, checked_through TEXT NOT NULL)")
    db.execute(
        """CREATE TABLE job_runs (
            id INTEGER PRIMARY KEY,
            name TEXT NOT NULL,
            trigger TEXT NOT NULL,
            started TEXT NOT NULL,
            finished TEXT,
            status TEXT NOT NULL,
            result TEXT,
            error TEXT
        )"""
    )
    db.execute("CREATE INDEX idx_job_runs_name ON job_runs(name, id)")
    db.execute("CREATE INDEX idx_job_runs_started ON job_runs(started)")
    # The daily log lists the memories learned on a day.
    db.execute("CREATE INDEX idx_memories_ingested ON memories(namespace, ingested)")
    # The text the daemon last wrote into each owned Markdown section, so a person's
    # edit inside the section is recognised (and kept) instead of overwritten.
    db.execute("CREATE TABLE owned_sections (path TEXT PRIMARY KEY, body TEXT NOT NULL, written_at TEXT NOT NULL)")
    # Consolidated memories (seed 002, 3.3): level 1-3 nodes over level-0 memories.
    # leaves: the level-0 memory ids under the node (its identity across nights);
    # sources: the memories it was built from directly (provenance).
    db.execute(
        """CREATE TABLE consolidation_nodes (
            memory_id TEXT PRIMARY KEY,
            namespace TEXT NOT NULL,
            level INTEGER NOT NULL,
            leaves TEXT NOT NULL,
            sources TEXT NOT NULL,
            keywords TEXT NOT NULL,
            derived_at TEXT NOT NULL
        )"""
    )
    db.execute("CREATE INDEX idx_consolidation_ns_level ON consolidation_nodes(namespace, level)")

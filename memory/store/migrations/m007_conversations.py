"""Migration 007: conversations."""

from __future__ import annotations

from agentmemd.memory.store.migrations import migrations


@migrations()
def m007_conversations(db):
    # Raw turns, kept for good (seed 002, 8.1.3: transcripts kept for recovery). observed_run:
    # the Observer run that turned the turn into observations (NULL: not yet observed).
    db.execute(
        """CREATE TABLE conversation_turns (
            seq INTEGER PRIMARY KEY,
            session TEXT NOT NULL,
            namespace TEXT NOT NULL,
            role TEXT NOT NULL,
            speaker TEXT NOT NULL,
            content TEXT NOT NULL,
            ts TEXT NOT NULL,
            tokens INTEGER NOT NULL,
            observed_run INTEGER
        )"""
    )
    db.execute("CREATE INDEX idx_turns_session ON conversation_turns(session, seq)")
    db.execute("CREATE INDEX idx_turns_unobserved ON conversation_turns(session, observed_run, seq)")
    # Observations (seed 002, 5.6). status: live | merged | superseded | dropped (by the Reflector);
    # replaced_by: the observation that now carries it. memory_id: the memory it became.
    db.execute(
        """CREATE TABLE observations (
            seq INTEGER PRIMARY KEY,
            id TEXT NOT NULL UNIQUE,
            session TEXT NOT NULL,
            namespace TEXT NOT NULL,
            memory_id TEXT,
            date TEXT NOT NULL,
            referenced_date TEXT,
            relative_date TEXT,
            priority TEXT NOT NULL,
            category TEXT NOT NULL,
            content TEXT NOT NULL,
            source_turns TEXT NOT NULL,
            sources TEXT NOT NULL DEFAULT '[]',
            tokens INTEGER NOT NULL,
            status TEXT NOT NULL DEFAULT 'live',
            replaced_by TEXT,
            run_id INTEGER NOT NULL
        )"""
    )
    db.execute("CREATE INDEX idx_observations_session ON observations(session, status, date, seq)")
    db.execute("CREATE INDEX idx_observations_ns ON observations(namespace, status)")
    # Observer and Reflector runs: a run left 'running' by a crash is marked 'interrupted'
    # at the next start and its work is redone (its writes were never committed).
    db.execute(
        """CREATE TABLE conversation_runs (
            id INTEGER PRIMARY KEY,
            session TEXT NOT NULL,
            kind TEXT NOT NULL,
            trigger TEXT NOT NULL,
            provider TEXT NOT NULL,
            started TEXT NOT NULL,
            finished TEXT,
            status TEXT NOT NULL,
            tokens_in INTEGER NOT NULL DEFAULT 0,
            tokens_out INTEGER NOT NULL DEFAULT 0,
            items_in INTEGER NOT NULL DEFAULT 0,
            items_out INTEGER NOT NULL DEFAULT 0,
            wall_ms REAL,
            error TEXT
        )"""
    )
    db.execute("CREATE INDEX idx_conversation_runs ON conversation_runs(session, kind, id)")
    # The semantic response cache (seed 001): per task category and namespace; exact lookups by
    # prompt hash, semantic ones by cosine over the embedded key text.
    db.execute(
        """CREATE TABLE llm_cache (
            id INTEGER PRIMARY KEY,
            category TEXT NOT NULL,
            task TEXT NOT NULL,
            namespace TEXT NOT NULL,
            prompt_hash TEXT NOT NULL,
            key_text TEXT NOT NULL,
            embedding BLOB NOT NULL,
            response TEXT NOT NULL,
            tokens INTEGER NOT NULL,
            created TEXT NOT NULL,
            hits INTEGER NOT NULL DEFAULT 0
        )"""
    )
    db.execute("CREATE UNIQUE INDEX idx_llm_cache_exact ON llm_cache(category, namespace, prompt_hash)")
    db.execute(
        """CREATE TABLE llm_cache_stats (
            task TEXT NOT NULL,
            namespace TEXT NOT NULL,
            hits_exact INTEGER NOT NULL DEFAULT 0,
            hits_semantic INTEGER NOT NULL DEFAULT 0,
            misses INTEGER NOT NULL DEFAULT 0,
            bypassed INTEGER NOT NULL DEFAULT 0,
            tokens_saved INTEGER NOT NULL DEFAULT 0,
            PRIMARY KEY (task, namespace)
        )"""
    )

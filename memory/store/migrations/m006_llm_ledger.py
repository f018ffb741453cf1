"""Migration 006: llm ledger."""

from __future__ import annotations

from agentmemd.memory.store.migrations import migrations


@migrations()
def m006_llm_ledger(db):
    # One row per language-model call: exact token counts from the API's usage fields.
    db.execute(
        """CREATE TABLE llm_calls (
            id INTEGER PRIMARY KEY,
            at TEXT NOT NULL,
            provider TEXT NOT NULL,
            model TEXT NOT NULL,
            task TEXT NOT NULL,
            namespace TEXT,
            status TEXT NOT NULL,
            input_tokens INTEGER NOT NULL DEFAULT 0,
            output_tokens INTEGER NOT NULL DEFAULT 0,
            cache_creation_input_tokens INTEGER NOT NULL DEFAULT 0,
            cache_read_input_tokens INTEGER NOT NULL DEFAULT 0,
            cost_usd REAL NOT NULL DEFAULT 0,
            latency_ms REAL NOT NULL,
            error TEXT
        )"""
    )
    db.execute("CREATE INDEX idx_llm_calls_at ON llm_calls(at)")

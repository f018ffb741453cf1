"""Migration 008: persona."""

from __future__ import annotations

from agentmemd.memory.store.migrations import migrations


@migrations()
def m008_persona(db):
    # PersonaState, every version kept with the evidence for its change (seed 002, 5.2).
    db.execute(
        """CREATE TABLE persona_states (
            id INTEGER PRIMARY KEY,
            namespace TEXT NOT NULL,
            version INTEGER NOT NULL,
            state TEXT NOT NULL,
            reason TEXT NOT NULL,
            created TEXT NOT NULL,
            UNIQUE (namespace, version)
        )"""
    )
    # Hard rules change only when the user confirms a proposal.
    db.execute(
        """CREATE TABLE persona_rule_proposals (
            id INTEGER PRIMARY KEY,
            namespace TEXT NOT NULL,
            action TEXT NOT NULL,
            rule TEXT NOT NULL,
            origin TEXT NOT NULL,
            status TEXT NOT NULL DEFAULT 'pending',
            created TEXT NOT NULL,
            decided TEXT
        )"""
    )
    # Persona Preservation Records, one per compaction run that saw assistant turns.
    db.execute(
        """CREATE TABLE persona_records (
            id INTEGER PRIMARY KEY,
            namespace TEXT NOT NULL,
            session TEXT,
            run_id INTEGER,
            record TEXT NOT NULL,
            created TEXT NOT NULL
        )"""
    )
    # SyncScore history (seed 002, 5.3), per session and across sessions.
    db.execute(
        """CREATE TABLE sync_scores (
            id INTEGER PRIMARY KEY,
            namespace TEXT NOT NULL,
            session TEXT,
            turn_seq INTEGER,
            at TEXT NOT NULL,
            voice REAL NOT NULL,
            relational REAL NOT NULL,
            grounded REAL NOT NULL,
            style REAL NOT NULL,
            constraint_adherence REAL NOT NULL,
            composite REAL NOT NULL,
            ewma REAL NOT NULL,
            trend TEXT NOT NULL,
            action TEXT NOT NULL,
            provider TEXT NOT NULL,
            samples INTEGER NOT NULL,
            pack_id TEXT,
            details TEXT NOT NULL DEFAULT '{}'
        )"""
    )
    db.execute("CREATE INDEX idx_sync_scores_session ON sync_scores(session, id)")
    db.execute("CREATE INDEX idx_sync_scores_ns ON sync_scores(namespace, at)")
    db.execute("CREATE UNIQUE INDEX idx_sync_scores_turn ON sync_scores(session, turn_seq) WHERE turn_seq IS NOT NULL")
    # What conversation.context built: the pack each turn was given (grounded is judged
    # against it) and the drift action it carried out.
    db.execute(
        """CREATE TABLE context_builds (
            id INTEGER PRIMARY KEY,
            session TEXT NOT NULL,
            at TEXT NOT NULL,
            last_seq INTEGER,
            pack_id TEXT,
            drift_action TEXT NOT NULL,
            score_id INTEGER
        )"""
    )
    db.execute("CREATE INDEX idx_context_builds ON context_builds(session, id)")

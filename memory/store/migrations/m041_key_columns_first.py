"""Migration 041: key columns first."""

from __future__ import annotations

from agentmemd.memory.store.migrations import migrations


@migrations()
def m041_key_columns_first(db):
    """slot_fills and memory_times again, their key's columns declared first and in the key's order:
    SQLite 3.40.0 to 3.41.0 (Debian 12's sqlite3 is 3.40.1) report every row of a WITHOUT ROWID
    table declared otherwise as "NULL value in ..." in PRAGMA integrity_check, so a person checking
    the database with the system's tool saw corruption that was not there."""
    db.execute(
        """CREATE TABLE slot_fills_keyed (
            seq INTEGER NOT NULL,
            slot TEXT NOT NULL,
            subject TEXT NOT NULL,
            namespace TEXT NOT NULL,
            created TEXT NOT NULL,
            PRIMARY KEY (seq, slot, subject)
        ) WITHOUT ROWID"""
    )
    db.execute(
        "INSERT INTO slot_fills_keyed (seq, slot, subject, namespace, created) "
        "SELECT seq, slot, subject, namespace, created FROM slot_fills"
    )
    db.execute("DROP TABLE slot_fills")
    db.execute("ALTER TABLE slot_fills_keyed RENAME TO slot_fills")
    db.execute("CREATE INDEX slot_fills_by_subject ON slot_fills (namespace, slot, subject, created)")
    db.execute(
        """CREATE TABLE memory_times_keyed (
            seq INTEGER NOT NULL,
            first_day TEXT NOT NULL,
            after_day TEXT NOT NULL,
            namespace TEXT NOT NULL,
            PRIMARY KEY (seq, first_day, after_day)
        ) WITHOUT ROWID"""
    )
    db.execute(
        "INSERT INTO memory_times_keyed (seq, first_day, after_day, namespace) "
        "SELECT seq, first_day, after_day, namespace FROM memory_times"
    )
    db.execute("DROP TABLE memory_times")
    db.execute("ALTER TABLE memory_times_keyed RENAME TO memory_times")
    db.execute("CREATE INDEX memory_times_by_day ON memory_times (namespace, first_day)")

"""Migration 017: episodes."""

from __future__ import annotations

from agentmemd.memory.store.migrations import migrations


@migrations()
def m017_episodes(db):
    """Episodes (issue 16): every conversation turn also becomes a memory of type 'episode'.

    conversation_turns.episode: the memory id of the turn's episode (NULL: not indexed yet; the
    episode worker picks those up, also after a crash or an upgrade). memory_turns: the turns a
    memory was made from (an episode's own turn, an observation's source turns); two memories
    sharing a turn are linked, so a pack can prefer the observation to the episode it restates.
    """
    db.execute("ALTER TABLE conversation_turns ADD COLUMN episode TEXT")
    db.execute("CREATE INDEX idx_turns_unindexed ON conversation_turns(seq) WHERE episode IS NULL")
    db.execute("CREATE INDEX idx_turns_session_unindexed ON conversation_turns(session) WHERE episode IS NULL")
    db.execute(
        """CREATE TABLE memory_turns (
            memory_id TEXT NOT NULL,
            turn_seq INTEGER NOT NULL,
            PRIMARY KEY (memory_id, turn_seq)
        ) WITHOUT ROWID"""
    )
    db.execute("CREATE INDEX idx_memory_turns_turn ON memory_turns(turn_seq)")
    db.execute(
        "INSERT OR IGNORE INTO memory_turns (memory_id, turn_seq) "
        "SELECT o.memory_id, j.value FROM observations o, json_each(o.source_turns) j WHERE o.memory_id IS NOT NULL"
    )

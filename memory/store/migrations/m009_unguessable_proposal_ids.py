"""Migration 009: unguessable proposal ids."""

from __future__ import annotations

from agentmemd.memory.store.migrations import migrations
from agentmemd.memory.store.migrations.shared import new_proposal_id


@migrations()
def m009_unguessable_proposal_ids(db):
    """A hard-rule proposal is addressed by a random id, so no caller can confirm another
    namespace's proposal by counting (issue 13); existing proposals get one too."""
    db.execute("ALTER TABLE persona_rule_proposals ADD COLUMN public_id TEXT")
    for (rowid,) in db.execute("SELECT id FROM persona_rule_proposals").fetchall():
        db.execute("UPDATE persona_rule_proposals SET public_id = ? WHERE id = ?", (new_proposal_id(), rowid))
    db.execute("CREATE UNIQUE INDEX idx_rule_proposals_public ON persona_rule_proposals(public_id)")
